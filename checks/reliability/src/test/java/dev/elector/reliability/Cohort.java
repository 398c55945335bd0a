package dev.elector.reliability;

import dev.elector.CallOutcome;
import dev.elector.ElectorConfig;
import dev.elector.ElectorListener;
import dev.elector.ElectorStats;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.LockCall;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.fabric8.Fabric8LeaseLock;
import dev.elector.k8s.LeaseLock;
import dev.elector.kube.KubeLock;
import dev.elector.lock.LeaderLock;
import dev.elector.testenv.net.FaultProxy;
import dev.elector.testenv.net.HttpFaults;
import dev.elector.testkit.LeadershipTimeline;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.time.MonotonicClock;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * Candidates for one Lease on the real API server, each as a separate pod would be: its own
 * restricted identity bound to the shipped Role ({@code deploy/lease/rbac.yaml}), its own
 * connection through a {@link FaultProxy} (so one can be partitioned alone) and an {@link
 * HttpFaults} injector (synthetic 500/429). All report their terms to one {@link
 * LeadershipTimeline} on the system monotonic clock, with their fencing tokens.
 */
final class Cohort implements AutoCloseable {
  static final Path SHIPPED_LEASE_RBAC = Path.of("..", "..", "deploy", "lease", "rbac.yaml");
  static final String LOCK = "elector-leader"; // the lock name the shipped Role is written for
  static final Duration LEASE = Duration.ofSeconds(3);
  static final Duration RENEW_DEADLINE = Duration.ofSeconds(2);
  static final Duration RETRY = Duration.ofMillis(500);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(4);

  /**
   * The timings of a cohort's candidates, Elector's and client-go's alike: lease, renewDeadline,
   * retryPeriod, Elector's maxBackoff and its request timeout (half the renewDeadline).
   */
  record Timings(Duration lease, Duration renewDeadline, Duration retry, Duration maxBackoff) {
    /** The scenarios' shortened timings: a fifth of the defaults. */
    static final Timings SHORT = new Timings(LEASE, RENEW_DEADLINE, RETRY, MAX_BACKOFF);

    /** The defaults of Elector and client-go: 15 s, 10 s, 2 s. */
    static final Timings DEFAULTS =
        new Timings(
            ElectorConfig.DEFAULT_LEASE_DURATION,
            ElectorConfig.DEFAULT_RENEW_DEADLINE,
            ElectorConfig.DEFAULT_RETRY_PERIOD,
            ElectorConfig.DEFAULT_MAX_BACKOFF);

    Duration requestTimeout() {
      return renewDeadline.dividedBy(2);
    }

    @Override
    public String toString() {
      return lease.toMillis()
          + "/"
          + renewDeadline.toMillis()
          + "/"
          + retry.toMillis()
          + " ms (lease/renewDeadline/retryPeriod)";
    }
  }

  private static final AtomicInteger IDENTITIES = new AtomicInteger();
  private static final org.slf4j.Logger CALL_LOG =
      org.slf4j.LoggerFactory.getLogger("dev.elector.reliability.calls");

  /**
   * Logs each request of a client-java candidate at DEBUG with the local port of its connection and
   * its outcome, so a failed call can be traced through the proxy and the balancer to a server.
   */
  private static okhttp3.Interceptor callLog(String name) {
    return chain -> {
      okhttp3.Connection connection = chain.connection();
      int port = connection == null ? -1 : connection.socket().getLocalPort();
      String what = chain.request().method() + " " + chain.request().url().encodedPath();
      long start = System.nanoTime();
      try {
        okhttp3.Response response = chain.proceed(chain.request());
        CALL_LOG.debug(
            "{}: {} on port {} ({}): {} in {} ms",
            name,
            what,
            port,
            connection == null ? "?" : connection.protocol(),
            response.code(),
            (System.nanoTime() - start) / 1_000_000);
        return response;
      } catch (java.io.IOException | RuntimeException e) {
        CALL_LOG.debug(
            "{}: {} on port {} failed after {} ms: {}",
            name,
            what,
            port,
            (System.nanoTime() - start) / 1_000_000,
            e.toString());
        throw e;
      }
    };
  }

  /**
   * What the soak's faults act on, for an Elector candidate or a client-go one: its network path
   * and its synthetic HTTP errors.
   */
  interface Candidate {
    String name();

    FaultProxy proxy();

    /** Whether it reports an open term. */
    boolean leading();

    void httpFail(double share, int status);

    void httpThrottle(double share, Duration retryAfter);

    void httpOff();
  }

  /**
   * Per candidate, the renewals of its terms: the longest time between two successful writes of one
   * term (from its start) and the slowest successful write while leading.
   */
  static final class Renewals implements ElectorListener {
    private final ElectorListener delegate;
    private boolean leading;
    private long lastWrite;
    private long longestGap;
    private long slowest;

    Renewals(ElectorListener delegate) {
      this.delegate = delegate;
    }

    @Override
    public void onLockCall(LockCall call, CallOutcome outcome, Duration latency) {
      delegate.onLockCall(call, outcome, latency);
      if ((call == LockCall.ACQUIRE || call == LockCall.RENEW) && outcome == CallOutcome.OK) {
        long now = System.nanoTime();
        synchronized (this) {
          if (leading) {
            longestGap = Math.max(longestGap, now - lastWrite);
            slowest = Math.max(slowest, latency.toNanos());
            lastWrite = now;
          }
        }
      }
    }

    @Override
    public void onTermStarted(Term term) {
      delegate.onTermStarted(term);
      synchronized (this) {
        leading = true;
        lastWrite = System.nanoTime();
      }
    }

    @Override
    public void onTermEnded(Term term, TermEnd reason) {
      delegate.onTermEnded(term, reason);
      synchronized (this) {
        leading = false;
      }
    }

    @Override
    public void onLeaderObserved(String identity) {
      delegate.onLeaderObserved(identity);
    }

    @Override
    public void onCallDeferred(Duration wait) {
      delegate.onCallDeferred(wait);
    }

    /** The longest time between two successful writes within one term, from the term's start. */
    synchronized Duration longestGap() {
      return Duration.ofNanos(longestGap);
    }

    /** The slowest successful write while leading. */
    synchronized Duration slowest() {
      return Duration.ofNanos(slowest);
    }

    /** Forgets what was measured so far (a term in progress goes on from now). */
    synchronized void reset() {
      longestGap = 0;
      slowest = 0;
      lastWrite = System.nanoTime();
    }
  }

  /** One candidate and its faults. */
  final class Member implements Candidate {
    final String name;
    final FaultProxy proxy;
    final HttpFaults http;
    final LeaderElector elector;
    final Renewals renewals;
    final KubeIdentity identity;
    private final boolean httpInstalled;
    private final List<Term> terms;

    private Member(
        String name,
        FaultProxy proxy,
        HttpFaults http,
        boolean httpInstalled,
        LeaderElector elector,
        Renewals renewals,
        KubeIdentity identity,
        List<Term> terms) {
      this.name = name;
      this.identity = identity;
      this.proxy = proxy;
      this.http = http;
      this.httpInstalled = httpInstalled;
      this.elector = elector;
      this.renewals = renewals;
      this.terms = terms;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public FaultProxy proxy() {
      return proxy;
    }

    @Override
    public void httpFail(double share, int status) {
      requireHttp();
      http.fail(share, status);
    }

    @Override
    public void httpThrottle(double share, Duration retryAfter) {
      requireHttp();
      http.throttle(share, retryAfter);
    }

    private void requireHttp() {
      if (!httpInstalled) {
        throw new UnsupportedOperationException(
            name + " runs on fabric8, which has no HTTP fault injector; use its proxy's faults");
      }
    }

    @Override
    public void httpOff() {
      http.off();
    }

    /** The terms this member started, in order. */
    List<Term> terms() {
      synchronized (terms) {
        return List.copyOf(terms);
      }
    }

    @Override
    public boolean leading() {
      return elector.isLeader();
    }

    ElectorStats stats() {
      return elector.stats();
    }

    @Override
    public String toString() {
      return name;
    }
  }

  final LeadershipTimeline timeline = new LeadershipTimeline(MonotonicClock.system());
  private final KubeCluster cluster;
  private final KubeNamespace namespace;
  private InetSocketAddress server;
  private Timings timings = Timings.SHORT;
  private Duration requestTimeout = Timings.SHORT.requestTimeout();
  private final Map<String, Member> members = new LinkedHashMap<>();
  private final Map<String, GoCandidate> goCandidates = new LinkedHashMap<>();
  private final List<KubernetesClient> fabric8Clients = new ArrayList<>();

  Cohort(KubeCluster cluster, KubeNamespace namespace) {
    this.cluster = cluster;
    this.namespace = namespace;
    URI uri = URI.create(cluster.server());
    this.server = new InetSocketAddress(uri.getHost(), uri.getPort());
  }

  /**
   * Candidates added from now on connect to {@code url} (such as one API server of several) rather
   * than to the cluster's server.
   */
  Cohort via(String url) {
    URI uri = URI.create(url);
    this.server = new InetSocketAddress(uri.getHost(), uri.getPort());
    return this;
  }

  /**
   * Candidates added from now on, of every kind, run at {@code timings}; Elector's bound each lock
   * call by half the renewDeadline.
   */
  Cohort timings(Timings timings) {
    this.timings = timings;
    this.requestTimeout = timings.requestTimeout();
    return this;
  }

  /** The timings of the candidates added from now on. */
  Timings timings() {
    return timings;
  }

  /** Elector candidates added from now on bound each lock call by {@code timeout}. */
  Cohort requestTimeout(Duration timeout) {
    this.requestTimeout = timeout;
    return this;
  }

  /** Starts {@code count} candidates named c1, c2, ... with the scenario timings. */
  Cohort start(int count) throws Exception {
    return start(count, UnaryOperator.identity());
  }

  /** As {@link #start(int)}, with extra elector settings. */
  Cohort start(int count, UnaryOperator<ElectorConfig.Builder> tuning) throws Exception {
    for (int i = 0; i < count; i++) {
      add("c" + (members.size() + 1), tuning);
    }
    return this;
  }

  /** Adds and starts one candidate. */
  Member add(String name, UnaryOperator<ElectorConfig.Builder> tuning) throws Exception {
    KubeIdentity identity =
        cluster.newIdentity(namespace, name + "-" + IDENTITIES.incrementAndGet());
    cluster.grant(identity, namespace, KubeCluster.roleRules(SHIPPED_LEASE_RBAC));
    FaultProxy proxy =
        FaultProxy.newBuilder().name(name).target(server).seed(name.hashCode()).start();
    ApiClient client = identity.client();
    client.setBasePath("https://127.0.0.1:" + proxy.address().getPort());
    HttpFaults http = HttpFaults.withSeed(name.hashCode()).installOn(client);
    if (CALL_LOG.isDebugEnabled()) {
      client.setHttpClient(
          client.getHttpClient().newBuilder().addNetworkInterceptor(callLog(name)).build());
    }
    KubeLock lock =
        LeaseLock.newBuilder(client)
            .namespace(namespace.name())
            .name(LOCK)
            .identity(name)
            .requestTimeout(requestTimeout)
            .build();
    return startMember(name, identity, proxy, http, true, lock, tuning);
  }

  /**
   * Adds and starts one Elector candidate on the fabric8 backend ({@code Fabric8LeaseLock}), with
   * its own identity bound to the shipped Role and its own {@link FaultProxy}. fabric8 has no
   * {@link HttpFaults}: only its proxy's faults apply.
   */
  Member addFabric8(String name, UnaryOperator<ElectorConfig.Builder> tuning) throws Exception {
    KubeIdentity identity =
        cluster.newIdentity(namespace, name + "-" + IDENTITIES.incrementAndGet());
    cluster.grant(identity, namespace, KubeCluster.roleRules(SHIPPED_LEASE_RBAC));
    FaultProxy proxy =
        FaultProxy.newBuilder().name(name).target(server).seed(name.hashCode()).start();
    KubernetesClient fabric8 =
        new KubernetesClientBuilder()
            .withConfig(
                Config.fromKubeconfig(
                    cluster
                        .kubeconfigYaml(identity.token())
                        .replace(
                            "server: " + cluster.server() + "\n",
                            "server: https://127.0.0.1:" + proxy.address().getPort() + "\n")))
            .build();
    fabric8Clients.add(fabric8);
    KubeLock lock =
        Fabric8LeaseLock.newBuilder(fabric8)
            .namespace(namespace.name())
            .name(LOCK)
            .identity(name)
            .requestTimeout(requestTimeout)
            .build();
    return startMember(
        name, identity, proxy, HttpFaults.withSeed(name.hashCode()), false, lock, tuning);
  }

  private Member startMember(
      String name,
      KubeIdentity identity,
      FaultProxy proxy,
      HttpFaults http,
      boolean httpInstalled,
      LeaderLock lock,
      UnaryOperator<ElectorConfig.Builder> tuning) {
    List<Term> terms = new ArrayList<>();
    Renewals renewals = new Renewals(timeline.listenerFor(name));
    LeaderElector elector =
        LeaderElector.start(
            tuning
                .apply(
                    ElectorConfig.newBuilder()
                        .lock(lock)
                        .leaseDuration(timings.lease())
                        .renewDeadline(timings.renewDeadline())
                        .retryPeriod(timings.retry())
                        .maxBackoff(timings.maxBackoff())
                        .callbacks(
                            LeaderCallbacks.of(
                                term -> {
                                  synchronized (terms) {
                                    terms.add(term);
                                  }
                                },
                                (term, reason) -> {}))
                        .listener(renewals))
                .build());
    Member member =
        new Member(name, proxy, http, httpInstalled, elector, renewals, identity, terms);
    members.put(name, member);
    return member;
  }

  /**
   * Adds and starts a client-go candidate (see {@link GoCandidate}) named {@code name}, with its
   * own identity bound to the shipped Role plus {@code update} on the lock (client-go renews with
   * update, Elector with patch) and its own {@link FaultProxy}; its terms go to {@link #timeline}.
   * Its kubeconfig and log go to {@code work}.
   */
  GoCandidate addGo(String name, Path binary, Path work, boolean releaseOnCancel) throws Exception {
    KubeIdentity identity =
        cluster.newIdentity(namespace, name + "-" + IDENTITIES.incrementAndGet());
    // client-go renews with update (PUT) where Elector patches: the shipped rules plus update.
    List<V1PolicyRule> rules = new ArrayList<>(KubeCluster.roleRules(SHIPPED_LEASE_RBAC));
    rules.add(
        new V1PolicyRule()
            .apiGroups(List.of("coordination.k8s.io"))
            .resources(List.of("leases"))
            .resourceNames(List.of(LOCK))
            .verbs(List.of("update")));
    cluster.grant(identity, namespace, rules);
    FaultProxy proxy =
        FaultProxy.newBuilder().name(name).target(server).seed(name.hashCode()).start();
    String yaml =
        cluster
            .kubeconfigYaml(identity.token())
            .replace(
                "server: " + cluster.server() + "\n",
                "server: https://127.0.0.1:" + proxy.address().getPort() + "\n");
    if (!yaml.contains(":" + proxy.address().getPort())) {
      proxy.close();
      throw new IllegalStateException("could not point the kubeconfig at the proxy:\n" + yaml);
    }
    Path kubeconfig = GoCandidate.writeKubeconfig(work, name, yaml);
    GoCandidate candidate;
    try {
      candidate =
          GoCandidate.start(
              binary,
              name,
              namespace.name(),
              LOCK,
              kubeconfig,
              timings,
              releaseOnCancel,
              proxy,
              timeline,
              work.resolve(name + ".log"));
    } catch (Exception e) {
      proxy.close();
      throw e;
    }
    goCandidates.put(name, candidate);
    return candidate;
  }

  /** The client-go candidates, in order of start. */
  List<GoCandidate> goCandidates() {
    return List.copyOf(goCandidates.values());
  }

  /** Every candidate, Elector's first, then client-go's. */
  List<Candidate> all() {
    List<Candidate> all = new ArrayList<>(members.values());
    all.addAll(goCandidates.values());
    return all;
  }

  /** Every candidate that reports an open term now, whatever its language. */
  List<Candidate> allLeading() {
    return all().stream().filter(Candidate::leading).toList();
  }

  List<Member> members() {
    return List.copyOf(members.values());
  }

  Member member(String name) {
    return members.get(name);
  }

  /** The members leading now (normally at most one). */
  List<Member> leaders() {
    return members.values().stream().filter(Member::leading).toList();
  }

  /**
   * Whether {@code candidate}'s current term is on the {@link #timeline}: an elector's listener
   * reports it just after {@code isLeader()} turns true, on the elector's thread.
   */
  boolean onTimeline(Candidate candidate) {
    return timeline.terms().stream()
        .anyMatch(t -> t.open() && t.candidate().equals(candidate.name()));
  }

  /**
   * Waits for exactly one leader, and for its term on the timeline; fails if two ever lead at once.
   */
  Member awaitLeader(Duration limit) throws InterruptedException {
    return Waiting.until(
        limit,
        Duration.ofMillis(10),
        () -> {
          List<Member> leaders = leaders();
          if (leaders.size() > 1) {
            throw new AssertionError("two leaders at once: " + leaders);
          }
          return leaders.stream().findFirst().filter(this::onTimeline);
        },
        () -> "no leader within " + limit + "; terms so far: " + timeline.terms());
  }

  /** Waits until a member other than {@code not} leads, and its term is on the timeline. */
  Member awaitLeaderOtherThan(Member not, Duration limit) throws InterruptedException {
    return Waiting.until(
        limit,
        Duration.ofMillis(10),
        () -> leaders().stream().filter(m -> m != not).findFirst().filter(this::onTimeline),
        () ->
            "no leader other than "
                + not
                + " within "
                + limit
                + "; terms so far: "
                + timeline.terms());
  }

  /** Waits until {@code member} no longer leads; returns how long that took. */
  Duration awaitStepDown(Member member, Duration limit) throws InterruptedException {
    long start = System.nanoTime();
    Waiting.until(
        limit,
        Duration.ofMillis(5),
        () -> member.leading() ? Optional.empty() : Optional.of(member),
        () -> member + " still leads after " + limit);
    return Duration.ofNanos(System.nanoTime() - start);
  }

  /** Waits until {@code member} has finished {@code n} more renewals than when called. */
  void awaitRenewals(Member member, int n, Duration limit) {
    long before = member.stats().calls(LockCall.RENEW);
    Waiting.until(
        limit,
        Duration.ofMillis(10),
        () ->
            member.stats().calls(LockCall.RENEW) - before >= n
                ? Optional.of(true)
                : Optional.empty(),
        () -> member + " did not renew " + n + " times within " + limit);
  }

  /** Total lock calls of all members so far. */
  long totalCalls() {
    return members.values().stream().mapToLong(m -> m.stats().totalCalls()).sum();
  }

  /** Per member, lock calls so far. */
  Map<String, Long> callsByMember() {
    Map<String, Long> calls = new LinkedHashMap<>();
    members.forEach((name, m) -> calls.put(name, m.stats().totalCalls()));
    return calls;
  }

  /** The documented bound on one candidate's lock calls in any interval of length {@code t}. */
  static long callBound(Duration t) {
    return ElectorConfig.CALL_BURST
        + (long)
            Math.ceil(
                (double) ElectorConfig.CALLS_PER_RETRY_PERIOD * t.toNanos() / RETRY.toNanos());
  }

  /** Heals every fault. */
  void healAll() {
    all()
        .forEach(
            m -> {
              m.proxy().heal();
              m.httpOff();
            });
  }

  /**
   * Closes every elector (releasing if leading), stops the client-go candidates (which release
   * too), then closes the proxies.
   */
  @Override
  public void close() {
    healAll();
    members.values().forEach(m -> m.elector.close());
    goCandidates.values().forEach(GoCandidate::close);
    members.values().forEach(m -> m.proxy.close());
    fabric8Clients.forEach(KubernetesClient::close);
  }
}
