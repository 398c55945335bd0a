package dev.elector;

import dev.elector.lock.LeaderLock;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.WatchableLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * The election's watch on the lock, if it keeps one: whether the last observation came through it
 * and is still current, and why it is interrupted. Guarded by the election's monitor.
 */
final class LockWatching {
  private final String subject;
  private final Logger log;
  private WatchableLock.@Nullable Subscription subscription;
  private boolean current;

  /** Why the watch is interrupted, or null while it works (or there is none). */
  private @Nullable LockFailure failure;

  LockWatching(String subject, Logger log) {
    this.subject = subject;
    this.log = log;
  }

  /** Starts watching if asked to and the lock can; does nothing if already watching. */
  void open(LeaderLock lock, boolean wanted, Consumer<LockRead> events) {
    if (subscription != null || !wanted || !(lock instanceof WatchableLock watchable)) {
      return;
    }
    try {
      subscription = watchable.watch(events);
      log.debug("{}: watching the lock", subject);
    } catch (RuntimeException e) {
      log.warn("{}: could not watch the lock, polling instead: {}", subject, e.toString());
    }
  }

  void close() {
    if (subscription != null) {
      try {
        subscription.close();
      } catch (RuntimeException e) {
        log.debug("{}: closing the watch failed: {}", subject, e.toString());
      }
      subscription = null;
    }
    current = false;
    failure = null;
  }

  /** Whether the last observation came from the watch and nothing since made it doubtful. */
  boolean current() {
    return current;
  }

  void markCurrent() {
    current = true;
  }

  /** The view may be stale (a failed call, a lost race): read before the next decision. */
  void markStale() {
    current = false;
  }

  void interrupted(LockFailure cause) {
    current = false;
    failure = cause;
  }

  void resumed() {
    failure = null;
  }

  /** How a follower learns of changes, for its health detail. */
  String describe() {
    if (subscription == null) {
      return "";
    }
    return failure == null
        ? "; watching the lock"
        : "; polling while the watch is interrupted: " + failure;
  }

  ElectorStats.Following following() {
    return subscription != null && failure == null
        ? ElectorStats.Following.WATCHING
        : ElectorStats.Following.POLLING;
  }
}
