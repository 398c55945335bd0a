package dev.elector.k8s;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.WatchableLock;
import io.kubernetes.client.openapi.ApiClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One watch of a whole collection in one namespace (such as every Lease in it), shared by all the
 * locks on that collection built on the same {@link ApiClient} with {@code sharedWatch(true)}: one
 * thread and one connection however many locks there are. Each subscriber hears only about its own
 * object: its state after every (re)list, or at once when it joins a watch that is up, then each
 * change; and every break. The watch starts with its first subscriber and ends with its last.
 *
 * <p>Deliveries happen under this watch's monitor, so a subscriber never sees an older state after
 * a newer one; listeners must hand over and return (the elector's do).
 */
final class KubeSharedWatch extends KubeListWatch {
  private static final Logger log = LoggerFactory.getLogger(KubeSharedWatch.class);
  /** Which watch a lock joins: the same client (by identity) and the same collection. */
  private record Key(ClientRef client, String collectionPath) {}

  /** Compares an {@link ApiClient} by identity. */
  private record ClientRef(ApiClient client) {
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
  private record Subscriber(KubeObjectLock lock, Consumer<LockRead> listener) {}

  private static final Map<Key, KubeSharedWatch> RUNNING = new HashMap<>(); // guarded by itself

  private final Key key;
  private final String description;
  /** Subscribers by object name. Guarded by this. */
  private final Map<String, List<Subscriber>> subscribers = new HashMap<>();
  /** The last known object of every name in the collection, trimmed; valid once listed. */
  private final Map<String, JsonObject> objects = new HashMap<>();
  private boolean listed;
  private boolean warned;

  private KubeSharedWatch(Key key, KubeObjectLock first, KubeFailures failures) {
    super(first.http(), first.collectionPath(), List.of(), failures, first.requestTimeout());
    this.key = key;
    this.description = "shared watch of " + failures.qualifiedResource() + " in namespace "
        + first.namespace();
  }

  /** Joins (or starts) the shared watch of {@code lock}'s collection. */
  static WatchableLock.Subscription subscribe(KubeObjectLock lock, ApiClient client,
      KubeFailures collectionFailures, Consumer<LockRead> listener) {
    Key key = new Key(new ClientRef(client), lock.collectionPath());
    Subscriber subscriber = new Subscriber(lock, listener);
    KubeSharedWatch watch;
    boolean created = false;
    synchronized (RUNNING) {
      watch = RUNNING.get(key);
      if (watch == null) {
        watch = new KubeSharedWatch(key, lock, collectionFailures);
        RUNNING.put(key, watch);
        created = true;
      }
      watch.add(subscriber);
    }
    if (created) {
      watch.start("elector-shared-watch-" + lock.namespace() + "-");
    }
    KubeSharedWatch joined = watch;
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
  String describe() {
    return description;
  }

  @Override
  synchronized void listed(List<JsonObject> all) {
    warned = false;
    objects.clear();
    for (JsonObject object : all) {
      String name = nameOf(object);
      if (name != null) {
        objects.put(name, trimmed(object));
      }
    }
    listed = true;
    subscribers.forEach((name, list) -> list.forEach(s -> tell(s, objects.get(name))));
  }

  @Override
  synchronized void changed(String type, JsonObject object) {
    String name = nameOf(object);
    if (name == null) {
      return;
    }
    JsonObject now = type.equals("DELETED") ? null : trimmed(object);
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
  synchronized void broke(LockFailure failure, boolean firstInARow) {
    if (!warned && failure.kind().isConfigurationProblem()) {
      warned = true; // once until the next successful list; polling goes on meanwhile
      log.warn("{}: cannot watch, followers poll instead: {}", description, failure.message());
    }
    listed = false; // what we hold may be stale now: a joiner waits for the next list
    LockRead.Failed failed = new LockRead.Failed(failure);
    subscribers.values().forEach(list -> list.forEach(s -> safely(s, failed)));
  }

  private static void tell(Subscriber subscriber, JsonObject object) {
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

  private static String nameOf(JsonObject object) {
    if (!(object.get("metadata") instanceof JsonObject metadata)) {
      return null;
    }
    JsonElement name = metadata.get("name");
    return name != null && name.isJsonPrimitive() ? name.getAsString() : null;
  }

  /**
   * What is kept of an object: everything but its data and managed fields, which no lock record
   * lives in and which make up most of a ConfigMap.
   */
  private static JsonObject trimmed(JsonObject object) {
    JsonObject copy = object.deepCopy();
    copy.remove("data");
    copy.remove("binaryData");
    if (copy.get("metadata") instanceof JsonObject metadata) {
      metadata.remove("managedFields");
    }
    return copy;
  }
}
