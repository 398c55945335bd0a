package dev.elector.kube.internal;

import dev.elector.kube.WatchMode;
import dev.elector.lock.LockFailure;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * Which watch a lock joins under {@link WatchMode}, and what is known about sharing on one client,
 * per collection: a shared watch that listed the collection allows sharing, a 403 from it refuses
 * it. Under {@link WatchMode#AUTO} a lock shares until a refusal is known, and watches its own
 * object after; the shared watch asks an access review before its first list ({@code
 * ListAccessCheck}), so an identity without {@code list} on the collection is found out without a
 * refused request, once per client and collection, not once per lock. Each change of what is known
 * is logged once at INFO, naming the mode and why. One per client, held by its {@link ClientState}.
 * Thread-safe.
 */
final class WatchSharing {
  /** How one lock watches now. */
  enum Choice {
    /** Join the collection's shared watch. */
    SHARED,
    /** Watch its own object by name. */
    PER_LOCK
  }

  private final Logger log;

  /** Per collection path: true when sharing was seen to work, false when refused. */
  private final Map<String, Boolean> known = new HashMap<>(); // guarded by this

  /** A fresh memory logging to {@code log}. */
  WatchSharing(Logger log) {
    this.log = Objects.requireNonNull(log, "log");
  }

  /**
   * How a lock built with {@code mode} watches {@code collection} now. {@link WatchMode#AUTO}
   * shares unless a refusal is known.
   */
  synchronized Choice choose(WatchMode mode, String collection) {
    return switch (mode) {
      case SHARED -> Choice.SHARED;
      case PER_LOCK -> Choice.PER_LOCK;
      case AUTO -> Boolean.FALSE.equals(lookup(collection)) ? Choice.PER_LOCK : Choice.SHARED;
    };
  }

  /**
   * A shared watch listed the collection: sharing works. Logs the mode the first time, and again
   * after a refusal.
   *
   * @param what the collection as messages name it, such as {@code leases.coordination.k8s.io in
   *     namespace ns}
   */
  void listed(String collection, String what) {
    if (!Boolean.TRUE.equals(remember(collection, true))) {
      log.info(
          "{}: the locks built on this client with watchMode AUTO (the default) share one"
              + " watch, since this identity may list and watch them; watchMode(PER_LOCK) gives each"
              + " lock a watch of its own",
          what);
    }
  }

  /**
   * A shared watch broke with {@code failure}. A 403 refuses sharing: it is remembered and logged
   * once, and the result tells the shared watch to move its {@link WatchMode#AUTO} locks to watches
   * of their own. Any other failure is a break like any other.
   *
   * @param what the collection as messages name it
   * @param perLockNeeds the Role rule a lock's own watch needs, for the log line
   * @return whether sharing is refused
   */
  boolean refused(String collection, String what, LockFailure failure, String perLockNeeds) {
    if (failure.kind() != LockFailure.Kind.FORBIDDEN) {
      return false;
    }
    if (!Boolean.FALSE.equals(remember(collection, false))) {
      log.info(
          "{}: this identity may not list and watch them, so the locks built on this client"
              + " with watchMode AUTO (the default) each watch their own object on a thread of their"
              + " own (needing {}); to share one watch instead, grant list and watch on the whole"
              + " collection in the namespace: {}",
          what,
          perLockNeeds,
          failure.message());
    }
    return true;
  }

  /** What is known about {@code collection}: true, false, or null. */
  synchronized @Nullable Boolean lookup(String collection) {
    return known.get(collection);
  }

  private synchronized @Nullable Boolean remember(String collection, boolean shares) {
    return known.put(collection, shares);
  }
}
