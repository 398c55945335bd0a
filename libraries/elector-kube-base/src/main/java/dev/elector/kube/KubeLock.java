package dev.elector.kube;

import dev.elector.lock.LeaderLock;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;

/**
 * A lock kept in one Kubernetes object, whichever client it talks through: the client-java locks
 * ({@code dev.elector.k8s.LeaseLock}, {@code dev.elector.configmap.ConfigMapLock}) and the fabric8
 * locks ({@code dev.elector.fabric8.Fabric8LeaseLock}, {@code Fabric8ConfigMapLock}) all keep the
 * same client-go compatible record, so candidates on different clients can share one object.
 *
 * <p>A Kubernetes lock hears its elector's terms, to record them as Events when {@link
 * Builder#recordEvents} asks for it; there is nothing to wire.
 *
 * <p>Each backend makes its locks with one {@link Builder}, which it returns from {@code
 * newBuilder(client)}; the options, defaults and checks are the same for every backend and kind.
 */
public interface KubeLock extends LeaderLock {
  /**
   * Default timeout of one API request of the lock's own: 5 s, the elector's default callTimeout
   * (see {@link Builder#requestTimeout}).
   */
  Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(5);

  /** The default reporting component of the lock's Events: {@value}. */
  String DEFAULT_EVENT_COMPONENT = "elector";

  /** The namespace of the lock object. */
  String namespace();

  /** The name of the lock object. */
  String name();

  /**
   * The bound of the lock's own requests (its watch's lists, its Events), and the longest any
   * elector call may take: the requestTimeout set on the builder, or 5 s. Each elector call is
   * bounded by the timeout it carries, or by this when it is shorter; a call the elector cancels
   * ends sooner: its request is not sent, or is aborted in flight.
   */
  Duration requestTimeout();

  /**
   * The Role rule that lets this lock's identity perform {@code verb} on the lock object, as it
   * appears in failure messages, such as {@code apiGroups: ["coordination.k8s.io"], resources:
   * ["leases"], verbs: ["patch"], resourceNames: ["my-lock"]}.
   */
  String roleRuleFor(String verb);

  /**
   * The options of a Kubernetes lock, the same whichever client and object kind the lock uses; a
   * backend's {@code newBuilder(client)} returns one. Setters reject null at once; {@link #build()}
   * resolves namespace and identity and reports every problem in one {@link IllegalStateException}.
   * Not thread-safe.
   */
  interface Builder {
    /**
     * The namespace of the lock object; default the pod's own (see {@link PodEnvironment}). There
     * is no fallback to {@code default}.
     */
    Builder namespace(String namespace);

    /** The name of the lock object (required), shared by all candidates of one election. */
    Builder name(String name);

    /**
     * This candidate's identity, written as holder; default {@link
     * PodEnvironment#defaultIdentity()}. Must be unique among the candidates.
     */
    Builder identity(String identity);

    /**
     * The lock's own bound on each API request; by default it follows the callTimeout of the
     * elector that uses the lock, up to {@link #DEFAULT_REQUEST_TIMEOUT} (5 s), and is 5 s for a
     * lock no elector uses. A read or write that has waited this long for a thread of the {@link
     * #executor} is not sent; a request sent ends after what is left of this bound with a TIMEOUT
     * failure. It also bounds the list requests of the lock's watch and the Events it records.
     *
     * <p>Each elector call carries the elector's callTimeout (default renewDeadline / 2, 5 s with
     * the default renewDeadline of 10 s), and its request is bounded by that or by this
     * requestTimeout, whichever is shorter: a shorter requestTimeout makes a slow call fail, and
     * the elector retry, sooner; a longer one changes only the watch's lists and the Events. The
     * elector cancels a call it stops waiting for: the lock then does not send the request, or
     * stops it in flight and frees its thread at once (the client-java locks cancel the OkHttp
     * call; fabric8's HTTP client cannot end an exchange before its answer, which is then dropped).
     */
    Builder requestTimeout(Duration requestTimeout);

    /**
     * Runs the blocking API requests; default a pool of up to 8 daemon threads shared by every
     * Kubernetes lock of the process, each ending after 5 s idle (further requests wait in its
     * queue). Pass an executor of your own to give a lock more threads or threads of its own.
     * Watches run on daemon threads of their own, which end when the watch is closed (see {@link
     * #watchMode}).
     */
    Builder executor(Executor executor);

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
    Builder watchMode(WatchMode watchMode);

    /**
     * Shorthand for {@link #watchMode}: true forces {@link WatchMode#SHARED}, false forces {@link
     * WatchMode#PER_LOCK}. Without either, the lock uses {@link WatchMode#AUTO}.
     */
    Builder sharedWatch(boolean sharedWatch);

    /**
     * Whether to record client-go's leader election Events on the lock object: {@code <identity>
     * became leader} and {@code <identity> stopped leading}, reason {@code LeaderElection}, so that
     * {@code kubectl describe lease <name>} shows who led when; default false.
     *
     * <p>They are core/v1 Events, like those of client-go's elector, so {@code kubectl describe},
     * {@code kubectl get events} and event exporters show them exactly as they show a Go
     * controller's; they also carry {@code reportingComponent} ({@link #eventComponent}) and {@code
     * reportingInstance} (this candidate's identity). They are sent on the lock's {@link
     * #executor}, never on the elector's thread, one at a time per lock: at most 6 at once, then
     * one a minute, and the next event counts what the limit held back.
     *
     * <p>The identity needs {@code create} on {@code events} in the lock's namespace ({@code
     * deploy/lease/rbac-events.yaml}). Without it, one WARN per namespace and identity names the
     * rule to add, and the election carries on unaffected.
     */
    Builder recordEvents(boolean recordEvents);

    /**
     * The component the Events name as their source ({@code source.component} and {@code
     * reportingComponent}), such as your operator's name; default {@value
     * #DEFAULT_EVENT_COMPONENT}. A Kubernetes qualified name: letters, digits, '-', '_' and '.', at
     * most 63 characters, with an optional DNS prefix and '/'. Needs {@link #recordEvents
     * recordEvents(true)}.
     */
    Builder eventComponent(String eventComponent);

    /**
     * Where the default namespace and identity come from; default {@link PodEnvironment#system()},
     * the process's real environment. {@link PodEnvironment#of} gives fixed values, for tests.
     */
    Builder environment(PodEnvironment environment);

    /**
     * The monotonic time of the lock's request deadlines, of its watch's back-off and request
     * bound, and of its Events' rate limit; default {@link MonotonicClock#system()}. Meant for
     * tests, with the virtual clock of {@code elector-testkit}, together with {@link #scheduler}.
     */
    Builder clock(MonotonicClock clock);

    /**
     * Where the lock's watch runs its steps (a list, or a watch until it ends) and waits between
     * them; default a daemon thread of each watch's own. A step blocks for as long as its request
     * runs (minutes, for a healthy watch), so a shared scheduler needs a thread for each watch on
     * it. Meant for tests, with the virtual scheduler of {@code elector-testkit}, whose transport
     * answers at once.
     */
    Builder scheduler(Scheduler scheduler);

    /**
     * The randomness of the watch's back-off jitter and server-side timeouts; default a fresh
     * generator for each watch. Meant for repeatable tests. Used from the watch's steps only.
     */
    Builder random(RandomGenerator random);

    /**
     * Resolves namespace and identity and builds the lock.
     *
     * @throws IllegalStateException listing every missing or invalid option
     */
    KubeLock build();
  }
}
