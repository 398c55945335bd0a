package dev.elector.kube.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads: the default executor of blocking requests, and named watch threads. */
public final class DaemonThreads {
  private static final ThreadPoolExecutor SHARED = new ThreadPoolExecutor(0, Integer.MAX_VALUE,
      5, TimeUnit.SECONDS, new SynchronousQueue<>(), factory("elector-kube-"));

  private DaemonThreads() {}

  /** A shared pool of daemon threads that end after 5 s idle. */
  public static Executor shared() {
    return SHARED;
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
