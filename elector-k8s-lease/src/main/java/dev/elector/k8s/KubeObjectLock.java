package dev.elector.k8s;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.elector.ElectorListener;
import dev.elector.ListeningLock;
import dev.elector.kube.KubeLock;
import dev.elector.kube.WatchMode;
import dev.elector.kube.internal.WatchSharing;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.lock.WatchableLock;
import dev.elector.time.MonotonicClock;
import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
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
 * A lock stored in one Kubernetes object, with optimistic concurrency by {@code
 * metadata.resourceVersion}, which is the elector's version.
 *
 * <p>Reads GET the object. Creates POST the whole object ({@code kind} and {@code apiVersion}
 * included); 409 is a conflict. Updates are a single JSON merge patch of only the record's fields,
 * with {@code metadata.resourceVersion} as precondition, so a leader renews with one request and
 * nothing else in the object is touched; 409 or a deleted object is a conflict. API errors become
 * {@link LockFailure}s naming the missing permission. Watching joins the watch of the whole
 * collection that the locks on the same client and namespace share, or opens a watch on exactly
 * this object (one thread per watching lock), as the builder's {@link WatchMode} decides; both
 * reconnect with back-off.
 *
 * <p>Every request is bounded by the builder's requestTimeout. Thread-safe.
 */
public abstract class KubeObjectLock implements KubeLock, ListeningLock {
  private static final Logger log = LoggerFactory.getLogger(KubeObjectLock.class);

  private final KubeObjectFormat format;
  private final String namespace;
  private final String name;
  private final String identity;
  private final Duration requestTimeout;
  private final Executor executor;
  private final KubeHttp http;
  private final KubeFailures failures;
  private final ApiClient apiClient;
  private final WatchMode watchMode;
  private final String collectionPath;
  private final String objectPath;
  private final KubeEventRecorder events;

  /** The lock object's uid as last seen, for the Events' involvedObject. */
  private volatile String objectUid;

  /**
   * Builds the lock from the shared options.
   *
   * @throws IllegalStateException listing every problem with the options
   */
  protected KubeObjectLock(KubeLockBuilder<?> builder, KubeObjectFormat format) {
    this.format = Objects.requireNonNull(format, "format");
    KubeLockBuilder.Resolved s = builder.resolve(format.kind());
    this.namespace = s.namespace();
    this.name = s.name();
    this.identity = s.identity();
    this.requestTimeout = s.requestTimeout();
    this.executor = s.executor();
    this.http = new KubeHttp(s.apiClient(), requestTimeout);
    this.failures = new KubeFailures(format, namespace, name, identity);
    this.apiClient = s.apiClient();
    this.watchMode = s.watchMode();
    String root =
        format.group().isEmpty()
            ? "/api/" + format.version()
            : "/apis/" + format.group() + "/" + format.version();
    this.collectionPath = root + "/namespaces/" + namespace + "/" + format.resource();
    this.objectPath = collectionPath + "/" + name;
    this.events =
        s.eventComponent() == null
            ? null
            : new KubeEventRecorder(
                format,
                namespace,
                name,
                identity,
                s.eventComponent(),
                () -> objectUid,
                event ->
                    http.send(
                        "POST",
                        "/api/v1/namespaces/" + namespace + "/events",
                        List.of(),
                        event,
                        null),
                executor,
                MonotonicClock.system(),
                Clock.systemUTC(),
                log);
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
    return format.kind() + " " + namespace + "/" + name;
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
    return switch (WatchSharing.PROCESS.choose(watchMode, apiClient, collectionPath)) {
      case SHARED ->
          KubeSharedWatch.subscribe(
              this,
              apiClient,
              new KubeFailures(format, namespace, null, identity),
              listener,
              watchMode == WatchMode.AUTO);
      case PER_LOCK -> perLockWatch(listener);
    };
  }

  /** A watch of this lock's object alone, on a thread of its own. */
  WatchableLock.Subscription perLockWatch(Consumer<LockRead> listener) {
    KubeWatch watch = new KubeWatch(this, listener);
    watch.start();
    return watch;
  }

  /** The watch mode this lock was built with. */
  final WatchMode watchMode() {
    return watchMode;
  }

  /**
   * Records the Events of {@link KubeLockBuilder#recordEvents} when they were asked for; otherwise
   * {@link ElectorListener#NONE}. The elector notifies it by itself.
   */
  @Override
  public final ElectorListener electorListener() {
    return events == null ? ElectorListener.NONE : events;
  }

  /** The event recorder, or null; for tests. */
  KubeEventRecorder eventRecorder() {
    return events;
  }

  @Override
  public String toString() {
    return describe() + " as " + identity;
  }

  // ---------------------------------------------------------------- requests

  private LockRead readNow() {
    KubeHttp.Reply reply;
    try {
      reply = http.send("GET", objectPath, List.of(), null, null);
    } catch (IOException e) {
      return new LockRead.Failed(failures.fromIo("get", e, requestTimeout.toMillis()));
    }
    if (reply.code() == 404) {
      return new LockRead.Absent();
    }
    if (!reply.ok()) {
      return new LockRead.Failed(failures.fromReply("get", reply));
    }
    rememberUid(reply.body());
    return toRead(reply.body());
  }

  private LockWrite createNow(LeaderRecord record) {
    JsonObject body = format.createBody(namespace, name, record);
    KubeHttp.Reply reply;
    try {
      reply = http.send("POST", collectionPath, List.of(), body, null);
    } catch (IOException e) {
      return new LockWrite.Failed(failures.fromIo("create", e, requestTimeout.toMillis()));
    }
    if (reply.code() == 409) {
      return new LockWrite.Conflict(describe() + " already exists");
    }
    return written("create", reply);
  }

  private LockWrite updateNow(String expectedVersion, LeaderRecord record) {
    JsonObject patch = format.patchBody(record).deepCopy();
    JsonElement metadata = patch.get("metadata");
    if (metadata == null || !metadata.isJsonObject()) {
      metadata = new JsonObject();
      patch.add("metadata", metadata);
    }
    metadata.getAsJsonObject().addProperty("resourceVersion", expectedVersion);
    KubeHttp.Reply reply;
    try {
      reply = http.send("PATCH", objectPath, List.of(), patch, KubeHttp.MERGE_PATCH);
    } catch (IOException e) {
      return new LockWrite.Failed(failures.fromIo("patch", e, requestTimeout.toMillis()));
    }
    if (reply.code() == 409) {
      return new LockWrite.Conflict(describe() + " is no longer at version " + expectedVersion);
    }
    if (reply.code() == 404) {
      return new LockWrite.Conflict(describe() + " was deleted");
    }
    return written("patch", reply);
  }

  private LockWrite written(String verb, KubeHttp.Reply reply) {
    if (!reply.ok()) {
      return new LockWrite.Failed(failures.fromReply(verb, reply));
    }
    rememberUid(reply.body());
    String version = resourceVersion(reply.body());
    if (version == null) {
      return new LockWrite.Failed(
          LockFailure.of(
              LockFailure.Kind.UNEXPECTED,
              "the answer to " + verb + " " + describe() + " has no metadata.resourceVersion"));
    }
    return new LockWrite.Written(version);
  }

  // ---------------------------------------------------------------- shared with the watch

  KubeHttp http() {
    return http;
  }

  KubeFailures failures() {
    return failures;
  }

  String collectionPath() {
    return collectionPath;
  }

  /** The state an object read from the API server stands for. */
  LockRead toRead(JsonObject object) {
    String version = resourceVersion(object);
    if (version == null) {
      return new LockRead.Failed(
          LockFailure.of(
              LockFailure.Kind.UNEXPECTED,
              "the API server" + " returned " + describe() + " without metadata.resourceVersion"));
    }
    KubeObjectFormat.Parsed parsed;
    try {
      parsed = format.parse(object);
    } catch (RuntimeException e) {
      parsed = KubeObjectFormat.Parsed.malformed("cannot read the record: " + e);
    }
    if (parsed.problem() != null) {
      return new LockRead.Malformed(version, parsed.problem());
    }
    return new LockRead.Found(version, parsed.record());
  }

  private void rememberUid(JsonObject object) {
    if (events != null
        && object != null
        && object.get("metadata") instanceof JsonObject metadata
        && metadata.get("uid") != null
        && metadata.get("uid").isJsonPrimitive()) {
      objectUid = metadata.get("uid").getAsString();
    }
  }

  static String resourceVersion(JsonObject object) {
    if (object == null || !(object.get("metadata") instanceof JsonObject metadata)) {
      return null;
    }
    JsonElement version = metadata.get("resourceVersion");
    if (version == null || !version.isJsonPrimitive() || version.getAsString().isEmpty()) {
      return null;
    }
    return version.getAsString();
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
