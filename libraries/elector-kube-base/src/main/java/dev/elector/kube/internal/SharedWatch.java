package dev.elector.kube.internal;

import dev.elector.kube.WatchMode;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One watch of a whole collection in one namespace (such as every Lease in it), shared by all the
 * locks on that collection built on the same client object in {@link WatchMode#SHARED} or {@link
 * WatchMode#AUTO}: one thread and one connection however many locks there are. A 403 of the watch
 * refuses sharing ({@link WatchSharing}): its AUTO members move to watches of their own objects,
 * and the watch ends when no member is left. Before its first list, while nothing is known about
 * the collection, it asks the API server whether the identity may list it ({@code
 * ListAccessCheck}), so that a refusal costs no refused request. Each subscriber hears only about
 * its own object: its state after every (re)list, or at once when it joins a watch that is up, then
 * each change; and every break. The watch starts with its first subscriber and ends with its last.
 *
 * <p>Deliveries happen under this watch's monitor, so a subscriber never sees an older state after
 * a newer one; listeners must hand over and return (the elector's do).
 */
final class SharedWatch extends ListWatchLoop {
  private static final Logger log = LoggerFactory.getLogger(SharedWatch.class);

  /** What a lock needs to watch its own object, for the log line of a refusal. */
  static final String PER_LOCK_RULE = "list and watch on each lock's own name";

  private final ClientState state;
  private final String collectionPath;
  private final String collection;
  private final String description;

  /** Members by object name. Guarded by this. */
  private final Map<String, List<Member>> subscribers = new HashMap<>();

  /** The last known object of every name in the collection, trimmed; valid once listed. */
  private final Map<String, Map<String, Object>> objects = new HashMap<>();

  private boolean listed;
  private boolean warned;

  private SharedWatch(ClientState state, ObjectLock first) {
    super(
        new ListAccessCheck(
            new CollectionTransport(first.http(), first.collectionPath(), null),
            first.http(),
            first.namespace(),
            first.failures().group(),
            first.failures().resource(),
            () -> state.sharing().lookup(first.collectionPath()) == null),
        first.failures().forCollection(),
        first.requestTimeout(),
        first.time());
    this.state = state;
    this.collectionPath = first.collectionPath();
    this.collection = first.failures().qualifiedResource() + " in namespace " + first.namespace();
    this.description = "shared watch of " + collection;
  }

  /**
   * Joins (or starts) the shared watch of {@code lock}'s collection. A lock in {@link
   * WatchMode#AUTO} that finds sharing refused watches its own object instead.
   */
  static Closeable subscribe(
      ObjectLock lock, ClientState state, Consumer<LockRead> listener, boolean auto) {
    String path = lock.collectionPath();
    Map<String, SharedWatch> running = state.watches();
    SharedWatch watch;
    Member member;
    boolean created = false;
    synchronized (running) {
      watch = running.get(path);
      if (watch == null) {
        watch = new SharedWatch(state, lock);
        running.put(path, watch);
        created = true;
      }
      member = watch.new Member(lock, listener, auto);
      if (!watch.add(member)) {
        member = null; // refused since this lock chose: it watches alone
        if (created) {
          running.remove(path, watch);
          created = false;
        }
      }
    }
    if (member == null) {
      return lock.perLockWatch(listener);
    }
    if (created) {
      watch.start("elector-shared-watch-" + lock.namespace() + "-");
    }
    return member;
  }

  /** Adds a member; false when it is in AUTO mode and sharing is known to be refused. */
  private synchronized boolean add(Member member) {
    if (member.auto && Boolean.FALSE.equals(state.sharing().lookup(collectionPath))) {
      return false;
    }
    String name = member.lock.name();
    subscribers.computeIfAbsent(name, n -> new ArrayList<>()).add(member);
    if (listed) {
      tell(member, objects.get(name));
    }
    return true;
  }

  /** Removes a member; true when none is left. */
  private synchronized boolean remove(Member member) {
    String name = member.lock.name();
    List<Member> list = subscribers.get(name);
    if (list != null && list.remove(member) && list.isEmpty()) {
      subscribers.remove(name);
    }
    return subscribers.isEmpty();
  }

  /** Removes the members in AUTO mode and returns them. */
  private synchronized List<Member> detachAuto() {
    List<Member> moving = new ArrayList<>();
    subscribers.values().forEach(list -> list.stream().filter(m -> m.auto).forEach(moving::add));
    moving.forEach(this::remove);
    return moving;
  }

  /** Stops this watch when the last member left (by moving to a watch of its own). */
  private void retireIfEmpty() {
    Map<String, SharedWatch> running = state.watches();
    synchronized (running) {
      synchronized (this) {
        if (subscribers.isEmpty()) {
          running.remove(collectionPath, this);
          stop();
        }
      }
    }
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
      String name = ObjectFields.name(object);
      if (name != null) {
        objects.put(name, trimmed(object));
      }
    }
    listed = true;
    state.sharing().listed(collectionPath, collection);
    subscribers.forEach((name, list) -> list.forEach(s -> tell(s, objects.get(name))));
  }

  @Override
  protected synchronized void changed(String type, Map<String, Object> object) {
    String name = ObjectFields.name(object);
    if (name == null) {
      return;
    }
    Map<String, Object> now = type.equals("DELETED") ? null : trimmed(object);
    if (now == null) {
      objects.remove(name);
    } else {
      objects.put(name, now);
    }
    for (Member s : subscribers.getOrDefault(name, List.of())) {
      tell(s, now);
    }
  }

  @Override
  protected void broke(LockFailure failure, boolean firstInARow) {
    List<Member> moving = List.of();
    synchronized (this) {
      if (state.sharing().refused(collectionPath, collection, failure, PER_LOCK_RULE)) {
        moving = detachAuto(); // they hear from watches of their own instead of this failure
      }
      if (!warned && !subscribers.isEmpty() && failure.kind().isConfigurationProblem()) {
        warned = true; // once until the next successful list; polling goes on meanwhile
        log.warn("{}: cannot watch, followers poll instead: {}", description, failure.message());
      }
      listed = false; // what we hold may be stale now: a joiner waits for the next list
      subscribers.values().forEach(list -> list.forEach(s -> safely(s, failure)));
    }
    if (!moving.isEmpty()) {
      moving.forEach(Member::watchAlone);
      retireIfEmpty();
    }
  }

  private static void tell(Member member, @Nullable Map<String, Object> object) {
    safely(member, object == null ? new LockRead.Absent() : member.lock.toRead(object));
  }

  /** One listener's failure must not keep the others from hearing. */
  private static void safely(Member member, LockRead state) {
    try {
      member.listener.accept(state);
    } catch (RuntimeException e) {
      log.warn("{}: watch listener failed: {}", member.lock.describe(), e.toString());
    }
  }

  /**
   * One lock's interest in its object, and its subscription: in this watch, or, once sharing was
   * refused, in a watch of its own.
   */
  private final class Member implements Closeable {
    final ObjectLock lock;
    final Consumer<LockRead> listener;
    final boolean auto;
    private @Nullable ObjectWatch own; // guarded by this
    private boolean closed; // guarded by this

    Member(ObjectLock lock, Consumer<LockRead> listener, boolean auto) {
      this.lock = lock;
      this.listener = listener;
      this.auto = auto;
    }

    /** Moves to a watch of its own object, unless closed meanwhile. */
    synchronized void watchAlone() {
      if (!closed) {
        own = lock.perLockWatch(listener);
      }
    }

    @Override
    public void close() {
      ObjectWatch mine;
      synchronized (this) {
        if (closed) {
          return;
        }
        closed = true;
        mine = own;
      }
      if (mine != null) {
        mine.close();
        return;
      }
      SharedWatch joined = SharedWatch.this;
      Map<String, SharedWatch> running = joined.state.watches();
      synchronized (running) {
        if (joined.remove(this)) {
          running.remove(joined.collectionPath, joined);
          joined.stop();
        }
      }
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
    Map<String, Object> metadata = ObjectFields.asObject(copy.get("metadata"));
    if (metadata != null) {
      Map<String, Object> trimmedMetadata = new LinkedHashMap<>(metadata);
      trimmedMetadata.remove("managedFields");
      copy.put("metadata", trimmedMetadata);
    }
    return copy;
  }
}
