package dev.elector;

import dev.elector.lock.LeaderLock;
import java.util.Objects;

/** Composes listeners. */
final class Listeners {
  private Listeners() {}

  /**
   * The listener an elector notifies: {@code configured}, then the lock's own when the lock is a
   * {@link ListeningLock}.
   */
  static ElectorListener withLockListener(ElectorListener configured, LeaderLock lock) {
    if (!(lock instanceof ListeningLock listening)) {
      return configured;
    }
    ElectorListener own =
        Objects.requireNonNull(
            listening.electorListener(), "electorListener() of " + lock.describe());
    return ElectorListener.both(configured, own);
  }
}
