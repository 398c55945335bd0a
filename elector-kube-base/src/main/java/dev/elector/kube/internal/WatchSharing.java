package dev.elector.kube.internal;

import dev.elector.kube.WatchMode;
import dev.elector.lock.LockFailure;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which watch a lock joins under {@link WatchMode}, and what the process has found out about
 * sharing, per client and collection: a shared watch that listed the collection allows sharing, a
 * 403 from it refuses it. Under {@link WatchMode#AUTO} a lock shares until a refusal is known, and
 * watches its own object after; the shared watch asks an access review before its first list
 * ({@code ListAccessCheck}), so an identity without {@code list} on the collection is found out
 * without a refused request, once per client and collection, not once per lock. Each change of what
 * is known is logged once at INFO, naming the mode and why. Clients are held weakly and compared by
 * identity. Thread-safe.
 */
public final class WatchSharing {
  private static final Logger LOG = LoggerFactory.getLogger(WatchSharing.class);

  /** What the whole process knows; the locks use this one. */
  public static final WatchSharing PROCESS = new WatchSharing(LOG);

  /** How one lock watches now. */
  public enum Choice {
    /** Join the collection's shared watch. */
    SHARED,
    /** Watch its own object by name. */
    PER_LOCK
  }

  private final Logger log;

  /**
   * Per client, per collection path: true when sharing was seen to work, false when refused. Each
   * client is held weakly and found by identity, never by {@code equals}: two clients that compare
   * equal may still be two connections with two identities.
   */
  private final List<Known> known = new ArrayList<>(); // guarded by this

  /** What is known for one client, while it lives. */
  private record Known(WeakReference<Object> client, Map<String, Boolean> byCollection) {}

  /** A fresh memory logging to {@code log}; tests use their own. */
  public WatchSharing(Logger log) {
    this.log = Objects.requireNonNull(log, "log");
  }

  /**
   * How a lock built with {@code mode} on {@code client} watches {@code collection} now. {@link
   * WatchMode#AUTO} shares unless a refusal is known.
   */
  public synchronized Choice choose(WatchMode mode, Object client, String collection) {
    return switch (mode) {
      case SHARED -> Choice.SHARED;
      case PER_LOCK -> Choice.PER_LOCK;
      case AUTO ->
          Boolean.FALSE.equals(lookup(client, collection)) ? Choice.PER_LOCK : Choice.SHARED;
    };
  }

  /**
   * A shared watch listed the collection: sharing works. Logs the mode the first time, and again
   * after a refusal.
   *
   * @param what the collection as messages name it, such as {@code leases.coordination.k8s.io in
   *     namespace ns}
   */
  public void listed(Object client, String collection, String what) {
    if (!Boolean.TRUE.equals(remember(client, collection, true))) {
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
  public boolean refused(
      Object client, String collection, String what, LockFailure failure, String perLockNeeds) {
    if (failure.kind() != LockFailure.Kind.FORBIDDEN) {
      return false;
    }
    if (!Boolean.FALSE.equals(remember(client, collection, false))) {
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

  /** What is known about {@code collection} on {@code client}: true, false, or null. */
  public synchronized @Nullable Boolean lookup(Object client, String collection) {
    Map<String, Boolean> byCollection = of(client, false);
    return byCollection == null ? null : byCollection.get(collection);
  }

  private synchronized @Nullable Boolean remember(
      Object client, String collection, boolean shares) {
    return Objects.requireNonNull(of(client, true)).put(collection, shares);
  }

  /** What is known for {@code client} (added if {@code add}); forgets collected clients. */
  private @Nullable Map<String, Boolean> of(Object client, boolean add) {
    known.removeIf(k -> k.client().get() == null);
    for (Known k : known) {
      if (k.client().get() == client) {
        return k.byCollection();
      }
    }
    if (!add) {
      return null;
    }
    Known added = new Known(new WeakReference<>(client), new HashMap<>());
    known.add(added);
    return added.byCollection();
  }
}
