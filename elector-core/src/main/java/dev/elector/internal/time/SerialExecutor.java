package dev.elector.internal.time;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/** Runs tasks one at a time, in submission order, on a delegate executor. */
public final class SerialExecutor implements Executor {
  private final Executor delegate;
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private boolean running;

  /** An executor that runs the tasks given to it one at a time, in order, on {@code delegate}. */
  public SerialExecutor(Executor delegate) {
    this.delegate = delegate;
  }

  @Override
  public void execute(Runnable task) {
    synchronized (this) {
      queue.add(task);
      if (running) {
        return;
      }
      running = true;
    }
    try {
      delegate.execute(this::drain);
    } catch (RejectedExecutionException shutDown) {
      drain();
    }
  }

  private void drain() {
    while (true) {
      Runnable next;
      synchronized (this) {
        next = queue.poll();
        if (next == null) {
          running = false;
          return;
        }
      }
      next.run();
    }
  }
}
