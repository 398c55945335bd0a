package dev.elector.kube.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads: the default executor of blocking requests, and named watch threads. */
public final class DaemonThreads {
  /** The most threads the shared pool runs at once; further requests wait in its queue. */
  public static final int SHARED_MAX = 8;

  private static final ThreadPoolExecutor SHARED = bounded(SHARED_MAX, "elector-kube-");

  private DaemonThreads() {}

  /**
   * The shared pool of the Kubernetes locks of this process: up to {@value #SHARED_MAX} daemon
   * threads, started as requests arrive while none is idle, each ending after 5 s idle; beyond
   * that, requests queue. A thousand locks then need a few threads, not one per request in flight.
   */
  public static Executor shared() {
    return SHARED;
  }

  /**
   * A pool that hands a task to an idle thread, else starts a thread while fewer than {@code max}
   * run, else queues it; threads end after 5 s idle.
   */
  public static ThreadPoolExecutor bounded(int max, String prefix) {
    HandOff queue = new HandOff();
    return new ThreadPoolExecutor(
        0,
        max,
        5,
        TimeUnit.SECONDS,
        queue,
        factory(prefix),
        (task, pool) -> {
          if (pool.isShutdown()) {
            throw new RejectedExecutionException("the pool " + prefix + " is shut down");
          }
          queue.enqueue(task);
          if (pool.getPoolSize() == 0 && queue.remove(task)) {
            pool.execute(task); // every thread ended meanwhile: start one for it
          }
        });
  }

  /**
   * A queue that takes a task only when a thread waits for it, so the pool starts threads up to its
   * maximum before anything queues; the pool's rejection handler queues the rest.
   */
  private static final class HandOff extends LinkedTransferQueue<Runnable> {
    private static final long serialVersionUID = 1L;

    @Override
    public boolean offer(Runnable task) {
      return tryTransfer(task);
    }

    void enqueue(Runnable task) {
      super.offer(task);
    }
  }

  /** Daemon threads named {@code prefix} and a count. */
  public static ThreadFactory factory(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
