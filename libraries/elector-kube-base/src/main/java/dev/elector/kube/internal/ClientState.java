package dev.elector.kube.internal;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * Everything the Kubernetes locks built on one client object share: what is known about sharing a
 * watch of each collection ({@link WatchSharing}), the shared watches running ({@link
 * SharedWatch}), which refusals were already reported, and what the backend keeps per client (such
 * as its HTTP clients). One instance per client object, found by identity, never by {@code equals}
 * (two clients that compare equal may still be two connections with two identities), and kept while
 * the client lives: the only process-wide registry of the Kubernetes locks. Thread-safe.
 */
public final class ClientState {
  private static final Map<Key, ClientState> ALL = new HashMap<>(); // guarded by itself
  private static final ReferenceQueue<Object> COLLECTED = new ReferenceQueue<>();

  private final WatchSharing sharing =
      new WatchSharing(LoggerFactory.getLogger(WatchSharing.class));

  /** The running shared watches by collection path; guarded by itself. */
  private final Map<String, SharedWatch> watches = new HashMap<>();

  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  /** The backend's state by its type; guarded by itself. */
  private final Map<Class<?>, Object> attached = new HashMap<>();

  ClientState() {}

  /** The state of {@code client}, made on first use. */
  public static ClientState of(Object client) {
    Objects.requireNonNull(client, "client");
    synchronized (ALL) {
      for (Object gone; (gone = COLLECTED.poll()) != null; ) {
        ALL.remove((Key) gone);
      }
      return ALL.computeIfAbsent(new Key(client, COLLECTED), k -> new ClientState());
    }
  }

  /**
   * The backend's state of type {@code type} for this client, made by {@code make} on first use. It
   * must not refer to the client object, or the client is never collected.
   */
  public <T> T attached(Class<T> type, Supplier<? extends T> make) {
    synchronized (attached) {
      return type.cast(attached.computeIfAbsent(type, t -> make.get()));
    }
  }

  WatchSharing sharing() {
    return sharing;
  }

  /** The running shared watches by collection path; callers synchronize on it. */
  Map<String, SharedWatch> watches() {
    return watches;
  }

  /** Whether {@code what} is reported for the first time on this client (then it is marked). */
  boolean firstReport(String what) {
    return reported.add(what);
  }

  /** A client held weakly and compared by identity. */
  private static final class Key extends WeakReference<Object> {
    private final int hash;

    Key(Object client, @Nullable ReferenceQueue<Object> queue) {
      super(client, queue);
      this.hash = System.identityHashCode(client);
    }

    @Override
    public boolean equals(@Nullable Object other) {
      if (this == other) {
        return true;
      }
      Object mine = get();
      return other instanceof Key key && mine != null && key.get() == mine;
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
