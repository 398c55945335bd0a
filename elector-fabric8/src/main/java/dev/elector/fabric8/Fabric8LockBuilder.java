package dev.elector.fabric8;

import dev.elector.kube.PodEnvironment;
import dev.elector.kube.WatchMode;
import dev.elector.kube.internal.DaemonThreads;
import dev.elector.kube.internal.LockOptions;
import dev.elector.kube.internal.ObjectLock;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The options every fabric8 lock shares; the same options, defaults and checks as the client-java
 * locks of elector-k8s-lease. Setters reject null at once; {@code build()} resolves namespace and
 * identity and reports every problem in one {@link IllegalStateException}.
 *
 * @param <B> the concrete builder
 */
public abstract class Fabric8LockBuilder<B extends Fabric8LockBuilder<B>> {
  /**
   * Default timeout of one API request: 5 s, half the elector's default renewDeadline, so a hung
   * request cannot outlive a term. Keep it at most the elector's callTimeout.
   */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = LockOptions.DEFAULT_REQUEST_TIMEOUT;

  private KubernetesClient client;
  private String namespace;
  private String name;
  private String identity;
  private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
  private Executor executor;
  private WatchMode watchMode = WatchMode.AUTO;
  private boolean recordEvents;
  private String eventComponent;
  private PodEnvironment environment = PodEnvironment.system();

  Fabric8LockBuilder() {}

  abstract B self();

  /**
   * The client to talk to the API server with (required); its credentials, TLS and HTTP client are
   * the lock's. The lock never closes it. fabric8's own request retries are not used: the elector
   * retries on its own schedule.
   */
  public B client(KubernetesClient client) {
    this.client = Objects.requireNonNull(client, "client");
    return self();
  }

  /**
   * The namespace of the lock object; default the pod's own (see {@link PodEnvironment}), not the
   * client's configured namespace. There is no fallback to {@code default}.
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

  /** Timeout over one whole API request; default {@link #DEFAULT_REQUEST_TIMEOUT}. */
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
   * How this lock watches its object while following; default {@link WatchMode#AUTO}: one watch of
   * the whole collection (every Lease, or every ConfigMap, in the namespace) shared by all locks of
   * that collection built on the same {@code KubernetesClient}, while the identity may list and
   * watch the collection ({@code deploy/lease/rbac-shared-watch.yaml}). Without that, the shared
   * watch's first list is refused with one 403, and from then on the locks of that client and
   * collection each watch their own object on a thread of their own, which needs {@code list} and
   * {@code watch} on that name only ({@code deploy/lease/rbac.yaml}); one INFO line says which mode
   * is used and why. {@link WatchMode#SHARED} and {@link WatchMode#PER_LOCK} force a mode.
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
   * Whether the lock records client-go's leader election Events on the lock object ({@code
   * <identity> became leader}, {@code <identity> stopped leading}, reason {@code LeaderElection});
   * default false. The same Events, rate limit and RBAC as the client-java locks: sent on the
   * lock's {@link #executor}, never on the elector's thread, at most 6 at once then one a minute;
   * the identity needs {@code create} on {@code events} in the lock's namespace ({@code
   * deploy/lease/rbac-events.yaml}); without it, one WARN names the rule and the election carries
   * on unaffected.
   */
  public B recordEvents(boolean recordEvents) {
    this.recordEvents = recordEvents;
    return self();
  }

  /**
   * The component the Events name as their source, such as your operator's name; default {@code
   * elector}. A Kubernetes qualified name. Needs {@link #recordEvents recordEvents(true)}.
   */
  public B eventComponent(String eventComponent) {
    this.eventComponent = Objects.requireNonNull(eventComponent, "eventComponent");
    return self();
  }

  /** Where the default namespace and identity come from; default the real process environment. */
  public B environment(PodEnvironment environment) {
    this.environment = Objects.requireNonNull(environment, "environment");
    return self();
  }

  /**
   * Settings after defaults and checks, with requests through the client.
   *
   * @throws IllegalStateException listing every missing or invalid option
   */
  ObjectLock.Settings resolve(String kind) {
    LockOptions.Resolved r =
        LockOptions.resolve(
            kind,
            client == null
                ? "client is missing; pass one, for example new KubernetesClientBuilder().build()"
                : null,
            name,
            namespace,
            identity,
            requestTimeout,
            environment,
            LockOptions.eventProblems(recordEvents, eventComponent));
    return new ObjectLock.Settings(
        client,
        new Fabric8Http(client, r.requestTimeout()),
        r.namespace(),
        r.name(),
        r.identity(),
        r.requestTimeout(),
        executor != null ? executor : DaemonThreads.shared(),
        watchMode,
        LockOptions.eventComponent(recordEvents, eventComponent));
  }
}
