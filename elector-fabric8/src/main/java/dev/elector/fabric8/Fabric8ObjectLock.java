package dev.elector.fabric8;

import dev.elector.ElectorListener;
import dev.elector.ListeningLock;
import dev.elector.kube.KubeLock;
import dev.elector.kube.WatchMode;
import dev.elector.kube.internal.EventRecorder;
import dev.elector.kube.internal.FailureText;
import dev.elector.kube.internal.ListWatchLoop;
import dev.elector.kube.internal.ListWatchLoop.Reply;
import dev.elector.kube.internal.RecordFields;
import dev.elector.kube.internal.WatchSharing;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.lock.WatchableLock;
import dev.elector.time.MonotonicClock;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock stored in one Kubernetes object through fabric8, with optimistic concurrency by {@code
 * metadata.resourceVersion}: the same requests as the client-java locks. Reads GET the object;
 * creates POST it whole (409 is a conflict); an update is one JSON merge patch of only the record's
 * fields carrying {@code metadata.resourceVersion} as precondition (409 or a deleted object is a
 * conflict), so a renewal is one request and nothing else in the object changes.
 */
abstract class Fabric8ObjectLock implements KubeLock, ListeningLock {
  private static final Logger log = LoggerFactory.getLogger(Fabric8ObjectLock.class);

  private final ObjectShape shape;
  private final String namespace;
  private final String name;
  private final String identity;
  private final Duration requestTimeout;
  private final Executor executor;
  private final Fabric8Http http;
  private final FailureText failures;
  private final KubernetesClient client;
  private final WatchMode watchMode;
  private final String collectionPath;
  private final String objectPath;
  private final EventRecorder events;

  /** The lock object's uid as last seen, for the Events' involvedObject. */
  private volatile String objectUid;

  /**
   * @param kind the object's kind, for messages about the options
   * @param shape the object's shape, given the lock's requests (for their JSON parser)
   * @throws IllegalStateException listing every problem with the options
   */
  Fabric8ObjectLock(
      Fabric8LockBuilder<?> builder, String kind, Function<Fabric8Http, ObjectShape> shape) {
    Fabric8LockBuilder.Resolved s = builder.resolve(kind);
    this.client = s.client();
    this.namespace = s.namespace();
    this.name = s.name();
    this.identity = s.identity();
    this.requestTimeout = s.requestTimeout();
    this.executor = s.executor();
    this.http = new Fabric8Http(client, requestTimeout);
    this.shape = shape.apply(http);
    this.failures =
        new FailureText(
            this.shape.kind(),
            this.shape.group(),
            this.shape.resource(),
            namespace,
            name,
            identity);
    this.watchMode = s.watchMode();
    String root =
        this.shape.group().isEmpty()
            ? "/api/" + this.shape.version()
            : "/apis/" + this.shape.group() + "/" + this.shape.version();
    this.collectionPath = root + "/namespaces/" + namespace + "/" + this.shape.resource();
    this.objectPath = collectionPath + "/" + name;
    this.events =
        s.eventComponent() == null
            ? null
            : new EventRecorder(
                this.shape.apiVersion(),
                this.shape.kind(),
                namespace,
                name,
                identity,
                s.eventComponent(),
                () -> objectUid,
                event ->
                    http.send(
                        "POST", "/api/v1/namespaces/" + namespace + "/events", "", event, null),
                executor,
                MonotonicClock.system(),
                Clock.systemUTC(),
                log);
  }

  /**
   * Records the Events of {@link Fabric8LockBuilder#recordEvents} when they were asked for;
   * otherwise {@link ElectorListener#NONE}. The elector notifies it by itself.
   */
  @Override
  public final ElectorListener electorListener() {
    return events == null ? ElectorListener.NONE : events;
  }

  @Override
  public final String namespace() {
    return namespace;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final Duration requestTimeout() {
    return requestTimeout;
  }

  @Override
  public final String identity() {
    return identity;
  }

  @Override
  public final String describe() {
    return shape.kind() + " " + namespace + "/" + name;
  }

  @Override
  public final String roleRuleFor(String verb) {
    return failures.ruleFor(verb);
  }

  @Override
  public final CompletionStage<LockRead> read() {
    return async(this::readNow, LockRead.Failed::new);
  }

  @Override
  public final CompletionStage<LockWrite> create(LeaderRecord record) {
    Objects.requireNonNull(record, "record");
    return async(() -> createNow(record), LockWrite.Failed::new);
  }

  @Override
  public final CompletionStage<LockWrite> update(String expectedVersion, LeaderRecord record) {
    Objects.requireNonNull(expectedVersion, "expectedVersion");
    Objects.requireNonNull(record, "record");
    return async(() -> updateNow(expectedVersion, record), LockWrite.Failed::new);
  }

  @Override
  public final Subscription watch(Consumer<LockRead> listener) {
    Objects.requireNonNull(listener, "listener");
    return switch (WatchSharing.PROCESS.choose(watchMode, client, collectionPath)) {
      case SHARED ->
          Fabric8SharedWatch.subscribe(this, client, listener, watchMode == WatchMode.AUTO);
      case PER_LOCK -> perLockWatch(listener);
    };
  }

  /** A watch of this lock's object alone, on a thread of its own. */
  WatchableLock.Subscription perLockWatch(Consumer<LockRead> listener) {
    Fabric8Watch watch = new Fabric8Watch(this, listener);
    watch.start();
    return watch;
  }

  @Override
  public String toString() {
    return describe() + " as " + identity;
  }

  // ---------------------------------------------------------------- requests

  private LockRead readNow() {
    Reply reply;
    try {
      reply = http.send("GET", objectPath, "", null, null);
    } catch (Exception e) {
      return new LockRead.Failed(transportFailure("get", e));
    }
    if (reply.code() == 404) {
      return new LockRead.Absent();
    }
    if (!reply.ok()) {
      return new LockRead.Failed(failures.fromStatus("get", reply.code(), reply.statusMessage()));
    }
    return toRead(reply.body());
  }

  private LockWrite createNow(LeaderRecord record) {
    Reply reply;
    try {
      reply =
          http.send("POST", collectionPath, "", shape.createBody(namespace, name, record), null);
    } catch (Exception e) {
      return new LockWrite.Failed(transportFailure("create", e));
    }
    if (reply.code() == 409) {
      return new LockWrite.Conflict(describe() + " already exists");
    }
    return written("create", reply);
  }

  private LockWrite updateNow(String expectedVersion, LeaderRecord record) {
    Map<String, Object> patch = new LinkedHashMap<>(shape.patchBody(record));
    Map<String, Object> metadata = ListWatchLoop.asObject(patch.get("metadata"));
    metadata = metadata == null ? new LinkedHashMap<>() : new LinkedHashMap<>(metadata);
    metadata.put("resourceVersion", expectedVersion);
    patch.put("metadata", metadata);
    Reply reply;
    try {
      reply = http.send("PATCH", objectPath, "", patch, Fabric8Http.MERGE_PATCH);
    } catch (Exception e) {
      return new LockWrite.Failed(transportFailure("patch", e));
    }
    if (reply.code() == 409) {
      return new LockWrite.Conflict(describe() + " is no longer at version " + expectedVersion);
    }
    if (reply.code() == 404) {
      return new LockWrite.Conflict(describe() + " was deleted");
    }
    return written("patch", reply);
  }

  private LockWrite written(String verb, Reply reply) {
    if (!reply.ok()) {
      return new LockWrite.Failed(failures.fromStatus(verb, reply.code(), reply.statusMessage()));
    }
    rememberUid(reply.body());
    String version = ListWatchLoop.resourceVersion(reply.body());
    if (version == null) {
      return new LockWrite.Failed(
          LockFailure.of(
              LockFailure.Kind.UNEXPECTED,
              "the answer to " + verb + " " + describe() + " has no metadata.resourceVersion"));
    }
    return new LockWrite.Written(version);
  }

  private LockFailure transportFailure(String verb, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    return failures.fromTransport(verb, e, requestTimeout.toMillis());
  }

  // ---------------------------------------------------------------- shared with the watches

  Fabric8Http http() {
    return http;
  }

  FailureText failures() {
    return failures;
  }

  String collectionPath() {
    return collectionPath;
  }

  /** The state an object read from the API server stands for. */
  LockRead toRead(Map<String, Object> object) {
    rememberUid(object);
    String version = ListWatchLoop.resourceVersion(object);
    if (version == null) {
      return new LockRead.Failed(
          LockFailure.of(
              LockFailure.Kind.UNEXPECTED,
              "the API server" + " returned " + describe() + " without metadata.resourceVersion"));
    }
    RecordFields.Parsed parsed;
    try {
      parsed = shape.parse(object);
    } catch (RuntimeException e) {
      parsed = RecordFields.Parsed.malformed("cannot read the record: " + e);
    }
    if (parsed.problem() != null) {
      return new LockRead.Malformed(version, parsed.problem());
    }
    return new LockRead.Found(version, parsed.record());
  }

  private void rememberUid(Map<String, Object> object) {
    Map<String, Object> metadata =
        ListWatchLoop.asObject(object == null ? null : object.get("metadata"));
    if (events != null && metadata != null && metadata.get("uid") instanceof String uid) {
      objectUid = uid;
    }
  }

  private <T> CompletionStage<T> async(Supplier<T> work, Function<LockFailure, T> failed) {
    CompletableFuture<T> result = new CompletableFuture<>();
    long queued = MonotonicClock.system().nanos();
    try {
      executor.execute(
          () -> {
            long waited = MonotonicClock.system().nanos() - queued;
            if (waited >= requestTimeout.toNanos()) { // its caller has given up: do not send it
              result.complete(
                  failed.apply(
                      LockFailure.of(
                          LockFailure.Kind.TIMEOUT,
                          "the request on "
                              + describe()
                              + " waited "
                              + waited / 1_000_000
                              + " ms for a thread of the lock's"
                              + " executor, longer than requestTimeout "
                              + requestTimeout
                              + ", and was not sent;"
                              + " the executor has too few threads for the requests at once, or the API server"
                              + " answers slowly")));
              return;
            }
            try {
              result.complete(work.get());
            } catch (RuntimeException e) {
              log.debug("{}: request failed unexpectedly", describe(), e);
              result.complete(
                  failed.apply(
                      new LockFailure(
                          LockFailure.Kind.UNEXPECTED,
                          "request on " + describe() + " failed: " + e,
                          e)));
            }
          });
    } catch (RejectedExecutionException e) {
      result.complete(
          failed.apply(
              new LockFailure(
                  LockFailure.Kind.UNEXPECTED,
                  "the executor of " + describe() + " rejected the request: " + e,
                  e)));
    }
    return result;
  }
}
