package dev.elector.kube.internal;

import dev.elector.ElectorListener;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.kube.KubeLock;
import dev.elector.kube.WatchMode;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import java.io.Closeable;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock stored in one Kubernetes object, with optimistic concurrency by {@code
 * metadata.resourceVersion}, which is the elector's version; the same for every client, which
 * supplies only its {@link ApiTransport}.
 *
 * <p>Reads GET the object. Creates POST the whole object ({@code kind} and {@code apiVersion}
 * included); 409 is a conflict. Updates are a single JSON merge patch of only the record's fields,
 * with {@code metadata.resourceVersion} as precondition, so a leader renews with one request and
 * nothing else in the object is touched; 409 or a deleted object is a conflict. API errors become
 * {@link LockFailure}s naming the missing permission. Watching joins the watch of the whole
 * collection that the locks on the same client and namespace share ({@link SharedWatch}), or opens
 * a watch on exactly this object ({@link ObjectWatch}, one thread per watching lock), as the {@link
 * WatchMode} decides; both reconnect with back-off.
 *
 * <p>Every request has one deadline, counted from the call: the timeout the elector's call carries,
 * or the requestTimeout set on the builder when that is shorter. A request is not sent once it has
 * waited that long for a thread of the executor, and its exchange ends at that deadline. The
 * watches' lists and the Events are bounded by the requestTimeout, {@link
 * KubeLock#DEFAULT_REQUEST_TIMEOUT} when none is set. A call whose stage is cancelled (the elector
 * stopped waiting) is not sent, or is aborted in flight. An update over a version this lock read
 * under coordinated leader election (a Lease naming {@code spec.strategy}) is never sent: it fails
 * as {@link LockFailure.Kind#INVALID}, whoever asks for it. Thread-safe.
 */
public final class ObjectLock implements KubeLock, ElectorListener {
  private static final Logger log = LoggerFactory.getLogger(ObjectLock.class);

  /**
   * A lock's resolved options and its client.
   *
   * @param kind the kind of the lock object
   * @param client the user's client object, by identity the key of shared watches
   * @param transport requests through that client, bounded by {@code requestTimeout}
   * @param requestTimeout the requestTimeout set on the builder, or null for none (each call is
   *     then bounded by its own timeout alone)
   * @param eventComponent the Events' reporting component, or null to record none
   * @param time the clock, waits and randomness of the lock, its watch and its Events
   */
  public record Settings(
      ObjectKind kind,
      Object client,
      ApiTransport transport,
      String namespace,
      String name,
      String identity,
      @Nullable Duration requestTimeout,
      Executor executor,
      WatchMode watchMode,
      @Nullable String eventComponent,
      LockTime time) {}

  private final ObjectShape shape;
  private final String namespace;
  private final String name;
  private final String identity;
  private final @Nullable Duration givenRequestTimeout;

  /** The bound of the lock's own requests (lists, Events) and of every call: given, or 5 s. */
  private final Duration requestTimeout;

  private final ApiTransport http;
  private final FailureText failures;
  private final ClientState state;
  private final WatchMode watchMode;
  private final String collectionPath;
  private final String objectPath;
  private final @Nullable EventRecorder events;
  private final LockTime time;
  private final LockBodies bodies;
  private final LockRequests requests;

  /** How long a rules review of a refusal is trusted before a later refusal asks again. */
  static final long REVIEW_TTL_NANOS = 30_000_000_000L;

  /** The longest a rules review may add to the call that was refused. */
  static final Duration REVIEW_TIMEOUT = Duration.ofSeconds(1);

  /**
   * What the last rules review of a refusal found missing (null: none yet, or none could be had),
   * and when it was asked; cleared by any answer that is not a refusal.
   */
  private volatile RoleReview.@Nullable Missing reviewed;

  private volatile long reviewedAt;
  private volatile boolean reviewing;

  /** The lock object's uid as last seen, for the Events' involvedObject. */
  private volatile @Nullable String objectUid;

  /**
   * The last version seen under coordinated leader election, with its strategy, or null: no update
   * over it is sent, whoever asks for one.
   */
  private volatile LockRead.@Nullable Found coordinated;

  /** A lock with the settings {@code s}. */
  public ObjectLock(Settings s) {
    this.state = ClientState.of(s.client());
    this.namespace = s.namespace();
    this.name = s.name();
    this.identity = s.identity();
    this.givenRequestTimeout = s.requestTimeout();
    this.requestTimeout = LockOptions.requestTimeoutOrDefault(s.requestTimeout());
    this.http = s.transport();
    this.shape = ObjectShape.forKind(s.kind(), http);
    this.failures =
        new FailureText(
            this.shape.kind(),
            this.shape.group(),
            this.shape.resource(),
            namespace,
            name,
            identity);
    this.watchMode = s.watchMode();
    this.time = s.time();
    this.bodies = new LockBodies(shape, namespace, name);
    this.requests = new LockRequests(s.executor(), time.clock(), describe());
    String root =
        this.shape.group().isEmpty()
            ? "/api/" + this.shape.version()
            : "/apis/" + this.shape.group() + "/" + this.shape.version();
    this.collectionPath = root + "/namespaces/" + namespace + "/" + this.shape.resource();
    this.objectPath = collectionPath + "/" + name;
    String component = s.eventComponent();
    this.events =
        component == null
            ? null
            : new EventRecorder(
                this.shape.apiVersion(),
                this.shape.kind(),
                namespace,
                name,
                identity,
                component,
                () -> objectUid,
                event ->
                    http.send(
                        "POST",
                        "/api/v1/namespaces/" + namespace + "/events",
                        Map.of(),
                        event,
                        null),
                s.executor(),
                time.clock(),
                Clock.systemUTC(),
                state::firstReport,
                log);
  }

  /**
   * The recorder of client-go's leader election Events, when the builder asked for them. The
   * elector notifies this lock, as an {@link ElectorListener}, and the lock hands the terms to it.
   */
  public Optional<EventRecorder> eventRecorder() {
    return Optional.ofNullable(events);
  }

  @Override
  public void onTermStarted(Term term) {
    if (events != null) {
      events.onTermStarted(term);
    }
  }

  @Override
  public void onTermEnded(Term term, TermEnd reason) {
    if (events != null) {
      events.onTermEnded(term, reason);
    }
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
  public final CompletionStage<LockRead> read(Duration timeout) {
    return async(timeout, this::readNow, failure -> failure);
  }

  @Override
  public final CompletionStage<LockWrite> create(LeaderRecord record, Duration timeout) {
    Objects.requireNonNull(record, "record");
    return async(timeout, (abort, bound) -> createNow(record, abort, bound), failure -> failure);
  }

  @Override
  public final CompletionStage<LockWrite> update(
      String expectedVersion, LeaderRecord record, Duration timeout) {
    Objects.requireNonNull(expectedVersion, "expectedVersion");
    Objects.requireNonNull(record, "record");
    LockRead.Found managed = coordinated;
    if (managed != null && managed.version().equals(expectedVersion)) {
      return CompletableFuture.completedFuture(
          LockFailure.of(
              LockFailure.Kind.INVALID,
              describe()
                  + " is under coordinated leader election at version "
                  + expectedVersion
                  + " (spec.strategy "
                  + managed.record().strategy()
                  + "): its controller chooses the holder, and Elector never writes it"));
    }
    return async(
        timeout,
        (abort, bound) -> updateNow(expectedVersion, record, abort, bound),
        failure -> failure);
  }

  @Override
  public final Optional<Closeable> watch(Consumer<LockRead> listener) {
    Objects.requireNonNull(listener, "listener");
    return Optional.of(
        switch (state.sharing().choose(watchMode, collectionPath)) {
          case SHARED -> SharedWatch.subscribe(this, state, listener, watchMode == WatchMode.AUTO);
          case PER_LOCK -> perLockWatch(listener);
        });
  }

  /** A watch of this lock's object alone, on a thread of its own. */
  ObjectWatch perLockWatch(Consumer<LockRead> listener) {
    ObjectWatch watch = new ObjectWatch(this, listener);
    watch.start();
    return watch;
  }

  @Override
  public String toString() {
    return describe() + " as " + identity;
  }

  // ---------------------------------------------------------------- requests

  private LockRead readNow(Abort abort, Duration timeout) {
    Reply reply;
    try {
      reply = http.send("GET", objectPath, Map.of(), null, null, timeout, abort);
    } catch (Exception e) {
      return transportFailure("get", e, timeout);
    }
    if (reply.code() == 403) {
      return refused("get", reply, timeout, abort);
    }
    reviewing = false;
    if (reply.code() == 404) {
      return new LockRead.Absent();
    }
    if (!reply.ok()) {
      return failures.fromStatus("get", reply.code(), reply.statusMessage());
    }
    return toRead(reply.body());
  }

  private LockWrite createNow(LeaderRecord record, Abort abort, Duration timeout) {
    Reply reply;
    try {
      reply =
          http.send("POST", collectionPath, Map.of(), bodies.create(record), null, timeout, abort);
    } catch (Exception e) {
      return transportFailure("create", e, timeout);
    }
    if (reply.code() == 409) {
      return new LockWrite.Conflict(describe() + " already exists");
    }
    return written("create", reply, timeout, abort);
  }

  private LockWrite updateNow(
      String expectedVersion, LeaderRecord record, Abort abort, Duration timeout) {
    Map<String, Object> patch = bodies.patch(expectedVersion, record);
    Reply reply;
    try {
      reply =
          http.send("PATCH", objectPath, Map.of(), patch, ApiTransport.MERGE_PATCH, timeout, abort);
    } catch (Exception e) {
      return transportFailure("patch", e, timeout);
    }
    if (reply.code() == 409) {
      return new LockWrite.Conflict(describe() + " is no longer at version " + expectedVersion);
    }
    if (reply.code() == 404) {
      return new LockWrite.Conflict(describe() + " was deleted");
    }
    return written("patch", reply, timeout, abort);
  }

  /**
   * A refusal, naming every permission the lock lacks: the first refusal after an answer of any
   * other kind asks the API server once (a SelfSubjectRulesReview, within {@link #REVIEW_TIMEOUT}),
   * and refusals in the next {@link #REVIEW_TTL_NANOS} reuse its answer, so a streak of refusals
   * adds at most one request per 30 s.
   */
  private LockFailure refused(String verb, Reply reply, Duration timeout, Abort abort) {
    long now = time.clock().nanos();
    if (!reviewing || now - reviewedAt > REVIEW_TTL_NANOS) {
      reviewing = true;
      reviewedAt = now;
      reviewed =
          RoleReview.ask(
              http,
              namespace,
              shape.group(),
              shape.resource(),
              name,
              timeout.compareTo(REVIEW_TIMEOUT) < 0 ? timeout : REVIEW_TIMEOUT,
              abort);
    }
    return failures.forbidden(verb, reply.statusMessage(), reviewed);
  }

  private LockWrite written(String verb, Reply reply, Duration timeout, Abort abort) {
    if (reply.code() == 403) {
      return refused(verb, reply, timeout, abort);
    }
    reviewing = false;
    if (!reply.ok()) {
      return failures.fromStatus(verb, reply.code(), reply.statusMessage());
    }
    rememberUid(reply.body());
    String version = ObjectFields.resourceVersion(reply.body());
    if (version == null) {
      return LockFailure.of(
          LockFailure.Kind.UNEXPECTED,
          "the answer to " + verb + " " + describe() + " has no metadata.resourceVersion");
    }
    return new LockWrite.Written(version);
  }

  private LockFailure transportFailure(String verb, Exception e, Duration timeout) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    return failures.fromTransport(verb, e, timeout.toMillis());
  }

  // ---------------------------------------------------------------- shared with the watches

  LockTime time() {
    return time;
  }

  ApiTransport http() {
    return http;
  }

  FailureText failures() {
    return failures;
  }

  String collectionPath() {
    return collectionPath;
  }

  /** The state an object read from the API server stands for. */
  LockRead toRead(@Nullable Map<String, Object> object) {
    rememberUid(object);
    LockRead read = bodies.read(object);
    if (read instanceof LockRead.Found found && found.record().strategy() != null) {
      coordinated = found;
    }
    return read;
  }

  private void rememberUid(@Nullable Map<String, Object> object) {
    Map<String, Object> metadata =
        ObjectFields.asObject(object == null ? null : object.get("metadata"));
    if (events != null && metadata != null && metadata.get("uid") instanceof String uid) {
      objectUid = uid;
    }
  }

  /**
   * Runs {@code work} on the executor within the call's deadline: its {@code timeout}, or the
   * requestTimeout set on the builder when that is shorter (see {@link LockRequests}).
   */
  private <T> CompletionStage<T> async(
      Duration timeout, BiFunction<Abort, Duration, T> work, Function<LockFailure, T> failed) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isZero() || timeout.isNegative()) {
      throw new IllegalArgumentException("timeout " + timeout + " must be positive");
    }
    Duration given = givenRequestTimeout;
    Duration bound = given != null && given.compareTo(timeout) < 0 ? given : timeout;
    return requests.run(bound, work, failed);
  }
}
