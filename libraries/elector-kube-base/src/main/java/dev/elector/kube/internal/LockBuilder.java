package dev.elector.kube.internal;

import dev.elector.kube.ObjectKind;
import dev.elector.kube.PodEnvironment;
import dev.elector.kube.WatchMode;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The options every Kubernetes lock shares, whichever client it uses: the builders of each backend
 * add only their client. Setters reject null at once; {@link #settings} resolves namespace and
 * identity and reports every problem in one {@link IllegalStateException}.
 *
 * @param <B> the concrete builder
 */
public abstract class LockBuilder<B extends LockBuilder<B>> {
  private @Nullable String namespace;
  private @Nullable String name;
  private @Nullable String identity;
  private @Nullable Duration requestTimeout;
  private @Nullable Executor executor;
  private WatchMode watchMode = WatchMode.AUTO;
  private boolean recordEvents;
  private @Nullable String eventComponent;
  private PodEnvironment environment = PodEnvironment.system();
  private MonotonicClock clock = MonotonicClock.system();
  private @Nullable Scheduler scheduler;
  private @Nullable RandomGenerator random;

  /** For the lock builders of the backends. */
  protected LockBuilder() {}

  /** The subclass itself, for chaining. */
  protected abstract B self();

  /**
   * The namespace of the lock object; default the pod's own (see {@link PodEnvironment}). There is
   * no fallback to {@code default}.
   */
  public B namespace(String namespace) {
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    return self();
  }

  /** The name of the lock object (required), shared by all candidates of one election. */
  public B name(String name) {
    this.name = Objects.requireNonNull(name, "name");
    return self();
  }

  /**
   * This candidate's identity, written as holder; default {@link PodEnvironment#defaultIdentity()}.
   * Must be unique among the candidates.
   */
  public B identity(String identity) {
    this.identity = Objects.requireNonNull(identity, "identity");
    return self();
  }

  /**
   * The lock's own bound on each API request; by default it follows the callTimeout of the elector
   * that uses the lock, up to {@link LockOptions#DEFAULT_REQUEST_TIMEOUT} (5 s), and is 5 s for a
   * lock no elector uses. A read or write that has waited this long for a thread of the {@link
   * #executor} is not sent; a request sent ends after what is left of this bound with a TIMEOUT
   * failure. It also bounds the list requests of the lock's watch and the Events it records.
   *
   * <p>Each elector call carries the elector's callTimeout (default renewDeadline / 2, 5 s with the
   * default renewDeadline of 10 s), and its request is bounded by that or by this requestTimeout,
   * whichever is shorter: a shorter requestTimeout makes a slow call fail, and the elector retry,
   * sooner; a longer one changes only the watch's lists and the Events. The elector cancels a call
   * it stops waiting for: the lock then does not send the request, or stops it in flight and frees
   * its thread at once (the client-java locks cancel the OkHttp call; fabric8's HTTP client cannot
   * end an exchange before its answer, which is then dropped).
   */
  public B requestTimeout(Duration requestTimeout) {
    this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
    return self();
  }

  /**
   * Runs the blocking API requests; default a pool of up to 8 daemon threads shared by every
   * Kubernetes lock of the process, each ending after 5 s idle (further requests wait in its
   * queue). Pass an executor of your own to give a lock more threads or threads of its own. Watches
   * run on daemon threads of their own, which end when the watch is closed (see {@link
   * #watchMode}).
   */
  public B executor(Executor executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
    return self();
  }

  /**
   * How this lock watches its object while following; default {@link WatchMode#AUTO}.
   *
   * <p>AUTO joins one watch of the whole collection (every Lease, or every ConfigMap, in the
   * namespace) shared by all locks of that collection built on the same client object: a thousand
   * watching locks cost one thread and one connection instead of a thousand. Sharing needs {@code
   * list} and {@code watch} on the whole collection in the namespace (a Role rule without
   * resourceNames, {@code deploy/lease/rbac-shared-watch.yaml}). Before its first list the shared
   * watch asks the API server whether the identity may list (a SelfSubjectAccessReview); when it
   * may not, no list is sent, and from then on the locks of that client and collection each watch
   * their own object on a thread of their own, which needs {@code list} and {@code watch} on that
   * name only ({@code deploy/lease/rbac.yaml}); one INFO line says which mode is used and why.
   *
   * <p>{@link WatchMode#SHARED} always shares (a 403 is then reported once with the rule to add,
   * and followers poll meanwhile); {@link WatchMode#PER_LOCK} never does. A shared watch receives
   * every change in the collection, so it suits Leases better than ConfigMaps that change often.
   * Its list requests use the requestTimeout of the lock that started it.
   */
  public B watchMode(WatchMode watchMode) {
    this.watchMode = Objects.requireNonNull(watchMode, "watchMode");
    return self();
  }

  /**
   * Shorthand for {@link #watchMode}: true forces {@link WatchMode#SHARED}, false forces {@link
   * WatchMode#PER_LOCK}. Without either, the lock uses {@link WatchMode#AUTO}.
   */
  public B sharedWatch(boolean sharedWatch) {
    return watchMode(sharedWatch ? WatchMode.SHARED : WatchMode.PER_LOCK);
  }

  /**
   * Whether to record client-go's leader election Events on the lock object: {@code <identity>
   * became leader} and {@code <identity> stopped leading}, reason {@code LeaderElection}, so that
   * {@code kubectl describe lease <name>} shows who led when; default false.
   *
   * <p>They are core/v1 Events, like those of client-go's elector, so {@code kubectl describe},
   * {@code kubectl get events} and event exporters show them exactly as they show a Go
   * controller's; they also carry {@code reportingComponent} ({@link #eventComponent}) and {@code
   * reportingInstance} (this candidate's identity). They are sent on the lock's {@link #executor},
   * never on the elector's thread, one at a time per lock: at most 6 at once, then one a minute,
   * and the next event counts what the limit held back.
   *
   * <p>The identity needs {@code create} on {@code events} in the lock's namespace ({@code
   * deploy/lease/rbac-events.yaml}). Without it, one WARN per namespace and identity names the rule
   * to add, and the election carries on unaffected.
   */
  public B recordEvents(boolean recordEvents) {
    this.recordEvents = recordEvents;
    return self();
  }

  /**
   * The component the Events name as their source ({@code source.component} and {@code
   * reportingComponent}), such as your operator's name; default {@value
   * LockOptions#DEFAULT_EVENT_COMPONENT}. A Kubernetes qualified name: letters, digits, '-', '_'
   * and '.', at most 63 characters, with an optional DNS prefix and '/'. Needs {@link #recordEvents
   * recordEvents(true)}.
   */
  public B eventComponent(String eventComponent) {
    this.eventComponent = Objects.requireNonNull(eventComponent, "eventComponent");
    return self();
  }

  /**
   * Where the default namespace and identity come from; default {@link PodEnvironment#system()},
   * the process's real environment. {@link PodEnvironment#of} gives fixed values, for tests.
   */
  public B environment(PodEnvironment environment) {
    this.environment = Objects.requireNonNull(environment, "environment");
    return self();
  }

  /**
   * The monotonic time of the lock's request deadlines, of its watch's back-off and request bound,
   * and of its Events' rate limit; default {@link MonotonicClock#system()}. Meant for tests, with
   * the virtual clock of {@code elector-testkit}, together with {@link #scheduler}.
   */
  public B clock(MonotonicClock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return self();
  }

  /**
   * Where the lock's watch runs its steps (a list, or a watch until it ends) and waits between
   * them; default a daemon thread of each watch's own. A step blocks for as long as its request
   * runs (minutes, for a healthy watch), so a shared scheduler needs a thread for each watch on it.
   * Meant for tests, with the virtual scheduler of {@code elector-testkit}, whose transport answers
   * at once.
   */
  public B scheduler(Scheduler scheduler) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    return self();
  }

  /**
   * The randomness of the watch's back-off jitter and server-side timeouts; default a fresh
   * generator for each watch. Meant for repeatable tests. Used from the watch's steps only.
   */
  public B random(RandomGenerator random) {
    this.random = Objects.requireNonNull(random, "random");
    return self();
  }

  /**
   * The settings after defaults and checks, with requests through {@code client}.
   *
   * @param kind the lock object's kind
   * @param client the backend's client, or null when it was not given
   * @param missingClient what to say when it was not given, naming how to make one
   * @param transport the backend's requests through the client, given the client and the request
   *     timeout
   * @throws IllegalStateException listing every missing or invalid option
   */
  protected final <C> ObjectLock.Settings settings(
      ObjectKind kind,
      @Nullable C client,
      String missingClient,
      BiFunction<C, Duration, ApiTransport> transport) {
    LockOptions.Resolved r =
        LockOptions.resolve(
            kind.kind(),
            client == null ? missingClient : null,
            name,
            namespace,
            identity,
            requestTimeout,
            environment,
            LockOptions.eventProblems(recordEvents, eventComponent));
    C given = Objects.requireNonNull(client, "client"); // resolve has thrown if it is missing
    return new ObjectLock.Settings(
        kind,
        given,
        transport.apply(given, LockOptions.requestTimeoutOrDefault(r.requestTimeout())),
        r.namespace(),
        r.name(),
        r.identity(),
        r.requestTimeout(),
        executor != null ? executor : DaemonThreads.shared(),
        watchMode,
        LockOptions.eventComponent(recordEvents, eventComponent),
        new LockTime(clock, scheduler, random));
  }
}
