package dev.elector.kube.internal;

import org.jspecify.annotations.Nullable;

/**
 * Stops one request from another thread: the lock aborts a request whose call the elector
 * cancelled. The transport registers, before it sends, what aborts its exchange ({@link #onAbort});
 * {@link #abort()} runs that once, at once if it is registered, else as soon as it is. Thread-safe.
 */
public final class Abort {
  private @Nullable Runnable action;
  private boolean aborted;

  /** A request nobody has aborted yet. */
  public Abort() {}

  /**
   * Registers what aborts the request, such as cancelling its HTTP call; runs it at once, on this
   * thread, if the request was aborted already. It must not block.
   */
  public void onAbort(Runnable abort) {
    synchronized (this) {
      if (!aborted) {
        action = abort;
        return;
      }
    }
    abort.run();
  }

  /** Aborts the request: runs what was registered, or what will be, once. */
  public void abort() {
    Runnable registered;
    synchronized (this) {
      if (aborted) {
        return;
      }
      aborted = true;
      registered = action;
      action = null;
    }
    if (registered != null) {
      registered.run();
    }
  }

  /** Whether the request was aborted: one not sent yet should not be. */
  public synchronized boolean aborted() {
    return aborted;
  }
}
