package dev.elector;

import dev.elector.internal.time.SerialExecutor;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * Where an election's events go: callbacks one at a time on the callback executor, guarded so a
 * throwing callback cannot stop the election, and listener events on the calling thread.
 */
final class Dispatcher {
  private static final ThreadLocal<Object> IN_CALLBACK = new ThreadLocal<>();

  private final SerialExecutor callbackQueue;
  private final ElectorListener listener;
  private final String subject;
  private final Logger log;

  Dispatcher(Executor callbackExecutor, ElectorListener listener, String subject, Logger log) {
    this.callbackQueue = new SerialExecutor(callbackExecutor);
    this.listener = listener;
    this.subject = subject;
    this.log = log;
  }

  /** Queues a callback. */
  void callback(String name, Runnable callback) {
    callback(name, callback, () -> {});
  }

  /**
   * Queues a callback, then runs {@code afterwards} on the same thread once it returned or threw.
   */
  void callback(String name, Runnable callback, Runnable afterwards) {
    callbackQueue.execute(
        () -> {
          IN_CALLBACK.set(this);
          try {
            callback.run();
          } catch (RuntimeException | Error e) {
            log.error("{}: callback {} threw; the election goes on", subject, name, e);
          } finally {
            IN_CALLBACK.remove();
            afterwards.run();
          }
        });
  }

  /** Tells the listener now; a listener that throws is logged and ignored. */
  void listener(Consumer<ElectorListener> event) {
    try {
      event.accept(listener);
    } catch (RuntimeException e) {
      log.warn("{}: listener threw; ignored", subject, e);
    }
  }

  /** Whether the calling thread is running one of this dispatcher's callbacks. */
  boolean inCallback() {
    return IN_CALLBACK.get() == this;
  }
}
