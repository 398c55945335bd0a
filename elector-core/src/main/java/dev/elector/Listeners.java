package dev.elector;

import dev.elector.lock.LeaderLock;

/** Composes listeners. */
final class Listeners {
  private Listeners() {}

  /**
   * The listener an elector notifies: {@code configured}, then the lock itself when the lock is
   * also an {@link ElectorListener}.
   */
  static ElectorListener withLockListener(ElectorListener configured, LeaderLock lock) {
    return lock instanceof ElectorListener own ? ElectorListener.both(configured, own) : configured;
  }
}
