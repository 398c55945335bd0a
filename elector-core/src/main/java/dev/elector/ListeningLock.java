package dev.elector;

import dev.elector.lock.LeaderLock;

/**
 * A lock that also hears its elector's events, for example to record them on the lock object (the
 * Kubernetes locks' Events). {@link ElectorConfig} notifies its {@link #electorListener()} after
 * the configured listener; there is nothing to wire.
 *
 * <p>The listener runs on the elector's own thread, like any {@link ElectorListener}: it must only
 * hand the work to a thread of its own, never do I/O, so it cannot delay a renewal.
 */
public interface ListeningLock extends LeaderLock {

  /** The listener to notify as well; {@link ElectorListener#NONE} for none. Never null. */
  ElectorListener electorListener();
}
