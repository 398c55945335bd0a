package dev.elector.quarkus.internal;

import dev.elector.time.Cancellable;
import dev.elector.time.Scheduler;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The elector's own scheduler thread and callback threads, daemons in the JVM's default thread
 * group, stopped when the elector bean is disposed.
 *
 * <p>Why not the core's shared default threads: those live in a thread group of their own, and
 * {@code LeaderElector.close()} waits for every thread of that group to end. fabric8's HTTP client
 * starts its Vert.x event loop threads lazily, from whichever thread sends the first request, so
 * they would join that group; they end only when Quarkus closes the client, after the elector, and
 * each close would wait its full 5 s for them.
 */
final class ElectorThreads implements Scheduler, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ElectorThreads.class);

  private final ScheduledThreadPoolExecutor scheduler;
  private final ExecutorService callbacks;

  ElectorThreads() {
    scheduler = new ScheduledThreadPoolExecutor(1, daemons("elector-quarkus-scheduler"));
    scheduler.setRemoveOnCancelPolicy(true);
    scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    callbacks = Executors.newCachedThreadPool(daemons("elector-quarkus-callback"));
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    if (scheduler.isShutdown()) {
      return () -> false;
    }
    ScheduledFuture<?> future =
        scheduler.schedule(
            () -> {
              try {
                task.run();
              } catch (RuntimeException | Error e) {
                log.error("an elector step failed", e);
              }
            },
            Math.max(0, delayNanos),
            TimeUnit.NANOSECONDS);
    return () -> future.cancel(false);
  }

  /** Where the elector runs its callbacks, and so the CDI observers of its events. */
  ExecutorService callbacks() {
    return callbacks;
  }

  /** Stops the threads without waiting for them; call after the elector is closed. */
  @Override
  public void close() {
    scheduler.shutdownNow();
    callbacks.shutdownNow();
  }

  private static ThreadFactory daemons(String prefix) {
    AtomicInteger counter = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + "-" + counter.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
