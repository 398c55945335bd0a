package dev.elector.k8s;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.CallOutcome;
import dev.elector.ElectorConfig;
import dev.elector.ElectorListener;
import dev.elector.ElectorStats;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.LockCall;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.kube.KubeLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.testenv.Await;
import dev.elector.testkit.LeadershipTimeline;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import dev.elector.time.MonotonicClock;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Election scenarios every Kubernetes lock must pass on a real API server, with scaled-down timings
 * (lease 3 s, renew 2 s, retry 0.5 s) and the overlap detector on. Subclasses supply the lock and
 * an outside writer that edits the object in client-go's format.
 */
@KubeTest
public abstract class AbstractKubeLockIT {
  /** The timeout of a lock call made by the test itself: long, the test is not about time. */
  private static final Duration CALL = Duration.ofSeconds(30);

  /**
   * The lock's own bound on a call: long too. An elector bounds each of its calls by its
   * callTimeout (renewDeadline / 2) anyway; the test's own calls must not fail on a busy machine
   * because the first request of a new identity (TLS, token review) took a second.
   */
  protected static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  protected static final Duration LEASE = Duration.ofSeconds(3);
  protected static final Duration RENEW = Duration.ofSeconds(2);
  protected static final Duration RETRY = Duration.ofMillis(500);
  private static final Logger log = LoggerFactory.getLogger(AbstractKubeLockIT.class);

  protected KubeCluster cluster;
  protected ApiClient admin;
  protected KubeNamespace namespace;
  protected LeadershipTimeline timeline;
  protected final List<LeaderElector> electors = new CopyOnWriteArrayList<>();
  private final List<String> ended = new CopyOnWriteArrayList<>();
  private final AtomicInteger counter = new AtomicInteger();
  private String lockName;

  // ---------------------------------------------------------------- what a backend supplies

  /**
   * A lock on {@code namespace/name} as {@code identity}, with the credentials of {@code client} (a
   * backend on another client builds its own client with the same credentials).
   */
  protected abstract KubeLock newLock(
      ApiClient client, String namespace, String name, String identity);

  /**
   * The shipped RBAC manifests of this backend that a candidate is told to apply together: {@code
   * rbac.yaml} first, then any optional addition.
   */
  protected abstract List<Path> rbacManifests();

  /** Writes the object by hand in client-go's format, creating or replacing it. */
  protected abstract void writeForeignRecord(
      String namespace,
      String name,
      String holder,
      int leaseDurationSeconds,
      Instant renewTime,
      long transitions)
      throws Exception;

  /** Deletes the lock object. */
  protected abstract void deleteObject(String namespace, String name) throws Exception;

  /**
   * Edits the lock object's metadata only, as {@code kubectl label} or a policy engine does: sets
   * label {@code label} to {@code value} and, when {@code preferredHolder} is not null, the
   * preferred-holder annotation; the record is left as it is.
   */
  protected abstract void editMetadata(
      String namespace, String name, String label, String value, @Nullable String preferredHolder)
      throws Exception;

  /** The holder and transitions as stored, or empty if the object is absent. */
  protected abstract Optional<Stored> readStored(String namespace, String name) throws Exception;

  /** What an outside reader sees in the object. */
  public record Stored(String holder, long transitions) {}

  // ---------------------------------------------------------------- fixture

  @BeforeEach
  void setUp(KubeCluster cluster, KubeNamespace namespace, TestInfo test) {
    this.cluster = cluster;
    this.admin = cluster.admin();
    this.namespace = namespace;
    this.timeline = new LeadershipTimeline(MonotonicClock.system());
    this.lockName =
        test.getTestMethod()
            .orElseThrow()
            .getName()
            .toLowerCase(java.util.Locale.ROOT)
            .replaceAll("[^a-z0-9]", "-");
    if (lockName.length() > 40) {
      lockName = lockName.substring(0, 40);
    }
  }

  @AfterEach
  void tearDown() {
    for (LeaderElector elector : electors) {
      elector.close();
    }
    afterElectorsClosed();
    timeline.assertNoOverlap();
  }

  /** Runs after each test once its electors are closed, such as to close a backend's clients. */
  protected void afterElectorsClosed() {}

  protected String lockName() {
    return lockName;
  }

  protected ElectorConfig.Builder config(KubeLock lock, String candidate) {
    return ElectorConfig.newBuilder()
        .lock(lock)
        .callbacks(LeaderCallbacks.of(term -> {}, (term, why) -> ended.add(candidate + ":" + why)))
        .leaseDuration(LEASE)
        .renewDeadline(RENEW)
        .retryPeriod(RETRY)
        .listener(timeline.listenerFor(candidate));
  }

  protected LeaderElector candidate(
      ApiClient client, String namespace, String name, String identity) {
    return start(config(newLock(client, namespace, name, identity), identity).build());
  }

  protected LeaderElector candidate(String identity) {
    return candidate(admin, namespace.name(), lockName, identity);
  }

  protected LeaderElector start(ElectorConfig config) {
    LeaderElector elector = LeaderElector.start(config);
    electors.add(elector);
    return elector;
  }

  protected List<LeaderElector> leaders() {
    List<LeaderElector> leaders = new ArrayList<>();
    for (LeaderElector elector : electors) {
      if (elector.isLeader()) {
        leaders.add(elector);
      }
    }
    return leaders;
  }

  /** Candidates a and b, once one leads and both have seen it lead; returns the leader. */
  private LeaderElector twoCandidatesBothSeeingTheLeader() {
    candidate("a");
    candidate("b");
    LeaderElector leader = awaitOneLeader(Duration.ofSeconds(10));
    Await.until(
        "both see the leader",
        Duration.ofSeconds(5),
        () -> electors.stream().allMatch(e -> e.observedLeader().isPresent()));
    return leader;
  }

  protected LeaderElector awaitOneLeader(Duration timeout) {
    Await.until("exactly one leader", timeout, () -> leaders().size() == 1);
    return leaders().get(0);
  }

  /**
   * Successful renewals (and acquisitions) by {@code elector}: its own count of written updates.
   */
  protected static long writesOk(LeaderElector elector) {
    return elector.stats().calls(LockCall.RENEW, CallOutcome.OK);
  }

  /** Waits until {@code leader} has written {@code count} more updates, as counted by itself. */
  protected static void awaitRenewals(LeaderElector leader, int count, Duration atMost) {
    long target = writesOk(leader) + count;
    await(leader.identity() + " renews " + count + " times")
        .atMost(atMost)
        .until(() -> writesOk(leader) >= target);
  }

  /** Each elector's calls by kind and outcome, and how it follows, for failure messages. */
  private static String describeCalls(List<LeaderElector> electors) {
    return electors.stream()
        .map(e -> e.identity() + " " + e.stats().calls() + " watching=" + e.stats().watching())
        .toList()
        .toString();
  }

  /** Lock reads made by {@code elector}, whatever their outcome. */
  protected static long reads(LeaderElector elector) {
    return elector.stats().calls().get(LockCall.READ).values().stream()
        .mapToLong(Long::longValue)
        .sum();
  }

  private String unique(String prefix) {
    return prefix + "-" + counter.incrementAndGet();
  }

  // ---------------------------------------------------------------- permissions

  private List<V1PolicyRule> shippedRules() throws Exception {
    List<V1PolicyRule> rules = new ArrayList<>();
    for (Path manifest : rbacManifests()) {
      rules.addAll(KubeCluster.roleRules(manifest));
    }
    return rules;
  }

  private String shippedLockName() throws Exception {
    return shippedRules().stream()
        .filter(r -> r.getResourceNames() != null)
        .flatMap(r -> r.getResourceNames().stream())
        .findFirst()
        .orElse(lockName);
  }

  @Test
  void electionWorksUnderExactlyTheShippedRole() throws Exception {
    KubeNamespace own = cluster.createNamespace("rbac");
    String name = shippedLockName();
    KubeIdentity a = cluster.newIdentity(own, "candidate-a");
    KubeIdentity b = cluster.newIdentity(own, "candidate-b");
    cluster.grant(a, own, shippedRules());
    cluster.grant(b, own, shippedRules());

    LeaderElector first = candidate(a.client(), own.name(), name, "a");
    LeaderElector second = candidate(b.client(), own.name(), name, "b");

    LeaderElector leader = awaitOneLeader(Duration.ofSeconds(15));
    LeaderElector follower = leader == first ? second : first;
    Await.until(
        "the follower sees the leader",
        Duration.ofSeconds(5),
        () -> follower.observedLeader().isPresent());
    long followerCalls = follower.stats().totalCalls();
    int renewals = 8;
    awaitRenewals(leader, renewals, Duration.ofSeconds(20));

    assertEquals(
        0,
        leader.stats().calls(LockCall.RENEW, CallOutcome.FAILED)
            + leader.stats().calls(LockCall.RENEW, CallOutcome.REFUSED),
        "renewals failed or were refused under the shipped Role");
    assertEquals(
        1,
        leader.stats().termsStarted() + follower.stats().termsStarted(),
        "one term, kept throughout");
    assertEquals(0, leader.stats().termsEnded());
    // The Role lets the follower watch: it calls nothing while the leader renews. A follower that
    // polls instead reads about once per renewal, both paced by the retry period.
    long polled = follower.stats().totalCalls() - followerCalls;
    assertTrue(
        polled <= renewals / 4,
        "the follower called "
            + polled
            + " times during "
            + renewals
            + " renewals under the shipped Role: "
            + follower.stats().status());
    leader.close();
    awaitOneLeader(Duration.ofSeconds(5));
  }

  @Test
  void theShippedRoleDoesNotReachAnotherNamespace() throws Exception {
    KubeNamespace own = cluster.createNamespace("rbac-own");
    KubeNamespace other = cluster.createNamespace("rbac-other");
    KubeIdentity identity = cluster.newIdentity(own, "candidate");
    cluster.grant(identity, own, shippedRules());
    String name = shippedLockName();
    KubeLock inOwn = newLock(identity.client(), own.name(), name, "me");
    KubeLock inOther = newLock(identity.client(), other.name(), name, "me");
    Await.until(
        "the Role takes effect",
        Duration.ofSeconds(10),
        () -> inOwn.read(CALL).toCompletableFuture().get() instanceof LockRead.Absent);

    LockRead read = inOther.read(CALL).toCompletableFuture().get();
    LockWrite create = inOther.create(record("me", 1), CALL).toCompletableFuture().get();

    assertEquals(LockFailure.Kind.FORBIDDEN, assertInstanceOf(LockFailure.class, read).kind());
    assertEquals(LockFailure.Kind.FORBIDDEN, assertInstanceOf(LockFailure.class, create).kind());
    assertInstanceOf(
        LockWrite.Written.class, inOwn.create(record("me", 1), CALL).toCompletableFuture().get());
  }

  @Test
  void withoutTheRoleForbiddenNamesEveryMissingVerbAtOnce() throws Exception {
    KubeIdentity identity = cluster.newIdentity(namespace, unique("unbound"));
    KubeLock lock = newLock(identity.client(), namespace.name(), lockName, "me");

    LockFailure read =
        assertInstanceOf(LockFailure.class, lock.read(CALL).toCompletableFuture().get());
    LockFailure create =
        assertInstanceOf(
            LockFailure.class, lock.create(record("me", 1), CALL).toCompletableFuture().get());
    LockFailure update =
        assertInstanceOf(
            LockFailure.class, lock.update("1", record("me", 1), CALL).toCompletableFuture().get());

    assertEquals(LockFailure.Kind.FORBIDDEN, read.kind());
    for (String part :
        List.of(
            identity.username(),
            "me",
            "namespace " + namespace.name(),
            "\"" + lockName + "\"",
            "lacks get, list, watch, patch, create (a SelfSubjectRulesReview says so)",
            "verbs: [\"get\", \"list\", \"watch\", \"patch\"], resourceNames: [\""
                + lockName
                + "\"]",
            lock.roleRuleFor("create"),
            "/rbac.yaml")) {
      assertTrue(read.message().contains(part), "missing " + part + " in: " + read.message());
    }
    assertTrue(lock.roleRuleFor("get").contains("resourceNames: [\"" + lockName + "\"]"));
    assertTrue(!lock.roleRuleFor("create").contains("resourceNames"), lock.roleRuleFor("create"));
    for (LockFailure write : List.of(create, update)) {
      assertEquals(LockFailure.Kind.FORBIDDEN, write.kind());
      assertTrue(
          write.message().contains("lacks get, list, watch, patch, create"), write.message());
    }
    log.info("forbidden read says: {}", read.message());
  }

  @Test
  void aPartialRoleIsToldExactlyWhatItLacks() throws Exception {
    KubeNamespace own = cluster.createNamespace("partial");
    KubeIdentity identity = cluster.newIdentity(own, unique("reader"));
    String name = shippedLockName();
    V1PolicyRule readOnly =
        shippedRules().stream()
            .filter(r -> r.getResourceNames() != null && !r.getResourceNames().isEmpty())
            .findFirst()
            .orElseThrow()
            .verbs(List.of("get", "list", "watch"));
    cluster.grant(identity, own, List.of(readOnly));
    KubeLock lock = newLock(identity.client(), own.name(), name, "me");
    Await.until(
        "the Role takes effect",
        Duration.ofSeconds(10),
        () -> lock.read(CALL).toCompletableFuture().get() instanceof LockRead.Absent);

    LockFailure create =
        assertInstanceOf(
            LockFailure.class, lock.create(record("me", 1), CALL).toCompletableFuture().get());

    assertEquals(LockFailure.Kind.FORBIDDEN, create.kind());
    assertTrue(create.message().contains(" lacks patch, create ("), create.message());
    assertTrue(
        create.message().contains("verbs: [\"patch\"], resourceNames: [\"" + name + "\"]"),
        create.message());
  }

  @Test
  void missingNamespaceOnCreateIsNotFound() throws Exception {
    KubeLock lock =
        newLock(admin, "no-such-namespace-" + counter.incrementAndGet(), lockName, "me");

    LockFailure failure =
        assertInstanceOf(
            LockFailure.class, lock.create(record("me", 1), CALL).toCompletableFuture().get());

    assertEquals(LockFailure.Kind.NOT_FOUND, failure.kind());
    assertTrue(failure.message().contains("does not exist"), failure.message());
  }

  // ---------------------------------------------------------------- the lock contract

  @Test
  void lockContractOnTheRealServer() throws Exception {
    KubeLock lock = newLock(admin, namespace.name(), lockName, "me");
    assertInstanceOf(LockRead.Absent.class, lock.read(CALL).toCompletableFuture().get());
    String v1 =
        assertInstanceOf(
                LockWrite.Written.class,
                lock.create(record("me", 1), CALL).toCompletableFuture().get())
            .version();
    assertInstanceOf(
        LockWrite.Conflict.class, lock.create(record("me", 1), CALL).toCompletableFuture().get());
    String v2 =
        assertInstanceOf(
                LockWrite.Written.class,
                lock.update(v1, record("me", 2), CALL).toCompletableFuture().get())
            .version();
    assertInstanceOf(
        LockWrite.Conflict.class,
        lock.update(v1, record("other", 3), CALL).toCompletableFuture().get());

    LockRead.Found found =
        assertInstanceOf(LockRead.Found.class, lock.read(CALL).toCompletableFuture().get());
    assertEquals(v2, found.version());
    assertEquals("me", found.record().holderIdentity());
    assertEquals(2, found.record().leaderTransitions());
    assertEquals(Duration.ofSeconds(4), found.record().leaseDuration(), "rounded up to seconds");

    deleteObject(namespace.name(), lockName);
    assertInstanceOf(
        LockWrite.Conflict.class,
        lock.update(v2, record("me", 3), CALL).toCompletableFuture().get());
  }

  private static LeaderRecord record(String holder, long transitions) {
    Instant now = Instant.now();
    return new LeaderRecord(holder, Duration.ofMillis(3500), now, now, transitions);
  }

  // ---------------------------------------------------------------- elections

  @Test
  void threeCandidatesElectOneLeader() {
    candidate("a");
    candidate("b");
    candidate("c");

    LeaderElector leader = awaitOneLeader(Duration.ofSeconds(10));

    awaitRenewals(leader, 4, Duration.ofSeconds(10));
    assertEquals(
        1,
        electors.stream().mapToLong(e -> e.stats().termsStarted()).sum(),
        "one term in all, kept through four renewals");
    assertEquals(0, leader.stats().termsEnded());
    for (LeaderElector elector : electors) {
      Await.until(
          elector.identity() + " sees the leader",
          Duration.ofSeconds(5),
          () -> elector.observedLeader().equals(Optional.of(leader.identity())));
    }
  }

  @Test
  void crashedLeaderIsReplacedAfterExpiry() {
    LeaderElector first =
        start(
            config(newLock(admin, namespace.name(), lockName, "first"), "first")
                .releaseOnClose(false)
                .build());
    awaitOneLeader(Duration.ofSeconds(10));
    candidate("second");
    candidate("third");

    long cut = System.nanoTime();
    first.close(); // no release: as if the process died
    electors.remove(first);
    LeaderElector successor = awaitOneLeader(Duration.ofSeconds(10));

    Duration failover = Duration.ofNanos(System.nanoTime() - cut);
    assertTrue(failover.compareTo(LEASE.minusMillis(800)) >= 0, "took over after only " + failover);
    log.info("FIGURE crash failover ({}): {} ms", getClass().getSimpleName(), failover.toMillis());
    assertTrue(List.of("second", "third").contains(successor.identity()));
  }

  @Test
  void releaseHandsOverFast() {
    LeaderElector first = candidate("first");
    awaitOneLeader(Duration.ofSeconds(10));
    List<String> seenBySecond = new CopyOnWriteArrayList<>();
    ElectorListener toTimeline = timeline.listenerFor("second");
    LeaderElector second =
        start(
            config(newLock(admin, namespace.name(), lockName, "second"), "second")
                .listener(
                    new ElectorListener() {
                      @Override
                      public void onLockCall(LockCall call, CallOutcome outcome, Duration latency) {
                        toTimeline.onLockCall(call, outcome, latency);
                      }

                      @Override
                      public void onCallDeferred(Duration wait) {
                        toTimeline.onCallDeferred(wait);
                      }

                      @Override
                      public void onTermStarted(Term term) {
                        seenBySecond.add("term");
                        toTimeline.onTermStarted(term);
                      }

                      @Override
                      public void onTermEnded(Term term, TermEnd reason) {
                        toTimeline.onTermEnded(term, reason);
                      }

                      @Override
                      public void onLeaderObserved(String identity) {
                        seenBySecond.add("holder " + (identity.isEmpty() ? "none" : identity));
                        toTimeline.onLeaderObserved(identity);
                      }
                    })
                .build());
    Await.until(
        "second follows",
        Duration.ofSeconds(5),
        () -> second.observedLeader().equals(Optional.of("first")));

    long released = System.nanoTime();
    first.close();
    electors.remove(first);
    awaitOneLeader(Duration.ofSeconds(10));

    Duration handover = Duration.ofNanos(System.nanoTime() - released);
    log.info(
        "FIGURE handover after release ({}): {} ms",
        getClass().getSimpleName(),
        handover.toMillis());
    // Handed over by the release, not by expiry: second saw the lock released, then took it. The
    // listener hears of the term just after isLeader() turns true: wait for it, not for a race.
    Await.until(
        "second's term reported", Duration.ofSeconds(5), () -> seenBySecond.contains("term"));
    assertEquals(List.of("holder first", "holder none", "holder second", "term"), seenBySecond);
    assertTrue(second.isLeader());
  }

  @Test
  void hijackedLeaderStepsDownAndLeadsAgainLater() throws Exception {
    LeaderElector lone = candidate("lone");
    for (int round = 1; round <= 3; round++) {
      Await.until("lone leads (round " + round + ")", Duration.ofSeconds(10), lone::isLeader);
      long transitions = readStored(namespace.name(), lockName).orElseThrow().transitions();

      writeForeignRecord(namespace.name(), lockName, "intruder", 1, Instant.now(), transitions + 1);

      Await.until(
          "lone steps down (round " + round + ")", Duration.ofSeconds(5), () -> !lone.isLeader());
    }
    Await.until("lone leads once more", Duration.ofSeconds(10), lone::isLeader);
    // The stop callbacks run on the callback executor, after isLeader() turned false: wait for the
    // third before counting.
    Await.until(
        "lone's stop callback of round 3",
        Duration.ofSeconds(5),
        () -> ended.stream().filter(e -> e.equals("lone:" + TermEnd.LOCK_LOST)).count() >= 3);
    long lost = ended.stream().filter(e -> e.equals("lone:" + TermEnd.LOCK_LOST)).count();
    assertEquals(3, lost, "terms ended: " + ended);
  }

  /**
   * A leader whose renewals failed without reading the lock, as client-go's does with
   * ReleaseOnCancel, reads the record and writes its release over whatever term holds it now. The
   * follower must not take that release as the holder's own: the term it cleared runs until its
   * leader's next renewal conflicts.
   */
  @Test
  void aReleaseAStaleLeaderWritesOverALiveTermLetsNoOneLeadBeforeThatTermEnds() throws Exception {
    LeaderElector leader = twoCandidatesBothSeeingTheLeader();
    long transitions = readStored(namespace.name(), lockName).orElseThrow().transitions();

    writeForeignRecord(namespace.name(), lockName, "", 1, Instant.now(), transitions);

    Await.until(
        leader.identity() + "'s term ends",
        Duration.ofSeconds(5),
        () -> ended.contains(leader.identity() + ":" + TermEnd.LOCK_LOST));
    awaitOneLeader(Duration.ofSeconds(10));
    Await.until(
        "the next term is on the timeline",
        Duration.ofSeconds(5),
        () -> timeline.terms().size() == 2);
    timeline.assertNoOverlap();
  }

  @Test
  void editsOfAHeldLocksMetadataEndNoTerm() throws Exception {
    // Not a test of timings: with the shared ones (callTimeout 1 s, renewDeadline 2 s) one renewal
    // slower than a second on a loaded machine ends the term for a reason that is not the edits.
    // Longer deadlines keep what the test proves: an edit that the leader does not take in makes
    // its renewals conflict, which ends the term (LOCK_LOST) and keeps it from counting two
    // successful renewals. The leader still renews every retryPeriod.
    LeaderElector lone =
        start(
            config(newLock(admin, namespace.name(), lockName, "lone"), "lone")
                .leaseDuration(Duration.ofSeconds(15))
                .renewDeadline(Duration.ofSeconds(10))
                .build());
    Await.until("lone leads", Duration.ofSeconds(10), lone::isLeader);
    long token = lone.currentTerm().orElseThrow().fencingToken();
    for (int round = 1; round <= 3; round++) {
      editMetadata(namespace.name(), lockName, "edited", "round-" + round, null);
      awaitRenewals(lone, 2, Duration.ofSeconds(20));
    }
    // An operator naming the current leader as the preferred holder keeps it leading.
    editMetadata(namespace.name(), lockName, "edited", "preferred", "lone");
    awaitRenewals(lone, 2, Duration.ofSeconds(20));

    assertEquals(List.of(), ended, "terms ended");
    assertEquals(0, lone.stats().termsEnded(TermEnd.LOCK_LOST));
    assertEquals(token, lone.currentTerm().orElseThrow().fencingToken(), "one term throughout");
  }

  @Test
  void deletedLockIsRecreated() throws Exception {
    LeaderElector lone = candidate("lone");
    Await.until("lone leads", Duration.ofSeconds(10), lone::isLeader);

    deleteObject(namespace.name(), lockName);

    Await.until(
        "lone's term ends with the deletion",
        Duration.ofSeconds(5),
        () -> ended.contains("lone:" + TermEnd.LOCK_LOST));
    Await.until("lone leads again", Duration.ofSeconds(10), lone::isLeader);
    assertEquals("lone", readStored(namespace.name(), lockName).orElseThrow().holder());
  }

  /**
   * A follower that sees the lock deleted must not create it before the holder it last saw has
   * expired: the old leader only learns of the deletion at its next renewal.
   */
  @Test
  void deletedLockIsNotRetakenWhileTheOldLeaderMayStillLead() throws Exception {
    // Both have seen the record, so whoever recreates the lock continues its tokens. A candidate
    // that never saw the deleted record cannot (only its create was refused, say); it still waits
    // a lease, but its token starts again from 0 (DeletedLockTest covers that case).
    LeaderElector leader = twoCandidatesBothSeeingTheLeader();

    deleteObject(namespace.name(), lockName);

    Await.until(
        "the lock exists again",
        Duration.ofSeconds(10),
        () -> readStored(namespace.name(), lockName).isPresent());
    awaitOneLeader(Duration.ofSeconds(10));
    Await.until(
        "the old leader's term ended",
        Duration.ofSeconds(5),
        () -> ended.stream().anyMatch(e -> e.startsWith(leader.identity() + ":")));
    timeline.assertNoOverlap();
  }

  @Test
  void contentionNeverYieldsTwoLeaders() {
    for (int i = 0; i < 5; i++) {
      candidate("c" + i);
    }
    for (int round = 0; round < 3; round++) {
      LeaderElector leader = awaitOneLeader(Duration.ofSeconds(10));
      leader.close();
      electors.remove(leader);
      candidate("r" + round);
    }
    LeaderElector last = awaitOneLeader(Duration.ofSeconds(10));
    // The listener reports the term just after isLeader() turns true: wait for it on the timeline.
    Await.until(
        last.identity() + "'s term is on the timeline",
        Duration.ofSeconds(5),
        () ->
            timeline.terms().stream()
                .anyMatch(t -> t.open() && t.candidate().equals(last.identity())));
    assertTrue(timeline.terms().size() >= 4, "terms: " + timeline.terms());
    timeline.assertNoOverlap();
  }

  // ---------------------------------------------------------------- records written by others

  @Test
  void unexpiredForeignHolderIsNotDisplaced() throws Exception {
    writeForeignRecord(namespace.name(), lockName, "go-candidate", 30, Instant.now(), 4);
    // Polling, so that every look at the lock is a read it counts: each one is a decision.
    LeaderElector java =
        start(
            config(newLock(admin, namespace.name(), lockName, "java"), "java")
                .watchWhenFollowing(false)
                .build());

    Await.until(
        "java sees the Go holder",
        Duration.ofSeconds(5),
        () -> java.observedLeader().equals(Optional.of("go-candidate")));
    // Reads at least a retry period apart span more than java's own 3 s lease, within which a
    // candidate judging by its own duration instead of the holder's 30 s would have taken over.
    long spanning = LEASE.dividedBy(RETRY) + 2;
    await("java reads the lock " + spanning + " times")
        .atMost(Duration.ofSeconds(20))
        .until(() -> reads(java) >= spanning || java.stats().termsStarted() > 0);
    assertEquals(0, java.stats().termsStarted(), "java waits for the Go holder's 30 s lease");
    assertEquals(
        1,
        java.stats().calls(LockCall.ACQUIRE, CallOutcome.CONFLICT),
        "java's first look is a create, refused because the lock exists");
    assertEquals(
        1,
        java.stats().calls(LockCall.ACQUIRE)
            + java.stats().calls(LockCall.RENEW)
            + java.stats().calls(LockCall.RELEASE),
        "java never tried to write over the Go holder's record");
    assertEquals(
        new Stored("go-candidate", 4), readStored(namespace.name(), lockName).orElseThrow());
  }

  @Test
  void expiredForeignHolderIsTakenOverWithTransitionsIncremented() throws Exception {
    writeForeignRecord(
        namespace.name(), lockName, "go-candidate", 1, Instant.now().minusSeconds(3600), 7);
    LeaderElector java = candidate("java");

    Await.until("java takes over", Duration.ofSeconds(10), java::isLeader);

    assertEquals(new Stored("java", 8), readStored(namespace.name(), lockName).orElseThrow());
    assertEquals(8, java.currentTerm().orElseThrow().fencingToken());
  }

  // ---------------------------------------------------------------- figures

  @Test
  void callRatesWithPollingAndWatchingFollowers() {
    for (boolean watch : new boolean[] {false, true}) {
      timeline.assertNoOverlap();
      timeline = new LeadershipTimeline(MonotonicClock.system()); // one timeline per lock
      String name = lockName + (watch ? "-w" : "-p");
      List<LeaderElector> group = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        String id = (watch ? "w" : "p") + i;
        group.add(
            start(
                config(newLock(admin, namespace.name(), name, id), id)
                    .watchWhenFollowing(watch)
                    .build()));
      }
      Await.until(
          "one leader in " + name,
          Duration.ofSeconds(10),
          () -> group.stream().filter(LeaderElector::isLeader).count() == 1);
      Await.until(
          "all follow in " + name,
          Duration.ofSeconds(5),
          () -> group.stream().allMatch(e -> e.observedLeader().isPresent()));
      LeaderElector leader =
          group.stream().filter(LeaderElector::isLeader).findFirst().orElseThrow();
      List<LeaderElector> followers = group.stream().filter(e -> e != leader).toList();
      // Steady state: past the start-up calls (a follower whose create was refused before its
      // watch showed the holder reads once) and, when watching, with every watch delivering.
      awaitRenewals(leader, 2, Duration.ofSeconds(10));
      if (watch) {
        Await.until(
            "all followers watch in " + name,
            Duration.ofSeconds(5),
            () -> followers.stream().allMatch(e -> e.stats().watching()));
      }
      long before =
          followers.stream().map(LeaderElector::stats).mapToLong(ElectorStats::totalCalls).sum();
      String callsBefore = describeCalls(followers);
      int renewals = 10;
      awaitRenewals(leader, renewals, Duration.ofSeconds(30));
      long followerCalls =
          followers.stream().map(LeaderElector::stats).mapToLong(ElectorStats::totalCalls).sum()
              - before;

      assertEquals(
          1,
          group.stream().mapToLong(e -> e.stats().termsStarted()).sum(),
          "one term in " + name + " throughout");
      assertEquals(0, leader.stats().termsEnded());
      log.info(
          "FIGURE steady-state follower calls per leader renewal, 4 followers, {} ({}): {}",
          watch ? "watching" : "polling",
          getClass().getSimpleName(),
          String.format("%.2f", followerCalls / (double) renewals));
      // A polling follower reads once per jittered retry period plus a call's latency, the leader
      // renews once per retry period or per call latency, whichever is longer: each follower makes
      // at least 0.45 calls per renewal, so four make well over one. A watching follower makes
      // none while the watch delivers every renewal.
      if (watch) {
        assertTrue(
            followerCalls <= renewals / 2,
            "watching followers still called "
                + followerCalls
                + " times in "
                + renewals
                + " renewals; calls before "
                + callsBefore
                + ", after "
                + describeCalls(followers));
      } else {
        assertTrue(
            followerCalls >= renewals,
            "polling followers called only "
                + followerCalls
                + " times in "
                + renewals
                + " renewals");
      }
      for (LeaderElector elector : group) {
        elector.close();
        electors.remove(elector);
      }
    }
  }
}
