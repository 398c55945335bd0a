package dev.elector;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/** Runs tasks one at a time, in submission order, on a delegate executor. */
final class SerialExecutor implements Executor {
  private final Executor delegate;
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
  private boolean running;

  SerialExecutor(Executor delegate) {
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
