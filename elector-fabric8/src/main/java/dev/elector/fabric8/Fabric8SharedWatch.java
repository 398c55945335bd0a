package dev.elector.fabric8;

import dev.elector.kube.internal.ListWatchLoop;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.WatchableLock;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One watch of a whole collection in one namespace (such as every Lease in it), shared by all the
 * locks on that collection built on the same {@link KubernetesClient} with
 * {@code sharedWatch(true)}: one thread and one connection however many locks there are. Each
 * subscriber hears only about its own object: its state after every (re)list, or at once when it
 * joins a watch that is up, then each change; and every break. The watch starts with its first
 * subscriber and ends with its last.
 *
 * <p>Deliveries happen under this watch's monitor, so a subscriber never sees an older state after
 * a newer one; listeners must hand over and return (the elector's do).
 */
final class Fabric8SharedWatch extends ListWatchLoop {
  private static final Logger log = LoggerFactory.getLogger(Fabric8SharedWatch.class);

  /** Which watch a lock joins: the same client (by identity) and the same collection. */
  private record Key(ClientRef client, String collectionPath) {}

  /** Compares a client by identity. */
  private record ClientRef(KubernetesClient client) {
    @Override
    public boolean equals(Object other) {
      return other instanceof ClientRef ref && ref.client == client;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(client);
    }
  }

  /** One lock's interest in its object. */
  private record Subscriber(Fabric8ObjectLock lock, Consumer<LockRead> listener) {}

  private static final Map<Key, Fabric8SharedWatch> RUNNING = new HashMap<>(); // guarded by itself

  private final Key key;
  private final String description;
  /** Subscribers by object name. Guarded by this. */
  private final Map<String, List<Subscriber>> subscribers = new HashMap<>();
  /** The last known object of every name in the collection, trimmed; valid once listed. */
  private final Map<String, Map<String, Object>> objects = new HashMap<>();
  private boolean listed;
  private boolean warned;

  private Fabric8SharedWatch(Key key, Fabric8ObjectLock first) {
    super(new Fabric8Transport(first.http(), first.collectionPath(), null),
        first.failures().forCollection(), first.requestTimeout());
    this.key = key;
    this.description = "shared watch of " + first.failures().qualifiedResource()
        + " in namespace " + first.namespace();
  }

  /** Joins (or starts) the shared watch of {@code lock}'s collection. */
  static WatchableLock.Subscription subscribe(Fabric8ObjectLock lock, KubernetesClient client,
      Consumer<LockRead> listener) {
    Key key = new Key(new ClientRef(client), lock.collectionPath());
    Subscriber subscriber = new Subscriber(lock, listener);
    Fabric8SharedWatch watch;
    boolean created = false;
    synchronized (RUNNING) {
      watch = RUNNING.get(key);
      if (watch == null) {
        watch = new Fabric8SharedWatch(key, lock);
        RUNNING.put(key, watch);
        created = true;
      }
      watch.add(subscriber);
    }
    if (created) {
      watch.start("elector-shared-watch-" + lock.namespace() + "-");
    }
    Fabric8SharedWatch joined = watch;
    return new WatchableLock.Subscription() {
      private boolean closed;

      @Override
      public void close() {
        synchronized (RUNNING) {
          if (closed) {
            return;
          }
          closed = true;
          if (joined.remove(subscriber)) {
            RUNNING.remove(joined.key, joined);
            joined.stop();
          }
        }
      }
    };
  }

  /** How many shared watches run now (for tests). */
  static int running() {
    synchronized (RUNNING) {
      return RUNNING.size();
    }
  }

  private synchronized void add(Subscriber subscriber) {
    String name = subscriber.lock().name();
    subscribers.computeIfAbsent(name, n -> new ArrayList<>()).add(subscriber);
    if (listed) {
      tell(subscriber, objects.get(name));
    }
  }

  /** Removes a subscriber; true when none is left. */
  private synchronized boolean remove(Subscriber subscriber) {
    String name = subscriber.lock().name();
    List<Subscriber> list = subscribers.get(name);
    if (list != null && list.remove(subscriber) && list.isEmpty()) {
      subscribers.remove(name);
    }
    return subscribers.isEmpty();
  }

  @Override
  protected String describe() {
    return description;
  }

  @Override
  protected synchronized void listed(List<Map<String, Object>> all) {
    warned = false;
    objects.clear();
    for (Map<String, Object> object : all) {
      String name = ListWatchLoop.name(object);
      if (name != null) {
        objects.put(name, trimmed(object));
      }
    }
    listed = true;
    subscribers.forEach((name, list) -> list.forEach(s -> tell(s, objects.get(name))));
  }

  @Override
  protected synchronized void changed(String type, Map<String, Object> object) {
    String name = ListWatchLoop.name(object);
    if (name == null) {
      return;
    }
    Map<String, Object> now = type.equals("DELETED") ? null : trimmed(object);
    if (now == null) {
      objects.remove(name);
    } else {
      objects.put(name, now);
    }
    for (Subscriber s : subscribers.getOrDefault(name, List.of())) {
      tell(s, now);
    }
  }

  @Override
  protected synchronized void broke(LockFailure failure, boolean firstInARow) {
    if (!warned && failure.kind().isConfigurationProblem()) {
      warned = true; // once until the next successful list; polling goes on meanwhile
      log.warn("{}: cannot watch, followers poll instead: {}", description, failure.message());
    }
    listed = false; // what we hold may be stale now: a joiner waits for the next list
    LockRead.Failed failed = new LockRead.Failed(failure);
    subscribers.values().forEach(list -> list.forEach(s -> safely(s, failed)));
  }

  private static void tell(Subscriber subscriber, Map<String, Object> object) {
    safely(subscriber, object == null ? new LockRead.Absent() : subscriber.lock().toRead(object));
  }

  /** One listener's failure must not keep the others from hearing. */
  private static void safely(Subscriber subscriber, LockRead state) {
    try {
      subscriber.listener().accept(state);
    } catch (RuntimeException e) {
      log.warn("{}: watch listener failed: {}", subscriber.lock().describe(), e.toString());
    }
  }

  /**
   * What is kept of an object: everything but its data and managed fields, which no lock record
   * lives in and which make up most of a ConfigMap.
   */
  private static Map<String, Object> trimmed(Map<String, Object> object) {
    Map<String, Object> copy = new LinkedHashMap<>(object);
    copy.remove("data");
    copy.remove("binaryData");
    Map<String, Object> metadata = ListWatchLoop.asObject(copy.get("metadata"));
    if (metadata != null) {
      Map<String, Object> trimmedMetadata = new LinkedHashMap<>(metadata);
      trimmedMetadata.remove("managedFields");
      copy.put("metadata", trimmedMetadata);
    }
    return copy;
  }
}
