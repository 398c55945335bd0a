package dev.elector.lock;

import java.util.function.Consumer;

/**
 * A lock that can push its changes. A following elector watches instead of polling: it sees a
 * release at once and reads only to resynchronise.
 */
public interface WatchableLock extends LeaderLock {

  /**
   * Delivers each later state of the lock ({@link LockRead.Found}, {@link LockRead.Malformed} or
   * {@link LockRead.Absent}) to {@code listener}, on any thread, until the subscription is closed.
   * A watch that breaks may deliver {@link LockRead.Failed}; the elector then polls until the next
   * state arrives. Implementations reconnect by themselves (with back-off) until closed.
   */
  Subscription watch(Consumer<LockRead> listener);

  /** An active watch. */
  interface Subscription extends AutoCloseable {
    /** Stops the watch. Idempotent. */
    @Override
    void close();
  }
}
