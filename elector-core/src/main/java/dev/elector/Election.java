package dev.elector;

import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.lock.WatchableLock;
import dev.elector.time.Cancellable;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The election loop of one candidate. Every step runs on the scheduler under this object's monitor
 * and never blocks: lock calls are asynchronous, their results come back as new steps, and
 * callbacks go to the callback executor.
 *
 * <p>Safety rests on three rules. (1) A candidate takes a lock only when it is free, held by itself,
 * or has not changed for the record's lease duration measured on the local monotonic clock from
 * when this candidate saw it change. (2) A leader's validity is counted from the start of its last
 * successful write, and it steps down when renewDeadline has passed since then, which is before any
 * other candidate can count the lease as expired. (3) Every write is conditional on the version
 * last seen, so of two racing candidates at most one wins.
 */
final class Election {
  private static final Logger log = LoggerFactory.getLogger(LeaderElector.class);
  private static final ThreadLocal<Election> IN_CALLBACK = new ThreadLocal<>();

  private enum Phase {
    WAITING_FOR_GATE,
    CANDIDATE,
    LEADER,
    CLOSING,
    CLOSED
  }

  /**
   * What this candidate last saw in the lock, and when it first saw it (monotonic). An absence is
   * {@code guarded} when this candidate has seen the lock exist before: someone deleted it, and a
   * holder this candidate never saw may still be leading, so it counts as taken for a lease.
   */
  private record Observation(
      String version, LeaderRecord record, String malformed, long seenAt, boolean guarded) {

    boolean absent() {
      return version == null;
    }

    boolean sameContent(LockRead read) {
      if (read instanceof LockRead.Found found) {
        return found.record().equals(record);
      }
      if (read instanceof LockRead.Malformed bad) {
        return record == null && bad.version().equals(version);
      }
      return absent();
    }
  }

  private final ElectorConfig config;
  private final LeaderLock lock;
  private final String identity;
  private final String subject;
  private final MonotonicClock clock;
  private final Clock wall;
  private final Scheduler scheduler;
  private final Executor callbackExecutor;
  private final SerialExecutor callbackQueue;
  private final LeaderCallbacks callbacks;
  private final ElectorListener listener;
  private final RandomGenerator random;
  private final SharedThreads shared;
  private final CallBudget budget;
  private final FailureLog failureLog;

  private final long leaseNanos;
  private final long renewDeadlineNanos;
  private final long retryNanos;
  private final long callTimeoutNanos;
  private final long maxBackoffNanos;
  private final long closeTimeoutNanos;
  private final long healthToleranceNanos;

  private final Map<LockCall, Map<CallOutcome, LongAdder>> calls = new EnumMap<>(LockCall.class);
  private final LongAdder deferredCalls = new LongAdder();
  private final LongAdder lateResults = new LongAdder();
  private final LongAdder termsStarted = new LongAdder();
  private final LongAdder termsEnded = new LongAdder();
  private final Map<TermEnd, LongAdder> termsEndedBy = new EnumMap<>(TermEnd.class);
  private final Map<CallPurpose, LongAdder> callsTimed = new EnumMap<>(CallPurpose.class);
  private final Map<CallPurpose, LongAdder> callNanos = new EnumMap<>(CallPurpose.class);
  private final CompletableFuture<Void> closed = new CompletableFuture<>();

  // All fields below are guarded by this.
  private Phase phase = Phase.WAITING_FOR_GATE;
  private boolean started;
  private boolean closeRequested;
  private String gateFailure;
  private Observation observed;
  private long highestTransitions = -1;
  private int consecutiveFailures;
  private LockFailure lastFailure;
  private long epoch;
  private boolean callInFlight;
  private LockCall callKind;
  /** The record of the last create or update issued, so a late result still says what it wrote. */
  private LeaderRecord writing;
  private long callSeq;
  private Cancellable callTimer;
  private Cancellable nextStep;
  private Cancellable deadlineTimer;
  private Cancellable closeTimer;
  private WatchableLock.Subscription watch;
  private boolean watchCurrent;
  /** Why the watch is interrupted, or null while it works (or there is none). */
  private LockFailure watchFailure;
  private Term term;
  private LeaderRecord ownRecord;
  private String ownVersion;
  private long validFrom;
  private boolean releaseStarted;
  private boolean lockSeenBefore;
  /** Whether the create without a read (see createUnseen) was tried. */
  private boolean createTried;
  private boolean awaitingStopCallback;

  // Read without the monitor by queries.
  private volatile Term currentTerm;
  private volatile String observedLeader;

  Election(ElectorConfig config) {
    this.config = config;
    this.lock = config.lock();
    this.identity = lock.identity();
    this.subject = lock.describe() + " [" + identity + "]";
    this.clock = config.clock();
    this.wall = config.wallClock();
    boolean needShared =
        config.scheduler().isEmpty() || config.callbackExecutor().isEmpty();
    this.shared = needShared ? SharedThreads.acquire() : null;
    this.scheduler = config.scheduler().orElseGet(() -> shared.scheduler);
    this.callbackExecutor = config.callbackExecutor().orElseGet(() -> shared.callbackExecutor());
    this.callbackQueue = new SerialExecutor(callbackExecutor);
    this.callbacks = config.callbacks();
    this.listener = config.listener();
    this.random = config.random().orElseGet(SplittableRandom::new);
    this.leaseNanos = Scheduler.toNanos(config.leaseDuration());
    this.renewDeadlineNanos = Scheduler.toNanos(config.renewDeadline());
    this.retryNanos = Scheduler.toNanos(config.retryPeriod());
    this.callTimeoutNanos = Scheduler.toNanos(config.callTimeout());
    this.maxBackoffNanos = Scheduler.toNanos(config.maxBackoff());
    this.closeTimeoutNanos = Scheduler.toNanos(config.closeTimeout());
    this.healthToleranceNanos = Scheduler.toNanos(config.healthTolerance());
    this.budget =
        new CallBudget(ElectorConfig.CALL_BURST, retryNanos / ElectorConfig.CALLS_PER_RETRY_PERIOD);
    this.failureLog = new FailureLog(log, subject);
    for (LockCall call : LockCall.values()) {
      Map<CallOutcome, LongAdder> byOutcome = new EnumMap<>(CallOutcome.class);
      for (CallOutcome outcome : CallOutcome.values()) {
        byOutcome.put(outcome, new LongAdder());
      }
      calls.put(call, byOutcome);
    }
    for (TermEnd reason : TermEnd.values()) {
      termsEndedBy.put(reason, new LongAdder());
    }
    for (CallPurpose purpose : CallPurpose.values()) {
      callsTimed.put(purpose, new LongAdder());
      callNanos.put(purpose, new LongAdder());
    }
  }

  // ---------------------------------------------------------------- lifecycle

  synchronized void start() {
    if (started) {
      throw new IllegalStateException(subject + " was already started");
    }
    if (closeRequested) {
      throw new IllegalStateException(subject + " is closed");
    }
    started = true;
    log.debug("{}: starting with {}", subject, config);
    CompletableFuture<?> gate = config.readinessGate().toCompletableFuture();
    if (gate.isDone() && !gate.isCompletedExceptionally()) {
      becomeCandidate(0);
    } else {
      log.info("{}: waiting for the readiness gate before taking part", subject);
      gate.whenComplete((ignored, error) -> execute(() -> onGate(error)));
    }
  }

  private synchronized void onGate(Throwable error) {
    if (phase != Phase.WAITING_FOR_GATE) {
      return;
    }
    if (error != null) {
      gateFailure = String.valueOf(error);
      log.error("{}: readiness gate failed, this candidate will not take part until restarted: {}",
          subject, error.toString());
      return;
    }
    becomeCandidate(0);
  }

  private void becomeCandidate(long delay) {
    phase = Phase.CANDIDATE;
    subscribe();
    scheduleStep(delay);
  }

  CompletableFuture<Void> closeAsync() {
    synchronized (this) {
      if (!closeRequested) {
        closeRequested = true;
        if (!started) {
          phase = Phase.CLOSED;
          releaseShared();
          closed.complete(null);
        } else {
          execute(this::beginClose);
        }
      }
    }
    return closed;
  }

  boolean closingFromOwnCallback() {
    return IN_CALLBACK.get() == this;
  }

  void awaitSharedThreadsStopped(long millis) {
    if (shared != null) {
      shared.awaitStopped(millis);
    }
  }

  private synchronized void beginClose() {
    if (phase == Phase.CLOSING || phase == Phase.CLOSED) {
      return;
    }
    cancel(nextStep);
    nextStep = null;
    boolean wasLeader = phase == Phase.LEADER;
    CompletableFuture<Void> stopDelivered =
        wasLeader ? stepDown(TermEnd.CLOSED) : CompletableFuture.completedFuture(null);
    phase = Phase.CLOSING;
    epoch++;
    awaitingStopCallback = true;
    closeTimer = scheduler.schedule(this::closeTimedOut, closeTimeoutNanos);
    stopDelivered.whenComplete((ignored, error) -> execute(this::stopCallbackReturned));
  }

  private synchronized void stopCallbackReturned() {
    awaitingStopCallback = false;
    releaseOrFinish();
  }

  private synchronized void closeTimedOut() {
    if (phase != Phase.CLOSING) {
      return;
    }
    log.warn("{}: close did not finish within closeTimeout {}; {}", subject, config.closeTimeout(),
        ownVersion != null && config.releaseOnClose()
            ? "the lock was not released and will expire after its lease duration"
            : "a stop callback may still be running");
    finish();
  }

  private void releaseOrFinish() {
    synchronized (this) {
      if (phase != Phase.CLOSING || releaseStarted || awaitingStopCallback) {
        return;
      }
      if (!config.releaseOnClose()) {
        finish();
        return;
      }
      if (callInFlight && callKind != LockCall.READ) {
        return; // the write may yet name us; its completion comes back here
      }
      if (ownVersion == null) {
        finish();
        return;
      }
      if (callInFlight) {
        return; // the call's completion comes back here
      }
      releaseStarted = true;
      release();
    }
  }

  private void release() {
    LeaderRecord base = ownRecord != null ? ownRecord : observed == null ? null : observed.record();
    if (base == null || ownVersion == null) {
      finish();
      return;
    }
    LeaderRecord released = base.released(wall.instant());
    String version = ownVersion;
    issueWrite(LockCall.UPDATE, () -> lock.update(version, released), this::onReleaseWrite);
  }

  private void onReleaseWrite(LockWrite result, long start) {
    if (result instanceof LockWrite.Written) {
      log.info("{}: released the lock", subject);
      ownVersion = null;
      finish();
    } else if (result instanceof LockWrite.Conflict) {
      issueRead(this::onReleaseRead);
    } else {
      LockFailure failure = ((LockWrite.Failed) result).failure();
      failureLog.failure("release", failure, clock.nanos(), "Retrying until closeTimeout.");
      scheduleStep(retryNanos / 2);
    }
  }

  private void onReleaseRead(LockRead result, long start) {
    if (result instanceof LockRead.Found found && found.record().isHeldBy(identity)) {
      ownVersion = found.version();
      ownRecord = found.record();
      release();
    } else if (result instanceof LockRead.Failed failed) {
      failureLog.failure("release", failed.failure(), clock.nanos(), "Retrying until closeTimeout.");
      scheduleStep(retryNanos / 2);
    } else {
      ownVersion = null;
      finish(); // no longer ours: nothing to release
    }
  }

  private void finish() {
    if (phase == Phase.CLOSED) {
      return;
    }
    phase = Phase.CLOSED;
    epoch++;
    cancel(nextStep);
    cancel(closeTimer);
    cancel(deadlineTimer);
    cancel(callTimer);
    nextStep = null;
    // Only now: ending a watch stream stalls the next requests on its HTTP/2 connection (about
    // 40 ms with client-java's OkHttp), which must not delay the release.
    unsubscribe();
    log.debug("{}: closed", subject);
    releaseShared();
    closed.complete(null);
  }

  private void releaseShared() {
    if (shared != null) {
      shared.release();
    }
  }

  // ---------------------------------------------------------------- stepping

  private void scheduleStep(long delayNanos) {
    cancel(nextStep);
    nextStep = scheduler.schedule(this::runStep, delayNanos);
  }

  private synchronized void runStep() {
    nextStep = null;
    if (callInFlight) {
      return; // the call's completion schedules the next step
    }
    switch (phase) {
      case CANDIDATE:
        candidateStep();
        break;
      case LEADER:
        renewStep();
        break;
      case CLOSING:
        if (releaseStarted) {
          release();
        }
        break;
      default:
        break;
    }
  }

  private void candidateStep() {
    long now = clock.nanos();
    if (watchCurrent && observed != null && mayAcquire(observed, now)) {
      acquire(now);
    } else if (observed == null && !lockSeenBefore && !createTried) {
      createUnseen();
    } else {
      issueRead(this::onCandidateRead);
    }
  }

  /**
   * Nothing seen yet: a create succeeds only where the lock is absent, and a read showing it absent
   * would let this candidate create at once, so the read is skipped. Anything but success reads at
   * once, and the read decides as if no create had been tried.
   */
  private void createUnseen() {
    createTried = true;
    var nowWall = wall.instant();
    LeaderRecord record = new LeaderRecord(identity, config.leaseDuration(), nowWall, nowWall,
        Math.max(highestTransitions, -1) + 1);
    writing = record;
    issueWrite(LockCall.CREATE, () -> lock.create(record), (result, start) -> {
      if (result instanceof LockWrite.Written) {
        onAcquireWrite(result, start, record);
      } else {
        issueRead(this::onCandidateRead);
      }
    });
  }

  private void onCandidateRead(LockRead result, long start) {
    long now = clock.nanos();
    if (result instanceof LockRead.Failed failed) {
      failed(failed.failure(), "read", now, "Retrying with back-off.");
      return;
    }
    observe(result, now);
    if (mayAcquire(observed, now)) {
      // Not progress yet: only the write decides. Keeping the streak makes a write that keeps
      // failing after good reads (an identity that may read but not write) back off all the same.
      acquire(now);
    } else {
      failureLog.success("read");
      consecutiveFailures = 0;
      scheduleStep(untilNextLook(now));
    }
  }

  private void acquire(long now) {
    Observation seen = observed;
    long token = Math.max(highestTransitions, seen.record() == null ? -1
        : seen.record().leaderTransitions()) + 1;
    var nowWall = wall.instant();
    LeaderRecord record = new LeaderRecord(identity, config.leaseDuration(), nowWall, nowWall, token);
    writing = record;
    if (seen.absent()) {
      log.debug("{}: lock is absent, creating it", subject);
      issueWrite(LockCall.CREATE, () -> lock.create(record),
          (result, start) -> onAcquireWrite(result, start, record));
    } else {
      log.debug("{}: trying to acquire (holder was {})", subject, describeHolder(seen));
      String version = seen.version();
      issueWrite(LockCall.UPDATE, () -> lock.update(version, record),
          (result, start) -> onAcquireWrite(result, start, record));
    }
  }

  private void onAcquireWrite(LockWrite result, long start, LeaderRecord record) {
    long now = clock.nanos();
    if (result instanceof LockWrite.Written written) {
      failureLog.success("acquire");
      becomeLeader(record, written.version(), start, now);
    } else if (result instanceof LockWrite.Conflict conflict) {
      failureLog.success("acquire");
      consecutiveFailures = 0;
      log.debug("{}: another candidate got there first ({})", subject, conflict.detail());
      watchCurrent = false; // our view was stale: read before the next decision
      scheduleStep(jitteredRetry());
    } else {
      failed(((LockWrite.Failed) result).failure(), "acquire", now, "Retrying with back-off.");
    }
  }

  private void becomeLeader(LeaderRecord record, String version, long start, long now) {
    phase = Phase.LEADER;
    epoch++;
    consecutiveFailures = 0;
    ownRecord = record;
    ownVersion = version;
    validFrom = start;
    highestTransitions = Math.max(highestTransitions, record.leaderTransitions());
    observe(new LockRead.Found(version, record), now);
    Term newTerm =
        new Term(identity, lock.describe(), record.leaderTransitions(), record.acquireTime(),
            callbackExecutor, clock, start + renewDeadlineNanos);
    term = newTerm;
    currentTerm = newTerm;
    termsStarted.increment();
    log.info("{}: started leading (term {})", subject, newTerm.fencingToken());
    notifyListener(l -> l.onTermStarted(newTerm));
    dispatch("onStartedLeading", () -> callbacks.onStartedLeading(newTerm));
    armDeadline(now);
    scheduleStep(Math.max(0, start + retryNanos - now));
  }

  private void renewStep() {
    long now = clock.nanos();
    if (now - validFrom >= renewDeadlineNanos) {
      deadlineExceeded();
      return;
    }
    LeaderRecord renewed = ownRecord.withRenewTime(wall.instant());
    writing = renewed;
    String version = ownVersion;
    issueWrite(LockCall.UPDATE, () -> lock.update(version, renewed),
        (result, start) -> onRenewWrite(result, start, renewed));
  }

  private void onRenewWrite(LockWrite result, long start, LeaderRecord renewed) {
    long now = clock.nanos();
    if (result instanceof LockWrite.Written written) {
      failureLog.success("renew");
      ownRecord = renewed;
      ownVersion = written.version();
      validFrom = start;
      term.extend(start + renewDeadlineNanos);
      observe(new LockRead.Found(written.version(), renewed), now);
      armDeadline(now);
      scheduleStep(Math.max(0, start + retryNanos - now));
    } else if (result instanceof LockWrite.Conflict conflict) {
      // Someone else wrote the lock. Verifying first could be delayed (budget, errors), so the
      // term ends now; if a read shows the record is still ours, a new term starts after a write.
      log.debug("{}: renew conflicted ({}); stepping down and reading the lock", subject,
          conflict.detail());
      ownRecord = null;
      stepDown(TermEnd.LOCK_LOST);
      watchCurrent = false;
      becomeCandidate(0);
    } else {
      LockFailure failure = ((LockWrite.Failed) result).failure();
      long left = validFrom + renewDeadlineNanos - now;
      failureLog.failure("renew", failure, now, "Stepping down in " + Duration.ofNanos(left)
          + " unless a renewal succeeds.");
      scheduleStep(Math.min(retryNanos, Math.max(0, left)));
    }
  }

  private boolean isOurTerm(LeaderRecord record) {
    return record.isHeldBy(identity)
        && record.leaderTransitions() == ownRecord.leaderTransitions();
  }

  private void armDeadline(long now) {
    cancel(deadlineTimer);
    deadlineTimer = scheduler.schedule(this::onDeadline, validFrom + renewDeadlineNanos - now);
  }

  private synchronized void onDeadline() {
    if (phase != Phase.LEADER) {
      return;
    }
    long now = clock.nanos();
    if (now - validFrom >= renewDeadlineNanos) {
      deadlineExceeded();
    } else {
      armDeadline(now);
    }
  }

  private void deadlineExceeded() {
    log.error("{}: lost leadership: no successful renewal within renewDeadline {}", subject,
        config.renewDeadline());
    stepDown(TermEnd.RENEW_DEADLINE_EXCEEDED);
    consecutiveFailures = Math.max(consecutiveFailures, 1);
    becomeCandidate(backoff());
  }

  /** Ends the current term; returns a future that completes once onStoppedLeading has returned. */
  private CompletableFuture<Void> stepDown(TermEnd reason) {
    Term ended = term;
    term = null;
    currentTerm = null;
    phase = Phase.CANDIDATE;
    epoch++;
    cancel(deadlineTimer);
    cancel(nextStep);
    nextStep = null;
    ended.end(reason);
    termsEnded.increment();
    termsEndedBy.get(reason).increment();
    if (reason == TermEnd.CLOSED) {
      log.info("{}: stopped leading (term {}): closing", subject, ended.fencingToken());
    } else if (reason != TermEnd.RENEW_DEADLINE_EXCEEDED) {
      log.warn("{}: stopped leading (term {}): {}", subject, ended.fencingToken(), reason);
    }
    notifyListener(l -> l.onTermEnded(ended, reason));
    return dispatch("onStoppedLeading", () -> callbacks.onStoppedLeading(ended, reason));
  }

  private void failed(LockFailure failure, String action, long now, String consequence) {
    consecutiveFailures++;
    lastFailure = failure;
    failureLog.failure(action, failure, now, consequence);
    watchCurrent = false;
    scheduleStep(backoff());
  }

  // ---------------------------------------------------------------- observing

  private void observe(LockRead result, long now) {
    if (observed != null && observed.sameContent(result)) {
      if (result instanceof LockRead.Found found) {
        observed = new Observation(found.version(), found.record(), null, observed.seenAt(),
            false);
      }
      return;
    }
    String previousHolder = observed == null ? null : holderOf(observed);
    if (result instanceof LockRead.Found found) {
      observed = new Observation(found.version(), found.record(), null, now, false);
      lockSeenBefore = true;
      highestTransitions = Math.max(highestTransitions, found.record().leaderTransitions());
      found.record().durationProblem().ifPresent(problem ->
          log.warn("{}: {}; judging its expiry with this candidate's leaseDuration {}. Fix the"
              + " writer of this record.", subject, problem, config.leaseDuration()));
      if (found.record().leaseDuration() != null
          && found.record().leaseDuration().compareTo(config.leaseDuration().multipliedBy(10)) > 0
          && !found.record().isHeldBy(identity)) {
        log.warn("{}: holder {} wrote a lease duration of {}; it is honoured, so no other candidate"
            + " can lead until it expires", subject, found.record().holderIdentity(),
            found.record().leaseDuration());
      }
    } else if (result instanceof LockRead.Malformed bad) {
      observed = new Observation(bad.version(), null, bad.problem(), now, false);
      lockSeenBefore = true;
      log.warn("{}: the lock holds a record that cannot be read ({}); treating it as held by an"
          + " unknown holder until it has not changed for {}", subject, bad.problem(),
          config.leaseDuration());
    } else {
      observed = new Observation(null, null, null, now, lockSeenBefore);
      if (lockSeenBefore) {
        log.info("{}: the lock was deleted; recreating it only after leaseDuration {}, since a"
            + " holder this candidate did not see may still be leading", subject,
            config.leaseDuration());
      }
    }
    String holder = holderOf(observed);
    if (!Objects.equals(previousHolder, holder)) {
      observedLeader = holder.isEmpty() ? null : holder;
      notifyListener(l -> l.onLeaderObserved(holder));
      if (!holder.isEmpty()) {
        dispatch("onNewLeader", () -> callbacks.onNewLeader(holder));
      }
    }
  }

  private static String holderOf(Observation o) {
    return o.record() == null ? "" : o.record().holderIdentity();
  }

  private static String describeHolder(Observation o) {
    if (o.malformed() != null) {
      return "unreadable";
    }
    String holder = holderOf(o);
    return holder.isEmpty() ? "nobody" : holder;
  }

  private boolean mayAcquire(Observation o, long now) {
    LeaderRecord record = o.record();
    if (record != null && (record.isReleased() || record.isHeldBy(identity))) {
      return true;
    }
    return now - expiresAt(o) >= 0;
  }

  private long expiresAt(Observation o) {
    if (o.absent()) {
      return o.guarded() ? o.seenAt() + leaseNanos : o.seenAt();
    }
    long at = o.seenAt() + effectiveLease(o.record());
    return at < o.seenAt() ? Long.MAX_VALUE : at;
  }

  /**
   * The record's lease duration, but never shorter than ours: a record that names a short lease
   * (an outside writer's, or one without a valid duration) may have replaced a live holder that this
   * candidate never saw, and that holder steps down only within our own timings.
   */
  private long effectiveLease(LeaderRecord record) {
    if (record == null || record.durationProblem().isPresent()) {
      return leaseNanos;
    }
    return Math.max(leaseNanos, Scheduler.toNanos(record.leaseDuration()));
  }

  private long untilNextLook(long now) {
    long untilExpiry = Math.max(0, expiresAt(observed) - now);
    long poll = watchCurrent ? Long.MAX_VALUE : jitteredRetry();
    return Math.min(untilExpiry, poll);
  }

  // ---------------------------------------------------------------- watching

  private void subscribe() {
    if (watch != null || !config.watchWhenFollowing() || !(lock instanceof WatchableLock)) {
      return;
    }
    try {
      watch = ((WatchableLock) lock).watch(event -> execute(() -> onWatchEvent(event)));
      log.debug("{}: watching the lock", subject);
    } catch (RuntimeException e) {
      log.warn("{}: could not watch the lock, polling instead: {}", subject, e.toString());
    }
  }

  private void unsubscribe() {
    if (watch != null) {
      try {
        watch.close();
      } catch (RuntimeException e) {
        log.debug("{}: closing the watch failed: {}", subject, e.toString());
      }
      watch = null;
    }
    watchCurrent = false;
    watchFailure = null;
  }

  private synchronized void onWatchEvent(LockRead event) {
    long now = clock.nanos();
    if (event instanceof LockRead.Failed failed) {
      watchCurrent = false;
      watchFailure = failed.failure();
      log.debug("{}: watch interrupted ({}), polling until it resumes", subject, failed.failure());
      if (phase == Phase.CANDIDATE && !callInFlight) {
        scheduleStep(jitteredRetry());
      }
      return;
    }
    watchFailure = null;
    switch (phase) {
      case CANDIDATE:
        observe(event, now);
        watchCurrent = true;
        if (!callInFlight && mayAcquire(observed, now)) {
          cancel(nextStep); // act on the event now, not one scheduler hop later
          nextStep = null;
          candidateStep();
        } else if (!callInFlight) {
          scheduleStep(untilNextLook(now));
        }
        break;
      case LEADER:
        if (event instanceof LockRead.Found found) {
          highestTransitions = Math.max(highestTransitions, found.record().leaderTransitions());
          if (isOurTerm(found.record())) {
            return; // our own write
          }
        }
        // The event may be stale (queued before our own write): renew at once and let the
        // conditional write decide. A foreign write makes it conflict, and we step down.
        log.debug("{}: watch shows a change by someone else; renewing now to check", subject);
        if (!callInFlight) {
          scheduleStep(0);
        }
        break;
      default:
        break;
    }
  }

  // ---------------------------------------------------------------- calls

  @FunctionalInterface
  private interface Handler<T> {
    void handle(T result, long startNanos);
  }

  private void issueRead(Handler<LockRead> handler) {
    issue(LockCall.READ, lock::read, LockRead.Failed::new, handler);
  }

  private void issueWrite(
      LockCall kind, Supplier<CompletionStage<LockWrite>> op, Handler<LockWrite> handler) {
    issue(kind, op, LockWrite.Failed::new, handler);
  }

  private <T> void issue(
      LockCall kind,
      Supplier<CompletionStage<T>> op,
      Function<LockFailure, T> failure,
      Handler<T> handler) {
    long now = clock.nanos();
    long wait = budget.tryAcquire(now);
    if (wait > 0) {
      deferredCalls.increment();
      Duration waitDuration = Duration.ofNanos(wait);
      notifyListener(l -> l.onCallDeferred(waitDuration));
      log.debug("{}: call budget spent, waiting {}", subject, waitDuration);
      scheduleStep(wait);
      return;
    }
    long seq = ++callSeq;
    long callEpoch = epoch;
    CallPurpose purpose = purposeOf(kind);
    callInFlight = true;
    callKind = kind;
    callTimer = scheduler.schedule(
        () -> complete(seq, callEpoch, kind, purpose, now, failure.apply(LockFailure.of(
            LockFailure.Kind.TIMEOUT, kind + " took longer than callTimeout "
                + config.callTimeout())), true, handler),
        callTimeoutNanos);
    CompletionStage<T> stage;
    try {
      stage = Objects.requireNonNull(op.get(), "the lock returned a null stage");
    } catch (RuntimeException e) {
      stage = CompletableFuture.completedFuture(failure.apply(unexpected(e)));
    }
    stage.whenComplete((value, error) -> {
      T result = error != null ? failure.apply(unexpected(error))
          : value == null ? failure.apply(LockFailure.of(LockFailure.Kind.UNEXPECTED,
              "the lock completed " + kind + " with null")) : value;
      execute(() -> complete(seq, callEpoch, kind, purpose, now, result, false, handler));
    });
  }

  private synchronized <T> void complete(
      long seq, long callEpoch, LockCall kind, CallPurpose purpose, long start, T result,
      boolean timedOut, Handler<T> handler) {
    if (!callInFlight || seq != callSeq) {
      if (!timedOut) {
        lateResults.increment();
      }
      return;
    }
    callInFlight = false;
    cancel(callTimer);
    long now = clock.nanos();
    CallOutcome outcome = outcomeOf(result, timedOut);
    calls.get(kind).get(outcome).increment();
    Duration latency = Duration.ofNanos(now - start);
    callsTimed.get(purpose).increment();
    callNanos.get(purpose).add(now - start);
    notifyListener(l -> l.onLockCall(kind, outcome, latency));
    if (phase == Phase.CLOSED) {
      return;
    }
    if (callEpoch != epoch) {
      // Issued in an earlier phase (for example a renew still in flight at step-down).
      if (result instanceof LockWrite.Written written) {
        ownVersion = written.version(); // the record there names us; close may release it
        ownRecord = writing; // and its token is the one to keep in the release
      }
      if (phase == Phase.CLOSING) {
        releaseOrFinish();
      } else if (nextStep == null) {
        scheduleStep(phase == Phase.LEADER ? 0 : jitteredRetry());
      }
      return;
    }
    handler.handle(result, start);
  }

  /** What a call issued now is for: the phase tells an acquire from a renewal or a release. */
  private CallPurpose purposeOf(LockCall kind) {
    if (kind == LockCall.READ) {
      return CallPurpose.READ;
    }
    return phase == Phase.LEADER ? CallPurpose.RENEW
        : phase == Phase.CLOSING ? CallPurpose.RELEASE : CallPurpose.ACQUIRE;
  }

  private static CallOutcome outcomeOf(Object result, boolean timedOut) {
    if (timedOut) {
      return CallOutcome.TIMEOUT;
    }
    if (result instanceof LockRead.Found || result instanceof LockWrite.Written) {
      return CallOutcome.OK;
    }
    if (result instanceof LockRead.Absent) {
      return CallOutcome.ABSENT;
    }
    if (result instanceof LockRead.Malformed) {
      return CallOutcome.MALFORMED;
    }
    if (result instanceof LockWrite.Conflict) {
      return CallOutcome.CONFLICT;
    }
    LockFailure failure = result instanceof LockRead.Failed f ? f.failure()
        : ((LockWrite.Failed) result).failure();
    return failure.kind() == LockFailure.Kind.TIMEOUT ? CallOutcome.TIMEOUT : CallOutcome.FAILED;
  }

  private static LockFailure unexpected(Throwable error) {
    Throwable cause = error instanceof java.util.concurrent.CompletionException
        && error.getCause() != null ? error.getCause() : error;
    return new LockFailure(LockFailure.Kind.UNEXPECTED, String.valueOf(cause), cause);
  }

  // ---------------------------------------------------------------- timing

  private long jitteredRetry() {
    double factor = 1.0 + random.nextDouble() * (config.jitter() - 1.0);
    return (long) (retryNanos * factor);
  }

  /** min(maxBackoff, retryPeriod × 2^(n-1)) × U[1, jitter] for the n-th consecutive failure. */
  private long backoff() {
    int exponent = Math.min(Math.max(consecutiveFailures - 1, 0), 30);
    long base = retryNanos << exponent;
    if (base <= 0 || base > maxBackoffNanos) {
      base = maxBackoffNanos;
    }
    double factor = 1.0 + random.nextDouble() * (config.jitter() - 1.0);
    return (long) (base * factor);
  }

  // ---------------------------------------------------------------- callbacks

  private CompletableFuture<Void> dispatch(String name, Runnable callback) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    callbackQueue.execute(() -> {
      IN_CALLBACK.set(this);
      try {
        callback.run();
      } catch (RuntimeException | Error e) {
        log.error("{}: callback {} threw; the election goes on", subject, name, e);
      } finally {
        IN_CALLBACK.remove();
        done.complete(null);
      }
    });
    return done;
  }

  private void notifyListener(Consumer<ElectorListener> event) {
    try {
      event.accept(listener);
    } catch (RuntimeException e) {
      log.warn("{}: listener threw; ignored", subject, e);
    }
  }

  private void execute(Runnable task) {
    try {
      scheduler.execute(task);
    } catch (RejectedExecutionException e) {
      log.debug("{}: scheduler stopped, dropping a step", subject);
    }
  }

  private static void cancel(Cancellable task) {
    if (task != null) {
      task.cancel();
    }
  }

  // ---------------------------------------------------------------- queries

  String identity() {
    return identity;
  }

  long closeTimeoutMillis() {
    return config.closeTimeout().toMillis();
  }

  String describe() {
    return lock.describe();
  }

  Optional<Term> currentTerm() {
    return Optional.ofNullable(currentTerm);
  }

  Optional<String> observedLeader() {
    return Optional.ofNullable(observedLeader);
  }

  synchronized ElectorHealth health() {
    long now = clock.nanos();
    switch (phase) {
      case WAITING_FOR_GATE:
        return gateFailure != null
            ? new ElectorHealth(false, subject + ": readiness gate failed: " + gateFailure)
            : new ElectorHealth(true, subject + ": waiting for the readiness gate");
      case LEADER:
        long since = now - validFrom;
        if (since > leaseNanos + healthToleranceNanos) {
          return new ElectorHealth(false, subject + ": leading but not renewed for "
              + Duration.ofNanos(since) + ", past leaseDuration " + config.leaseDuration()
              + " + tolerance " + config.healthTolerance()
              + "; the elector's threads may be stalled");
        }
        return new ElectorHealth(true, subject + ": leading, renewed " + Duration.ofNanos(since)
            + " ago");
      case CANDIDATE:
        return new ElectorHealth(true, subject + ": following "
            + (observed == null ? "(lock not read yet)" : describeHolder(observed))
            + (consecutiveFailures > 0 ? ", " + consecutiveFailures + " failures in a row, the"
                + " last: " + lastFailure : "") + watchState());
      default:
        return new ElectorHealth(false, subject + ": closed");
    }
  }

  /** How a follower learns of changes, for its health detail. */
  private String watchState() {
    if (watch == null) {
      return "";
    }
    return watchFailure == null ? "; watching the lock"
        : "; polling while the watch is interrupted: " + watchFailure;
  }

  ElectorStats stats() {
    Map<LockCall, Map<CallOutcome, Long>> snapshot = new EnumMap<>(LockCall.class);
    calls.forEach((call, byOutcome) -> {
      Map<CallOutcome, Long> counts = new EnumMap<>(CallOutcome.class);
      byOutcome.forEach((outcome, adder) -> counts.put(outcome, adder.sum()));
      snapshot.put(call, counts);
    });
    Map<CallPurpose, ElectorStats.CallTime> latency = new EnumMap<>(CallPurpose.class);
    callsTimed.forEach((purpose, count) -> latency.put(purpose,
        new ElectorStats.CallTime(count.sum(), callNanos.get(purpose).sum())));
    Map<TermEnd, Long> endedBy = new EnumMap<>(TermEnd.class);
    termsEndedBy.forEach((reason, count) -> endedBy.put(reason, count.sum()));
    ElectorStats.Following following;
    int failures;
    synchronized (this) { // a few field reads; steps never block while holding the monitor
      following = following();
      failures = consecutiveFailures;
    }
    return new ElectorStats(snapshot, deferredCalls.sum(), lateResults.sum(), termsStarted.sum(),
        termsEnded.sum(), currentTerm != null, observedLeader(), latency, endedBy, following,
        failures);
  }

  private ElectorStats.Following following() {
    if (phase != Phase.CANDIDATE) {
      return ElectorStats.Following.NONE;
    }
    return watch != null && watchFailure == null ? ElectorStats.Following.WATCHING
        : ElectorStats.Following.POLLING;
  }
}
