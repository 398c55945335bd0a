package dev.elector;

import dev.elector.time.MonotonicClock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;

/**
 * The election loop of one candidate, in the order of a term's life: wait for the readiness gate,
 * observe the lock, acquire it, lead and renew, step down, release, close. Every step runs on the
 * scheduler under its loop's monitor and never blocks: lock calls are asynchronous, their results
 * come back as new steps, and callbacks go to the callback executor.
 *
 * <p>Safety rests on three rules. (1) A candidate takes a lock only when it is free, held by
 * itself, or has not changed for the record's lease duration measured on the local monotonic clock
 * from when this candidate saw it change ({@link TakeoverRule}). (2) A leader's validity is counted
 * from the start of its last successful write, and it steps down when renewDeadline has passed
 * since then, which is before any other candidate can count the lease as expired. (3) Every write
 * is conditional on the version last seen, so of two racing candidates at most one wins.
 *
 * <p>This class is the policy's owner: the state of each phase is one {@link Phase} value, which
 * changes only by the pure functions of {@link Transitions}; the election runs the {@link Action}s
 * they return. A follower's looks and acquisitions are its {@link Candidacy}'s, the decisions under
 * them pure functions too ({@link TakeoverRule}, {@link Backoff}, {@link CallBudget}), and the
 * mechanism (steps, timers, calls) is the {@link ElectionLoop} it owns.
 */
final class Election {
  private static final Logger log = ElectionLoop.log;

  private final ElectionLoop loop;
  private final Object monitor;
  private final ElectorConfig config;
  private final String identity;
  private final String subject;
  private final MonotonicClock clock;
  private final Transitions transitions;
  private final LockView view;
  private final Candidacy candidacy;
  private final FailureLog failureLog;
  private final Health health;
  private final ActionRunner effects;

  // Guarded by monitor.
  private boolean started;
  private boolean closeRequested;

  /** Written under the monitor; read without it by the queries, the current term among them. */
  private volatile Phase phase = new Phase.AwaitingGate(null);

  Election(ElectorConfig config) {
    this.loop = new ElectionLoop(config);
    this.monitor = loop.monitor;
    this.config = config;
    this.identity = loop.identity;
    this.subject = loop.subject;
    this.clock = loop.clock;
    this.transitions =
        new Transitions(
            identity,
            loop.timings.renewDeadline(),
            loop.timings.retry(),
            config.renewDeadline(),
            config.closeTimeout(),
            config.releaseOnClose());
    this.view =
        new LockView(
            new TakeoverRule(identity, loop.timings.lease()),
            identity,
            subject,
            config.leaseDuration(),
            loop.dispatcher,
            config.callbacks(),
            log);
    this.failureLog = new FailureLog(log, subject);
    this.candidacy = new Candidacy(loop, transitions, view, failureLog);
    this.effects = new ActionRunner(loop, transitions, view, candidacy, failureLog);
    this.health =
        new Health(subject, loop.timings, config.leaseDuration(), config.healthTolerance());
  }

  // ---------------------------------------------------------------- start and close

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
      Hooks hooks = new Hooks();
      loop.bind(hooks);
      candidacy.bind(hooks);
      effects.bind(hooks);
      CompletableFuture<?> gate = config.readinessGate().toCompletableFuture();
      if (gate.isDone() && !gate.isCompletedExceptionally()) {
        apply(transitions.gateCompleted(phase, null));
      } else {
        log.info("{}: waiting for the readiness gate before taking part", subject);
        // The gate's outcome is handled as a step; the stage whenComplete returns adds nothing.
        var unused =
            gate.whenComplete(
                (ignored, error) ->
                    loop.executeLocked(
                        () ->
                            apply(
                                transitions.gateCompleted(
                                    phase, error == null ? null : String.valueOf(error)))));
      }
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
          loop.executeLocked(() -> apply(transitions.closeAsked(phase)));
        }
      }
    }
    return loop.closed;
  }

  /** Enters the transition's phase, then runs its actions in order. */
  private void apply(Transition transition) {
    phase = transition.next();
    for (Action action : transition.actions()) {
      action.runOn(effects);
    }
  }

  /** What the loop and the candidacy call back, under the monitor. */
  private final class Hooks implements ElectionLoop.Policy, PhaseOwner {
    @Override
    public void step() {
      apply(transitions.step(phase, clock.nanos()));
    }

    @Override
    public void deadlineDue() {
      apply(transitions.deadlineDue(phase, clock.nanos()));
    }

    @Override
    public void closeTimedOut() {
      apply(transitions.closeTimedOut(phase));
    }

    @Override
    public void answeredEarlierPhase(LockCaller.Call call, CallAnswer answer) {
      apply(transitions.answeredEarlierPhase(phase, answer, call.writing(), loop.stepScheduled()));
    }

    @Override
    public Phase phase() {
      return phase;
    }

    @Override
    public void apply(Transition transition) {
      Election.this.apply(transition);
    }
  }

  // ---------------------------------------------------------------- step down and hold off

  /**
   * Ends the term on request, releases the lock once the stop callback returned, and follows,
   * holding back from the lock for {@code holdOffNanos}; false when not leading or closing.
   */
  boolean requestStepDown(long holdOffNanos) {
    synchronized (monitor) {
      Phase before = phase;
      apply(transitions.stepDownAsked(before, closeRequested, clock.nanos() + holdOffNanos));
      return phase != before;
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
      candidacy.holdOff(now + holdOffNanos, now, phase instanceof Phase.Following);
    }
  }

  /**
   * The holder whose lease this candidate would respect now: itself while leading, the holder of a
   * record that has not yet expired on this candidate's clock, else empty (free, released, expired
   * or not seen yet).
   */
  Optional<String> liveHolder() {
    return liveHolder(false);
  }

  /**
   * As {@link #liveHolder()}, but a holder counts only once this candidate has seen the lock change
   * (a renewal, say) since its first look: a record found on the first look may be a dead holder's,
   * whose lease this candidate honours without taking it for a sign of life.
   */
  Optional<String> renewingHolder() {
    return liveHolder(true);
  }

  private Optional<String> liveHolder(boolean seenRenewing) {
    synchronized (monitor) {
      return phase instanceof Phase.Leading
          ? Optional.of(identity)
          : candidacy.liveHolder(seenRenewing);
    }
  }

  /** Whether this candidate has seen the lock, and its watch or its last call is fresh. */
  boolean seesTheLock() {
    synchronized (monitor) {
      return candidacy.seesTheLock();
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
    return loop.lock.describe();
  }

  /** The term being led: the phase is the one place that knows it. */
  Optional<Term> currentTerm() {
    return phase instanceof Phase.Leading leading ? Optional.of(leading.term()) : Optional.empty();
  }

  Optional<String> observedLeader() {
    return view.leader();
  }

  boolean closingFromOwnCallback() {
    return loop.dispatcher.inCallback();
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
          candidacy.consecutiveFailures(),
          candidacy.lastFailure(),
          loop.watching.describe());
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
          now instanceof Phase.Following ? loop.watching.following() : ElectorStats.Following.NONE;
      failures = candidacy.consecutiveFailures();
    }
    return loop.counters.snapshot(leading, view.leader(), following, failures);
  }
}
