package dev.elector;

import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.time.MonotonicClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The election loop of one candidate, in the order of a term's life: wait for the readiness gate,
 * observe the lock, acquire it, lead and renew, step down, release, close. Every step runs on the
 * scheduler under this object's monitor and never blocks: lock calls are asynchronous, their
 * results come back as new steps, and callbacks go to the callback executor.
 *
 * <p>Safety rests on three rules. (1) A candidate takes a lock only when it is free, held by
 * itself, or has not changed for the record's lease duration measured on the local monotonic clock
 * from when this candidate saw it change ({@link TakeoverRule}). (2) A leader's validity is counted
 * from the start of its last successful write, and it steps down when renewDeadline has passed
 * since then, which is before any other candidate can count the lease as expired. (3) Every write
 * is conditional on the version last seen, so of two racing candidates at most one wins.
 *
 * <p>This class is the policy: the state of each phase is one {@link Phase} value, the decisions
 * are pure functions ({@link TakeoverRule}, {@link Backoff}, {@link CallBudget}), and the mechanism
 * (steps, timers, calls) is the {@link ElectionLoop} it owns.
 */
final class Election {
  private static final org.slf4j.Logger log = ElectionLoop.log;

  private final ElectionLoop loop;
  private final Object monitor;
  private final ElectorConfig config;
  private final LeaderLock lock;
  private final String identity;
  private final String subject;
  private final MonotonicClock clock;
  private final Clock wall;
  private final LeaderCallbacks callbacks;
  private final Timings timings;
  private final FailureLog failureLog;
  private final ElectionCounters counters;
  private final Dispatcher dispatcher;
  private final LockView view;
  private final LockWatching watching;
  private final Health health;

  /**
   * Watch events in the order the watch delivered them: the scheduler may run two tasks on two
   * threads, and an older event taken in after a newer one would turn the view back.
   */
  private final SerialExecutor watchEvents;

  // Guarded by monitor.
  private boolean started;
  private boolean closeRequested;
  private int consecutiveFailures;
  private @Nullable LockFailure lastFailure;

  /** Watch events taken in while following; a read answered after one of them may be older. */
  private long watchEventsSeen;

  /** Whether the first look, a create without a read (see followStep), was taken. */
  private boolean createTried;

  /** Written under the monitor; read without it by the queries, the current term among them. */
  private volatile Phase phase = new Phase.AwaitingGate(null);

  Election(ElectorConfig config) {
    this.loop = new ElectionLoop(config);
    this.monitor = loop.monitor;
    this.config = config;
    this.lock = loop.lock;
    this.identity = loop.identity;
    this.subject = loop.subject;
    this.clock = loop.clock;
    this.wall = loop.wall;
    this.callbacks = config.callbacks();
    this.timings = loop.timings;
    this.failureLog = new FailureLog(log, subject);
    this.counters = loop.counters;
    this.dispatcher = loop.dispatcher;
    TakeoverRule rule = new TakeoverRule(identity, timings.lease());
    this.view =
        new LockView(rule, identity, subject, config.leaseDuration(), dispatcher, callbacks, log);
    this.watching = loop.watching;
    this.health = new Health(subject, timings, config.leaseDuration(), config.healthTolerance());
    this.watchEvents = new SerialExecutor(loop::execute);
  }

  // ---------------------------------------------------------------- start and finish

  void start() {
    synchronized (monitor) {
      if (started) {
        throw new IllegalStateException(subject + " was already started");
      }
      if (closeRequested) {
        throw new IllegalStateException(subject + " is closed");
      }
      started = true;
      log.debug("{}: starting with {}", subject, config);
      loop.bind(new Hooks());
      begin();
    }
  }

  CompletableFuture<Void> closeAsync() {
    synchronized (monitor) {
      if (!closeRequested) {
        closeRequested = true;
        if (!started) {
          phase = new Phase.Closed();
          loop.releaseShared();
          loop.closed.complete(null);
        } else {
          loop.executeLocked(this::beginClose);
        }
      }
    }
    return loop.closed;
  }

  /** Stops everything and completes the close; idempotent. */
  private void finish() {
    if (phase instanceof Phase.Closed) {
      return;
    }
    phase = new Phase.Closed();
    loop.finish();
  }

  /** What the loop calls back. */
  private final class Hooks implements ElectionLoop.Policy {
    @Override
    public void step() {
      Election.this.step();
    }

    @Override
    public void deadlineDue() {
      onDeadline();
    }

    @Override
    public void closeTimedOut() {
      Election.this.closeTimedOut();
    }

    @Override
    public void answeredEarlierPhase(LockCaller.Call call, CallAnswer answer) {
      Election.this.answeredEarlierPhase(call, answer);
    }
  }

  /** Counts a failed call and backs off; the view may be stale, so the next step reads. */
  private void failed(LockFailure failure, String action, long now, String consequence) {
    consecutiveFailures++;
    lastFailure = failure;
    failureLog.failure(action, failure, now, consequence);
    watching.markStale();
    loop.scheduleStep(loop.failureDelay(consecutiveFailures));
  }

  private void read(ElectionLoop.Handler<LockRead> handler) {
    loop.read(CallPurpose.READ, handler);
  }

  /** Writes {@code writing} with {@code op}; a release writes no record of its own (null). */
  private void write(
      LockCall kind,
      @Nullable LeaderRecord writing,
      Supplier<CompletionStage<LockWrite>> op,
      ElectionLoop.Handler<LockWrite> handler) {
    CallPurpose purpose =
        phase instanceof Phase.Leading
            ? CallPurpose.RENEW
            : Phase.closing(phase) ? CallPurpose.RELEASE : CallPurpose.ACQUIRE;
    loop.write(kind, writing, purpose, op, handler);
  }

  // ---------------------------------------------------------------- 1. wait for the gate

  private void begin() {
    CompletableFuture<?> gate = config.readinessGate().toCompletableFuture();
    if (gate.isDone() && !gate.isCompletedExceptionally()) {
      follow(null, 0);
    } else {
      log.info("{}: waiting for the readiness gate before taking part", subject);
      // onGate handles the gate's outcome; the stage whenComplete returns adds nothing to it.
      var unused = gate.whenComplete((ignored, error) -> loop.executeLocked(() -> onGate(error)));
    }
  }

  private void onGate(Throwable error) {
    if (!(phase instanceof Phase.AwaitingGate)) {
      return;
    }
    if (error != null) {
      phase = new Phase.AwaitingGate(String.valueOf(error));
      log.error(
          "{}: readiness gate failed, this candidate will not take part until restarted: {}",
          subject,
          error.toString());
      return;
    }
    follow(null, 0);
  }

  // ---------------------------------------------------------------- 2. observe

  /** Follows the lock, keeping {@code claim} for close, and takes the next look after a delay. */
  private void follow(Phase.@Nullable Claim claim, long delay) {
    phase = new Phase.Following(claim);
    watching.open(
        lock,
        config.watchWhenFollowing(),
        event -> watchEvents.execute(() -> locked(() -> onWatchEvent(event))));
    loop.scheduleStep(delay);
  }

  private void followStep() {
    long now = clock.nanos();
    Observation seen = view.current();
    if (watching.current() && seen != null && view.mayTake(seen, now)) {
      acquire(seen);
    } else if (seen == null && !createTried && !view.holdingOff(now)) {
      // Nothing seen yet: a create succeeds only where the lock is absent, where a read would
      // only have let this candidate create it, so the first look is a create. A refusal counts
      // as a holder seen, and anything but success reads at once.
      createTried = true;
      acquire(null);
    } else {
      long eventsBefore = watchEventsSeen;
      read((result, start) -> onFollowerRead(result, eventsBefore));
    }
  }

  private void onFollowerRead(LockRead result, long eventsBefore) {
    long now = clock.nanos();
    if (result instanceof LockRead.Failed failed) {
      failed(failed.failure(), "read", now, "Retrying with back-off.");
      return;
    }
    // A watch event taken in while this read was on its way may be newer than the read, which
    // would then undo it (a release forgotten, an expiry restarted). The watch is current, and
    // it shows any later change too, so the read adds nothing.
    Observation seen = view.current();
    if (watchEventsSeen == eventsBefore || seen == null) {
      seen = view.see(result, now);
    }
    decide(seen, now, "read");
  }

  /** Takes the lock as {@code seen} if it may, or waits for the next look after a good call. */
  private void decide(Observation seen, long now, String call) {
    if (releaseOnRequest(seen, now)) {
      return;
    }
    if (view.mayTake(seen, now)) {
      // Not progress yet: only the write decides. Keeping the streak makes a write that keeps
      // failing after good reads (an identity that may read but not write) back off all the same.
      acquire(seen);
    } else {
      failureLog.success(call);
      consecutiveFailures = 0;
      loop.scheduleStep(untilNextLook(seen, now));
    }
  }

  private void onWatchEvent(LockRead event) {
    long now = clock.nanos();
    if (event instanceof LockRead.Failed failed) {
      watching.interrupted(failed.failure());
      log.debug("{}: watch interrupted ({}), polling until it resumes", subject, failed.failure());
      if (phase instanceof Phase.Following && !loop.callInFlight()) {
        loop.scheduleStep(loop.retryDelay());
      }
      return;
    }
    watching.resumed();
    if (phase instanceof Phase.Following) {
      watchEventsSeen++;
      Observation seen = view.see(event, now);
      watching.markCurrent();
      if (!loop.callInFlight() && releaseOnRequest(seen, now)) {
        loop.cancelStep();
        return;
      }
      if (!loop.callInFlight() && view.mayTake(seen, now)) {
        loop.cancelStep(); // act on the event now, not one scheduler hop later
        followStep();
      } else if (!loop.callInFlight()) {
        loop.scheduleStep(untilNextLook(seen, now));
      }
    } else if (phase instanceof Phase.Leading leading) {
      if (event instanceof LockRead.Found found) {
        view.noteToken(found.record().leaderTransitions());
        if (found.record().isHeldBy(identity)
            && found.record().leaderTransitions() == leading.record().leaderTransitions()) {
          if (found.record().prefersOtherThan(identity)) {
            handOverOnRequest(leading, found, now);
          }
          return; // our own write, or our record with a request that is handled now
        }
      }
      // The event may be stale (queued before our own write): renew at once and let the
      // conditional write decide. A foreign write makes it conflict, and we step down.
      log.debug("{}: watch shows a change by someone else; renewing now to check", subject);
      if (!loop.callInFlight()) {
        loop.scheduleStep(0);
      }
    }
  }

  /**
   * Until this candidate may take the lock, or the next poll if no watch keeps the view current.
   */
  private long untilNextLook(Observation seen, long now) {
    long untilExpiry = Math.max(0, view.mayTakeFrom(seen) - now);
    long poll = watching.current() ? Long.MAX_VALUE : loop.retryDelay();
    return Math.min(untilExpiry, poll);
  }

  // ---------------------------------------------------------------- 3. acquire

  /**
   * Writes a record naming this candidate over {@code seen}, the current observation, or creates
   * the lock when nothing has been seen of it yet ({@code seen} null).
   */
  private void acquire(@Nullable Observation seen) {
    long token =
        seen == null ? view.highestToken() + 1 : TakeoverRule.nextToken(view.highestToken(), seen);
    Instant at = wall.instant();
    LeaderRecord record = new LeaderRecord(identity, config.leaseDuration(), at, at, token);
    String version = seen == null ? null : seen.version();
    if (seen == null || version == null) {
      log.debug("{}: lock is absent or not seen yet, creating it", subject);
      long othersBefore = view.othersSeen();
      write(
          LockCall.CREATE,
          record,
          () -> lock.create(record),
          (result, start) -> onCreateWrite(result, start, record, at, othersBefore, seen == null));
    } else {
      log.debug("{}: trying to acquire (holder was {})", subject, seen.describeHolder());
      write(
          LockCall.UPDATE,
          record,
          () -> lock.update(version, record),
          (result, start) -> onAcquireWrite(result, start, record, at));
    }
  }

  /**
   * A refused create shows that the lock exists. A create written after the view showed someone
   * else's lock landed on a lock that was created and deleted while it was on its way: that other
   * candidate may still be leading until its next renewal fails, so this one holds the lock without
   * leading for a lease, and takes it with a new token after. A first look that did not create the
   * lock is no failure of its own: a read follows at once and decides.
   */
  private void onCreateWrite(
      LockWrite result,
      long start,
      LeaderRecord record,
      Instant at,
      long othersBefore,
      boolean firstLook) {
    long now = clock.nanos();
    if (result instanceof LockWrite.Conflict) {
      view.createRefused(now);
    }
    Observation shown = view.current();
    if (firstLook
        && result instanceof LockWrite.Conflict
        && watching.current()
        && shown != null
        && shown.record() != null) {
      // The watch has already shown the record that refused the create, and shows every change
      // from here on: a read would add nothing.
      decide(shown, now, "acquire");
      return;
    }
    if (firstLook && !(result instanceof LockWrite.Written)) {
      long eventsBefore = watchEventsSeen;
      read((answer, readStart) -> onFollowerRead(answer, eventsBefore));
      return;
    }
    if (result instanceof LockWrite.Written written && view.othersSeen() != othersBefore) {
      failureLog.success("acquire");
      consecutiveFailures = 0;
      view.see(new LockRead.Found(written.version(), record), now);
      view.holdOff(now + timings.lease());
      log.warn(
          "{}: created the lock after another candidate's copy of it was deleted; holding it"
              + " without leading for leaseDuration {}, since that candidate may still lead",
          subject,
          config.leaseDuration());
      loop.scheduleStep(timings.lease());
      return;
    }
    onAcquireWrite(result, start, record, at);
  }

  private void onAcquireWrite(LockWrite result, long start, LeaderRecord record, Instant at) {
    long now = clock.nanos();
    if (result instanceof LockWrite.Written written) {
      failureLog.success("acquire");
      lead(record, at, written.version(), start, now);
    } else if (result instanceof LockWrite.Conflict conflict) {
      failureLog.success("acquire");
      consecutiveFailures = 0;
      log.debug("{}: another candidate got there first ({})", subject, conflict.detail());
      watching.markStale();
      loop.scheduleStep(loop.retryDelay());
    } else {
      failed(((LockWrite.Failed) result).failure(), "acquire", now, "Retrying with back-off.");
    }
  }

  // ---------------------------------------------------------------- 4. lead and renew

  /** Starts a term with {@code record}, written at version {@code version}, acquired {@code at}. */
  private void lead(LeaderRecord record, Instant at, String version, long start, long now) {
    Term term =
        new Term(
            identity,
            lock.describe(),
            record.leaderTransitions(),
            at,
            loop.callbackExecutor,
            clock,
            start + timings.renewDeadline());
    phase = new Phase.Leading(term, new Phase.Claim(version, record), start);
    loop.newEpoch();
    consecutiveFailures = 0;
    view.noteToken(record.leaderTransitions());
    view.see(new LockRead.Found(version, record), now);
    counters.termStarted();
    log.info("{}: started leading (term {})", subject, term.fencingToken());
    dispatcher.listener(l -> l.onTermStarted(term));
    dispatcher.callback("onStartedLeading", () -> callbacks.onStartedLeading(term));
    loop.armDeadline(start, now);
    loop.scheduleStep(Math.max(0, start + loop.retryDelay() - now));
  }

  private void renewStep(Phase.Leading leading) {
    if (clock.nanos() - leading.validFrom() >= timings.renewDeadline()) {
      deadlineExceeded(leading);
      return;
    }
    LeaderRecord renewed = leading.record().withRenewTime(wall.instant());
    String version = leading.claim().version();
    write(
        LockCall.UPDATE,
        renewed,
        () -> lock.update(version, renewed),
        (result, start) -> onRenewWrite(result, start, renewed));
  }

  private void onRenewWrite(LockWrite result, long start, LeaderRecord renewed) {
    Phase.Leading leading = (Phase.Leading) phase; // a renewal answers in the epoch it was sent
    long now = clock.nanos();
    if (result instanceof LockWrite.Written written) {
      failureLog.success("renew");
      phase = new Phase.Leading(leading.term(), new Phase.Claim(written.version(), renewed), start);
      leading.term().extend(start + timings.renewDeadline());
      view.see(new LockRead.Found(written.version(), renewed), now);
      loop.armDeadline(start, now);
      loop.scheduleStep(Math.max(0, start + loop.retryDelay() - now));
    } else if (result instanceof LockWrite.Conflict conflict) {
      // Someone else wrote the lock. Verifying first could be delayed (budget, errors), so the
      // term ends now; if a read shows the record is still ours, a new term starts after a write.
      log.debug(
          "{}: renew conflicted ({}); stepping down and reading the lock",
          subject,
          conflict.detail());
      Phase.Claim overwritten = new Phase.Claim(leading.claim().version(), null);
      stepDown(leading, TermEnd.LOCK_LOST, new Phase.Following(overwritten));
      watching.markStale();
      follow(overwritten, 0);
    } else {
      LockFailure failure = ((LockWrite.Failed) result).failure();
      long left = leading.validFrom() + timings.renewDeadline() - now;
      failureLog.failure(
          "renew",
          failure,
          now,
          "Stepping down in " + Duration.ofNanos(left) + " unless a renewal succeeds.");
      loop.scheduleStep(Math.min(timings.retry(), Math.max(0, left)));
    }
  }

  private void onDeadline() {
    if (!(phase instanceof Phase.Leading leading)) {
      return;
    }
    long now = clock.nanos();
    if (now - leading.validFrom() >= timings.renewDeadline()) {
      deadlineExceeded(leading);
    } else {
      loop.armDeadline(leading.validFrom(), now);
    }
  }

  // ---------------------------------------------------------------- 5. step down

  private void deadlineExceeded(Phase.Leading leading) {
    log.error(
        "{}: lost leadership: no successful renewal within renewDeadline {}",
        subject,
        config.renewDeadline());
    stepDown(leading, TermEnd.RENEW_DEADLINE_EXCEEDED, new Phase.Following(leading.claim()));
    consecutiveFailures = Math.max(consecutiveFailures, 1);
    follow(leading.claim(), loop.failureDelay(consecutiveFailures));
  }

  /** Ends the term and enters {@code next}. */
  private void stepDown(Phase.Leading leading, TermEnd reason, Phase next) {
    stepDown(leading, reason, next, () -> {});
  }

  /**
   * Ends the term and enters {@code next}; runs {@code afterStop} once onStoppedLeading returned.
   */
  private void stepDown(Phase.Leading leading, TermEnd reason, Phase next, Runnable afterStop) {
    Term ended = leading.term();
    phase = next;
    loop.newEpoch();
    loop.cancelDeadline();
    loop.cancelStep();
    ended.end(reason);
    counters.termEnded(reason);
    if (reason == TermEnd.CLOSED) {
      log.info("{}: stopped leading (term {}): closing", subject, ended.fencingToken());
    } else if (reason != TermEnd.RENEW_DEADLINE_EXCEEDED) {
      log.warn("{}: stopped leading (term {}): {}", subject, ended.fencingToken(), reason);
    }
    dispatcher.listener(l -> l.onTermEnded(ended, reason));
    dispatcher.callback(
        "onStoppedLeading", () -> callbacks.onStoppedLeading(ended, reason), afterStop);
  }

  // ---------------------------------------------------------------- 5b. step down on request

  /**
   * Ends the term on request, releases the lock once the stop callback returned, and follows,
   * holding back from the lock for {@code holdOffNanos}; false when not leading or closing.
   */
  boolean requestStepDown(long holdOffNanos) {
    synchronized (monitor) {
      if (!(phase instanceof Phase.Leading leading) || closeRequested) {
        return false;
      }
      long until = clock.nanos() + holdOffNanos;
      view.holdOff(until);
      stepDown(
          leading,
          TermEnd.STEPPED_DOWN,
          new Phase.SteppingDown(leading.claim(), true, until),
          () -> loop.executeLocked(this::stepDownCallbackReturned));
      return true;
    }
  }

  /**
   * Holds this candidate back from taking the lock until {@code holdOffNanos} from now, replacing
   * any earlier hold (a step-down's included); zero lets it compete at once. A term goes on: only
   * the next acquisition waits. Works before start too.
   */
  void holdOff(long holdOffNanos) {
    synchronized (monitor) {
      long now = clock.nanos();
      view.holdOff(now + holdOffNanos);
      Observation seen = view.current();
      if (phase instanceof Phase.Following && !loop.callInFlight() && seen != null) {
        loop.scheduleStep(untilNextLook(seen, now)); // the next look moves with the hold; no call
      }
    }
  }

  /**
   * The holder whose lease this candidate would respect now: itself while leading, the holder of a
   * record that has not yet expired on this candidate's clock, else empty (free, released, expired
   * or not seen yet).
   */
  Optional<String> liveHolder() {
    synchronized (monitor) {
      return liveHolder(false);
    }
  }

  /**
   * As {@link #liveHolder()}, but a holder counts only once this candidate has seen the lock change
   * (a renewal, say) since its first look: a record found on the first look may be a dead holder's,
   * whose lease this candidate honours without taking it for a sign of life.
   */
  Optional<String> renewingHolder() {
    synchronized (monitor) {
      return liveHolder(true);
    }
  }

  /** Whether this candidate has seen the lock, and its watch or its last call is fresh. */
  boolean seesTheLock() {
    synchronized (monitor) {
      return view.current() != null && (watching.current() || consecutiveFailures == 0);
    }
  }

  private Optional<String> liveHolder(boolean seenRenewing) {
    if (phase instanceof Phase.Leading) {
      return Optional.of(identity);
    }
    Observation seen = view.current();
    if (seen == null || seen.record() == null || seen.record().isReleased()) {
      return Optional.empty();
    }
    if (seen.record().isHeldBy(identity) || view.expired(seen, clock.nanos())) {
      return Optional.empty();
    }
    if (seenRenewing && !view.changedSinceFirstLook(seen)) {
      return Optional.empty();
    }
    return Optional.of(seen.record().holderIdentity());
  }

  /**
   * The lock, still naming this leader, asks that another identity lead next (an operator wrote
   * {@value LeaderRecord#PREFERRED_HOLDER}): the term ends as by {@link #requestStepDown}, and the
   * release, written over the version that carries the request, keeps it, so that the identity it
   * names takes the lock and the other candidates, this one included, hold back meanwhile (for two
   * leases at most, should that identity never take it).
   */
  private void handOverOnRequest(Phase.Leading leading, LockRead.Found found, long now) {
    view.see(found, now); // the request now holds this candidate back, as any other
    long until = now + view.requestTimeout();
    log.info(
        "{}: {} is asked to lead next; stepping down (term {})",
        subject,
        found.record().preferredHolder(),
        leading.term().fencingToken());
    stepDown(
        leading,
        TermEnd.STEPPED_DOWN,
        new Phase.SteppingDown(new Phase.Claim(found.version(), found.record()), true, until),
        () -> loop.executeLocked(this::stepDownCallbackReturned));
  }

  /**
   * A follower that finds the lock still naming itself (its term already ended, say by a renewal
   * that conflicted with the request's write) and asking for another identity releases it for that
   * identity, rather than take it back or let it expire. True if it did.
   */
  private boolean releaseOnRequest(Observation seen, long now) {
    LeaderRecord record = seen.record();
    String version = seen.version();
    if (record == null
        || version == null
        || !record.isHeldBy(identity)
        || !view.heldBackByRequest(now)) {
      return false;
    }
    long until = now + view.requestTimeout();
    log.info(
        "{}: the lock still names this candidate and asks that {} lead next; releasing it",
        subject,
        record.preferredHolder());
    phase = new Phase.SteppingDown(new Phase.Claim(version, record), false, until);
    releaseAfterStepDown();
    return true;
  }

  private void stepDownCallbackReturned() {
    if (phase instanceof Phase.SteppingDown steppingDown) {
      phase = new Phase.SteppingDown(steppingDown.claim(), false, steppingDown.holdOffUntil());
      releaseAfterStepDown();
    } else if (phase instanceof Phase.Closing) {
      stopCallbackReturned(); // close began while the stop callback ran
    }
  }

  /** Writes a released record over the claim, as close does, but stays a candidate after it. */
  private void releaseAfterStepDown() {
    if (loop.callInFlight()) {
      return; // a renewal sent before the step-down; its answer comes back to step()
    }
    Phase.Claim claim = ((Phase.SteppingDown) phase).claim();
    Observation seen = view.current();
    LeaderRecord base =
        claim.record() != null ? claim.record() : seen == null ? null : seen.record();
    if (base == null) {
      follow(claim, 0);
      return;
    }
    LeaderRecord released = base.released(wall.instant());
    write(
        LockCall.UPDATE,
        null,
        () -> lock.update(claim.version(), released),
        (result, start) -> onStepDownRelease(result, claim));
  }

  private void onStepDownRelease(LockWrite result, Phase.Claim claim) {
    if (result instanceof LockWrite.Written) {
      log.info("{}: released the lock after stepping down; still a candidate", subject);
      follow(null, 0);
    } else if (result instanceof LockWrite.Conflict) {
      follow(null, 0); // someone else wrote it: not ours to release any more
    } else {
      LockFailure failure = ((LockWrite.Failed) result).failure();
      failureLog.failure(
          "release",
          failure,
          clock.nanos(),
          "The lock will expire after its lease duration; following until then.");
      follow(claim, 0);
    }
  }

  // ---------------------------------------------------------------- 6. release and close

  private void beginClose() {
    if (Phase.closing(phase)) {
      return;
    }
    loop.cancelStep();
    Phase.Closing closing = new Phase.Closing(Phase.claimOf(phase), true);
    // A stop callback still running after a step-down comes back to stopCallbackReturned too.
    boolean stopPending =
        phase instanceof Phase.Leading
            || (phase instanceof Phase.SteppingDown steppingDown
                && steppingDown.stopCallbackPending());
    if (phase instanceof Phase.Leading leading) {
      stepDown(
          leading, TermEnd.CLOSED, closing, () -> loop.executeLocked(this::stopCallbackReturned));
    }
    phase = closing;
    loop.newEpoch();
    loop.armCloseTimer();
    if (!stopPending) {
      loop.executeLocked(this::stopCallbackReturned);
    }
  }

  private void stopCallbackReturned() {
    if (phase instanceof Phase.Closing closing) {
      phase = new Phase.Closing(closing.claim(), false);
    }
    releaseOrFinish();
  }

  private void closeTimedOut() {
    if (!(phase instanceof Phase.Closing || phase instanceof Phase.Releasing)) {
      return;
    }
    log.warn(
        "{}: close did not finish within closeTimeout {}; {}",
        subject,
        config.closeTimeout(),
        Phase.claimOf(phase) != null && config.releaseOnClose()
            ? "the lock was not released and will expire after its lease duration"
            : "a stop callback may still be running");
    finish();
  }

  private void releaseOrFinish() {
    if (!(phase instanceof Phase.Closing closing) || closing.stopCallbackPending()) {
      return;
    }
    if (!config.releaseOnClose()) {
      finish();
      return;
    }
    if (loop.writeInFlight()) {
      return; // the write may yet name us; its completion comes back here
    }
    Phase.Claim claim = closing.claim();
    if (claim == null) {
      finish();
      return;
    }
    if (loop.callInFlight()) {
      return; // the call's completion comes back here
    }
    phase = new Phase.Releasing(claim);
    release();
  }

  private void release() {
    Phase.Claim claim = ((Phase.Releasing) phase).claim();
    Observation seen = view.current();
    LeaderRecord ours = claim.record();
    LeaderRecord base = ours != null ? ours : seen == null ? null : seen.record();
    if (base == null) {
      finish();
      return;
    }
    LeaderRecord released = base.released(wall.instant());
    write(
        LockCall.UPDATE, null, () -> lock.update(claim.version(), released), this::onReleaseWrite);
  }

  private void onReleaseWrite(LockWrite result, long start) {
    if (result instanceof LockWrite.Written) {
      log.info("{}: released the lock", subject);
      finish();
    } else if (result instanceof LockWrite.Conflict) {
      read(this::onReleaseRead);
    } else {
      LockFailure failure = ((LockWrite.Failed) result).failure();
      failureLog.failure("release", failure, clock.nanos(), "Retrying until closeTimeout.");
      loop.scheduleStep(timings.retry() / 2);
    }
  }

  private void onReleaseRead(LockRead result, long start) {
    if (result instanceof LockRead.Found found && found.record().isHeldBy(identity)) {
      phase = new Phase.Releasing(new Phase.Claim(found.version(), found.record()));
      release();
    } else if (result instanceof LockRead.Failed failed) {
      failureLog.failure(
          "release", failed.failure(), clock.nanos(), "Retrying until closeTimeout.");
      loop.scheduleStep(timings.retry() / 2);
    } else {
      finish(); // no longer ours: nothing to release
    }
  }

  // ---------------------------------------------------------------- the loop's hooks

  private void step() {
    if (phase instanceof Phase.Following) {
      followStep();
    } else if (phase instanceof Phase.Leading leading) {
      renewStep(leading);
    } else if (phase instanceof Phase.Releasing) {
      release();
    } else if (phase instanceof Phase.SteppingDown steppingDown
        && !steppingDown.stopCallbackPending()) {
      releaseAfterStepDown();
    }
  }

  private void answeredEarlierPhase(LockCaller.Call call, CallAnswer answer) {
    // A write that took effect left a record naming us: keep its version and token so that close
    // may release it.
    answer
        .writtenVersion()
        .ifPresent(
            version -> phase = Phase.withClaim(phase, new Phase.Claim(version, call.writing())));
    if (phase instanceof Phase.Closing || phase instanceof Phase.Releasing) {
      releaseOrFinish();
    } else if (!loop.stepScheduled()) {
      boolean atOnce = phase instanceof Phase.Leading || phase instanceof Phase.SteppingDown;
      loop.scheduleStep(atOnce ? 0 : loop.retryDelay());
    }
  }

  // ---------------------------------------------------------------- queries

  String identity() {
    return identity;
  }

  long closeTimeoutMillis() {
    return config.closeTimeout().toMillis();
  }

  Duration leaseDuration() {
    return config.leaseDuration();
  }

  String describe() {
    return lock.describe();
  }

  /** The term being led: the phase is the one place that knows it. */
  Optional<Term> currentTerm() {
    return phase instanceof Phase.Leading leading ? Optional.of(leading.term()) : Optional.empty();
  }

  Optional<String> observedLeader() {
    return view.leader();
  }

  boolean closingFromOwnCallback() {
    return dispatcher.inCallback();
  }

  void awaitSharedThreadsStopped(long millis) {
    loop.awaitSharedThreadsStopped(millis);
  }

  ElectorHealth health() {
    synchronized (monitor) {
      return health.report(
          phase,
          clock.nanos(),
          view.current(),
          consecutiveFailures,
          lastFailure,
          watching.describe());
    }
  }

  ElectorStats stats() {
    ElectorStats.Following following;
    int failures;
    boolean leading;
    synchronized (monitor) { // a few field reads; steps never block while holding the monitor
      Phase now = phase;
      leading = now instanceof Phase.Leading;
      following =
          now instanceof Phase.Following ? watching.following() : ElectorStats.Following.NONE;
      failures = consecutiveFailures;
    }
    return counters.snapshot(leading, view.leader(), following, failures);
  }

  private void locked(Runnable task) {
    synchronized (monitor) {
      task.run();
    }
  }
}
