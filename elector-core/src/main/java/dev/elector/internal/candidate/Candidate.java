package dev.elector.internal.candidate;

import dev.elector.internal.candidate.Effect.Delay;
import dev.elector.internal.candidate.Effect.Ending;
import dev.elector.internal.candidate.Effect.Level;
import dev.elector.internal.candidate.State.InFlight;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One candidate's election as a pure function: {@link #next} takes the {@link State}, an {@link
 * Event} and the instant, and returns the next state and the {@link Effect}s to run, in order. It
 * reads no clock, schedules nothing, calls no lock and logs nothing; the election in {@code
 * dev.elector} runs the effects and feeds what comes of them back as events. The transitions below
 * follow a term's life: the gate, looking and acquiring, leading and renewing, stepping down,
 * release and close.
 *
 * <p>Safety rests on three rules. (1) A candidate takes a lock only when it is free, held by
 * itself, or has not changed for the record's lease duration measured on the local monotonic clock
 * from when this candidate saw it change ({@link TakeoverRule}). (2) A leader's validity is counted
 * from the start of its last successful write, and it steps down when renewDeadline has passed
 * since then, which is before any other candidate can count the lease as expired. (3) Every write
 * is conditional on the version last seen, so of two racing candidates at most one wins. Every call
 * spends the {@link Budget}, whatever the phase and whatever fails.
 */
public final class Candidate {

  /** The settings the machine decides with. */
  public record Settings(
      String identity,
      Duration leaseDuration,
      Duration renewDeadline,
      Duration retryPeriod,
      Duration closeTimeout,
      boolean releaseOnClose,
      int callBurst,
      int callsPerRetryPeriod) {}

  /** A moment: monotonic nanoseconds for every duration, the wall clock for records. */
  public record Moment(long nanos, Instant wall) {}

  /** A transition: the next state and what to run, in order. */
  public record Step(State next, List<Effect> effects) {
    public Step {
      effects = List.copyOf(effects);
    }
  }

  private final Settings settings;
  private final String identity;
  private final TakeoverRule rule;
  private final long lease;
  private final long renewDeadline;
  private final long retry;
  private final long closeTimeout;
  private final long requestTimeout;

  public Candidate(Settings settings) {
    this.settings = settings;
    this.identity = settings.identity();
    this.lease = TakeoverRule.nanos(settings.leaseDuration());
    this.renewDeadline = TakeoverRule.nanos(settings.renewDeadline());
    this.retry = TakeoverRule.nanos(settings.retryPeriod());
    this.closeTimeout = TakeoverRule.nanos(settings.closeTimeout());
    this.rule = new TakeoverRule(identity, lease);
    // A request to move leadership holds the other candidates back for two leases at most.
    this.requestTimeout = 2 * lease;
  }

  /** The state of a candidate created and not started: waiting for its readiness gate. */
  public State initial() {
    return new State(
        new Phase.AwaitingGate(null),
        View.NOTHING_SEEN,
        0,
        null,
        new State.Watch(false, null, 0),
        new State.Calls(
            0,
            0,
            null,
            false,
            Budget.of(settings.callBurst(), retry / settings.callsPerRetryPeriod()),
            null),
        false,
        false);
  }

  /** The next state after {@code event} at {@code now}, and the effects to run, in order. */
  public Step next(State state, Event event, Moment now) {
    if (state.phase() instanceof Phase.Closed) {
      return new Step(state, List.of()); // nothing runs any more
    }
    Transition t = new Transition(state, now);
    t.on(event);
    return new Step(t.state(), t.effects);
  }

  // ---------------------------------------------------------------- queries

  /**
   * The holder whose lease this candidate would respect at {@code now}: itself while leading, the
   * holder of a record that has not yet expired on this candidate's clock, else empty. With {@code
   * seenRenewing}, a holder counts only once this candidate has seen the lock change since its
   * first look: a record found on the first look may be a dead holder's.
   */
  public Optional<String> liveHolder(State state, boolean seenRenewing, long now) {
    if (state.phase() instanceof Phase.Leading) {
      return Optional.of(identity);
    }
    Observation seen = state.view().current();
    if (seen == null || seen.record() == null || seen.record().isReleased()) {
      return Optional.empty();
    }
    if (seen.record().isHeldBy(identity) || now - rule.expiresAt(seen) >= 0) {
      return Optional.empty();
    }
    if (seenRenewing && !state.view().changedSinceFirstLook(seen)) {
      return Optional.empty();
    }
    return Optional.of(seen.record().holderIdentity());
  }

  /** Whether this candidate has seen the lock, and its watch or its last call is fresh. */
  public boolean seesTheLock(State state) {
    return state.view().current() != null && (state.watch().current() || state.failures() == 0);
  }

  /** The settings. */
  public Settings settings() {
    return settings;
  }

  /**
   * One transition in the making: a working copy of the state and the effects so far. It lives for
   * one call of {@link #next}, so the function stays pure from outside.
   */
  private final class Transition {
    private final long now;
    private final Instant wall;
    private final List<Effect> effects = new ArrayList<>();
    private Phase phase;
    private View view;
    private int failures;
    private @Nullable LockFailure lastFailure;
    private boolean watchCurrent;
    private @Nullable LockFailure watchFailure;
    private long watchEvents;
    private long seq;
    private long epoch;
    private @Nullable InFlight call;
    private boolean stepPending;
    private Budget budget;
    private @Nullable LeaderRecord unanswered;
    private boolean createTried;
    private boolean closeRequested;

    Transition(State s, Moment moment) {
      this.now = moment.nanos();
      this.wall = moment.wall();
      this.phase = s.phase();
      this.view = s.view();
      this.failures = s.failures();
      this.lastFailure = s.lastFailure();
      this.watchCurrent = s.watch().current();
      this.watchFailure = s.watch().failure();
      this.watchEvents = s.watch().events();
      this.seq = s.calls().seq();
      this.epoch = s.calls().epoch();
      this.call = s.calls().inFlight();
      this.stepPending = s.calls().stepPending();
      this.budget = s.calls().budget();
      this.unanswered = s.calls().unanswered();
      this.createTried = s.createTried();
      this.closeRequested = s.closeRequested();
    }

    State state() {
      return new State(
          phase,
          view,
          failures,
          lastFailure,
          new State.Watch(watchCurrent, watchFailure, watchEvents),
          new State.Calls(seq, epoch, call, stepPending, budget, unanswered),
          createTried,
          closeRequested);
    }

    void on(Event event) {
      if (event instanceof Event.GateCompleted gate) {
        gateCompleted(gate.error());
      } else if (event instanceof Event.StepDue) {
        stepDue();
      } else if (event instanceof Event.DeadlineDue) {
        deadlineDue();
      } else if (event instanceof Event.ReadAnswered read) {
        answered(read.seq(), read.result(), null);
      } else if (event instanceof Event.WriteAnswered write) {
        answered(write.seq(), null, write.result());
      } else if (event instanceof Event.Watched watched) {
        watched(watched.event());
      } else if (event instanceof Event.StopCallbackReturned returned) {
        stopCallbackReturned(returned.token());
      } else if (event instanceof Event.StepDownAsked asked) {
        stepDownAsked(asked.until());
      } else if (event instanceof Event.HoldOffAsked asked) {
        holdOffAsked(asked.until());
      } else if (event instanceof Event.CloseRequested) {
        closeRequested = true;
      } else if (event instanceof Event.Close) {
        close();
      } else if (event instanceof Event.CloseTimedOut) {
        closeTimedOut();
      } else if (event instanceof Event.CloseBeforeStart) {
        closeRequested = true;
        phase = new Phase.Closed();
        finish();
      }
    }

    // -------------------------------------------------------------- the gate and steps

    private void gateCompleted(@Nullable String error) {
      if (!(phase instanceof Phase.AwaitingGate)) {
        return;
      }
      if (error != null) {
        phase = new Phase.AwaitingGate(error);
        log(
            Level.ERROR,
            "readiness gate failed, this candidate will not take part until restarted: " + error);
        return;
      }
      phase = new Phase.Following(null);
      follow(new Delay.Exactly(0));
    }

    private void stepDue() {
      stepPending = false;
      if (call != null) {
        return; // the call's answer takes the next step
      }
      if (phase instanceof Phase.Following) {
        look();
      } else if (phase instanceof Phase.Leading leading && leading.conflicted()) {
        verify(leading); // the read was deferred by the budget
      } else if (phase instanceof Phase.Leading leading) {
        renewDue(leading);
      } else if (phase instanceof Phase.Releasing releasing) {
        releaseDue(releasing);
      } else if (phase instanceof Phase.SteppingDown steppingDown
          && steppingDown.awaitingStopOf() == Phase.NO_STOP) {
        releaseAfterStepDown(steppingDown);
      }
    }

    // -------------------------------------------------------------- follow and look

    /** Follows the lock: watches it, and looks again after {@code delay}. */
    private void follow(Delay delay) {
      effects.add(new Effect.Watch());
      schedule(delay);
    }

    /** A follower's look: take the lock, create it on the first look, or read it. */
    private void look() {
      Observation seen = view.current();
      if (seen != null && landedLate(seen)) {
        releaseLanded(seen); // shown by the watch while a call was on its way
      } else if (watchCurrent && seen != null && mayTake(seen)) {
        acquire(seen);
      } else if (seen == null && !createTried && !view.holdingOff(now)) {
        // Nothing seen yet: a create succeeds only where the lock is absent, where a read would
        // only have let this candidate create it, so the first look is a create. A refusal counts
        // as a holder seen, and anything but success reads at once.
        createTried = true;
        acquire(null);
      } else {
        read(Purpose.LOOK);
      }
    }

    private void looked(LockRead result, InFlight asked) {
      if (result instanceof LockFailure failure) {
        failed(failure, "read", "Retrying with back-off.");
        return;
      }
      // A watch event taken in while this read was on its way may be newer than the read, which
      // would then undo it (a release forgotten, an expiry restarted). The watch is current, and
      // it shows any later change too, so the read adds nothing.
      Observation seen = view.current();
      if (watchEvents == asked.eventsBefore() || seen == null) {
        seen = see(result);
      }
      decide(seen, "read");
    }

    /** Takes the lock as {@code seen} if it may, or waits for the next look after a good call. */
    private void decide(Observation seen, String callName) {
      if (landedLate(seen)) {
        succeeded(callName);
        releaseLanded(seen);
        return;
      }
      if (releaseOnRequest(seen)) {
        return;
      }
      if (mayTake(seen)) {
        // Not progress yet: only the write decides. Keeping the streak makes a write that keeps
        // failing after good reads (an identity that may read but not write) back off all the same.
        acquire(seen);
      } else {
        succeeded(callName);
        schedule(untilNextLook(seen));
      }
    }

    private void watched(LockRead event) {
      if (event instanceof LockFailure failure) {
        watchCurrent = false;
        watchFailure = failure;
        log(Level.DEBUG, "watch interrupted (" + failure + "), polling until it resumes");
        if (phase instanceof Phase.Following && call == null) {
          schedule(new Delay.Retry(now, Long.MAX_VALUE));
        }
        return;
      }
      watchFailure = null;
      if (phase instanceof Phase.Following) {
        watchEvents++;
        Observation seen = see(event);
        watchCurrent = true;
        if (call != null) {
          return; // the call's answer decides
        }
        if (landedLate(seen)) {
          cancelStep();
          releaseLanded(seen);
        } else if (mayRelease(seen)) {
          cancelStep();
          releaseOnRequest(seen);
        } else if (mayTake(seen)) {
          cancelStep(); // act on the event now, not one scheduler hop later
          look();
        } else {
          schedule(untilNextLook(seen));
        }
      } else if (phase instanceof Phase.Leading leading) {
        if (event instanceof LockRead.Found found) {
          view = view.withToken(found.record().leaderTransitions());
          if (ours(found.record(), leading)) {
            if (found.record().prefersOtherThan(identity)) {
              handOverAsked(leading, found);
            } else if (call == null && !found.version().equals(leading.claim().version())) {
              // Our record at a version we did not write: an edit of the object's metadata. The
              // next renewal goes over it; if the event was stale, that renewal conflicts and
              // the read after it tells.
              adopt(leading, found);
            }
            return;
          }
        }
        // The event may be stale (queued before our own write): renew at once and let the
        // conditional write decide. A foreign write makes it conflict, and we step down.
        log(Level.DEBUG, "watch shows a change by someone else; renewing now to check");
        if (call == null) {
          schedule(new Delay.Exactly(0));
        }
      }
    }

    /** Until this candidate may take the lock, or the next poll if no watch keeps it current. */
    private Delay untilNextLook(Observation seen) {
      long untilExpiry = Math.max(0, mayTakeFrom(seen) - now);
      return watchCurrent ? new Delay.Exactly(untilExpiry) : new Delay.Retry(now, untilExpiry);
    }

    private void holdOffAsked(long until) {
      view = view.holdingOffUntil(until);
      Observation seen = view.current();
      if (phase instanceof Phase.Following && call == null && seen != null) {
        schedule(untilNextLook(seen));
      }
    }

    // -------------------------------------------------------------- what the view allows

    private Observation see(LockRead read) {
      view = view.see(read, now, rule, identity, settings.leaseDuration(), requestTimeout, effects);
      return Objects.requireNonNull(view.current());
    }

    /** Whether this candidate may write the lock as {@code seen} now. */
    private boolean mayTake(Observation seen) {
      return rule.mayTake(seen, now) && !view.holdingOff(now) && !heldBackByRequest();
    }

    /**
     * Whether the lock asks leadership to move to another identity, a request this candidate first
     * saw less than two leases ago: a request for an identity that never takes the lock holds
     * nobody back for longer.
     */
    private boolean heldBackByRequest() {
      String request = view.request();
      return request != null
          && !request.equals(identity)
          && now - view.requestSeenAt() < requestTimeout;
    }

    /**
     * When this candidate may take the lock as {@code seen}: at once if it is free or its own, else
     * when it stops protecting its holder; never before a request or the hold-off ends.
     */
    private long mayTakeFrom(Observation seen) {
      long from = rule.mayTake(seen, seen.seenAt()) ? seen.seenAt() : rule.expiresAt(seen);
      String request = view.request();
      if (request != null && !request.equals(identity)) {
        long requestEnds = view.requestSeenAt() + requestTimeout;
        from = requestEnds - from > 0 ? requestEnds : from;
      }
      return view.holdingOff() && view.holdOffUntil() - from > 0 ? view.holdOffUntil() : from;
    }

    private boolean mayRelease(Observation seen) {
      return seen.record() != null
          && seen.version() != null
          && seen.record().isHeldBy(identity)
          && heldBackByRequest();
    }

    /**
     * A follower that finds the lock still naming itself (its term already ended, say by a renewal
     * that conflicted with the request's write) and asking for another identity releases it for
     * that identity, rather than take it back or let it expire. True if it did.
     */
    private boolean releaseOnRequest(Observation seen) {
      LeaderRecord record = seen.record();
      String version = seen.version();
      if (record == null || version == null || !mayRelease(seen)) {
        return false;
      }
      releaseAsFollower(
          version,
          record,
          now + requestTimeout,
          "the lock still names this candidate and asks that "
              + record.preferredHolder()
              + " lead next; releasing it");
      return true;
    }

    /** Releases the lock at {@code version}, which names this follower, saying {@code why}. */
    private void releaseAsFollower(
        String version, LeaderRecord record, long holdOffUntil, String why) {
      Phase.SteppingDown releasing =
          new Phase.SteppingDown(new Phase.Claim(version, record), Phase.NO_STOP, holdOffUntil);
      phase = releasing;
      log(Level.INFO, why);
      releaseAfterStepDown(releasing);
    }

    /**
     * Whether {@code seen} is this candidate's own acquisition whose answer did not come within the
     * call timeout: the write landed, but too late to start a term. Taking it over would be one
     * more write that may land late and restart every other candidate's wait for a lease.
     */
    private boolean landedLate(Observation seen) {
      LeaderRecord record = seen.record();
      LeaderRecord mine = unanswered;
      return phase instanceof Phase.Following
          && mine != null
          && record != null
          && seen.version() != null
          && record.isHeldBy(identity)
          && record.leaderTransitions() == mine.leaderTransitions();
    }

    /**
     * Releases a lock that names this candidate only because an acquisition landed after its answer
     * was given up, so that every candidate may take it at once rather than wait out a lease for a
     * term that never started. A slowed candidate so cannot hold the lock hostage with writes whose
     * answers come too late to count.
     */
    private void releaseLanded(Observation seen) {
      LeaderRecord record = Objects.requireNonNull(seen.record());
      String version = Objects.requireNonNull(seen.version());
      unanswered = null;
      releaseAsFollower(
          version,
          record,
          now,
          "an acquisition by this candidate (token "
              + record.leaderTransitions()
              + ") landed after its answer was given up; releasing the lock so that no candidate"
              + " waits a lease for a term that never started");
    }

    // -------------------------------------------------------------- acquire

    /**
     * Writes a record naming this candidate over {@code seen}, the current observation, or creates
     * the lock when nothing has been seen of it yet ({@code seen} null).
     */
    private void acquire(@Nullable Observation seen) {
      long token =
          seen == null
              ? view.highestToken() + 1
              : TakeoverRule.nextToken(view.highestToken(), seen);
      LeaderRecord record = new LeaderRecord(identity, settings.leaseDuration(), wall, wall, token);
      String version = seen == null ? null : seen.version();
      if (seen == null || version == null) {
        log(Level.DEBUG, "lock is absent or not seen yet, creating it");
        write(seen == null ? Purpose.FIRST_CREATE : Purpose.CREATE, null, record, null);
      } else {
        log(Level.DEBUG, "trying to acquire (holder was " + seen.describeHolder() + ")");
        write(Purpose.ACQUIRE, version, record, null);
      }
    }

    /**
     * A refused create shows that the lock exists. A create written after the view showed someone
     * else's lock landed on a lock that was created and deleted while it was on its way: that other
     * candidate may still be leading until its next renewal fails, so this one holds the lock
     * without leading for a lease, and takes it with a new token after. A first look that did not
     * create the lock is no failure of its own: a read follows at once and decides.
     */
    private void created(LockWrite result, InFlight asked) {
      boolean firstLook = asked.purpose() == Purpose.FIRST_CREATE;
      if (result instanceof LockWrite.Conflict) {
        view = view.createRefused(rule, now);
      }
      Observation shown = view.current();
      if (firstLook
          && result instanceof LockWrite.Conflict
          && watchCurrent
          && shown != null
          && shown.record() != null) {
        // The watch has already shown the record that refused the create, and shows every change
        // from here on: a read would add nothing.
        decide(shown, "acquire");
        return;
      }
      if (firstLook && !(result instanceof LockWrite.Written)) {
        if (result instanceof LockFailure failure) {
          noteUnanswered(failure, asked); // a later create's failure is noted by acquired()
        }
        read(Purpose.LOOK);
        return;
      }
      LeaderRecord record = Objects.requireNonNull(asked.writing());
      if (result instanceof LockWrite.Written written
          && view.othersSeen() != asked.othersBefore()) {
        succeeded("acquire");
        see(new LockRead.Found(written.version(), record));
        view = view.holdingOffUntil(now + lease);
        log(
            Level.WARN,
            "created the lock after another candidate's copy of it was deleted; holding it without"
                + " leading for leaseDuration "
                + settings.leaseDuration()
                + ", since that candidate may still lead");
        schedule(new Delay.Exactly(lease));
        return;
      }
      acquired(result, asked);
    }

    /**
     * Remembers an acquisition whose answer did not come within the call timeout: it may land late.
     * An answer lost otherwise (a connection reset) came fast, and its write, if it landed, may be
     * taken over as before.
     */
    private void noteUnanswered(LockFailure failure, InFlight asked) {
      if (failure.kind() == LockFailure.Kind.TIMEOUT) {
        unanswered = asked.writing();
      }
    }

    private void acquired(LockWrite result, InFlight asked) {
      LeaderRecord record = Objects.requireNonNull(asked.writing());
      if (result instanceof LockWrite.Written written) {
        startTerm(record, written.version(), asked.start());
      } else if (result instanceof LockWrite.Conflict conflict) {
        succeeded("acquire");
        log(Level.DEBUG, "another candidate got there first (" + conflict.detail() + ")");
        watchCurrent = false;
        schedule(new Delay.Retry(now, Long.MAX_VALUE));
      } else {
        noteUnanswered((LockFailure) result, asked);
        failed((LockFailure) result, "acquire", "Retrying with back-off.");
      }
    }

    // -------------------------------------------------------------- lead and renew

    /** The write of {@code record} at {@code version}, started at {@code start}, won a term. */
    private void startTerm(LeaderRecord record, String version, long start) {
      effects.add(new Effect.Succeeded("acquire"));
      long token = record.leaderTransitions();
      Instant startedAt = Objects.requireNonNullElse(record.acquireTime(), wall);
      phase = new Phase.Leading(token, startedAt, new Phase.Claim(version, record), start);
      epoch++;
      failures = 0;
      unanswered = null;
      view = view.withToken(token);
      see(new LockRead.Found(version, record));
      effects.add(new Effect.StartTerm(token, startedAt, start + renewDeadline));
      log(Level.INFO, "started leading (term " + token + ")");
      effects.add(new Effect.ArmDeadline(start + renewDeadline - now));
      schedule(new Delay.Retry(start, Long.MAX_VALUE));
    }

    /** A renewal is due: renew, unless renewDeadline has passed since the last successful write. */
    private void renewDue(Phase.Leading leading) {
      renew(leading, Purpose.RENEW);
    }

    /** Renews {@code leading}'s record at its claim's version, unless the deadline has passed. */
    private void renew(Phase.Leading leading, Purpose purpose) {
      if (now - leading.validFrom() >= renewDeadline) {
        deadlineExceeded(leading);
        return;
      }
      write(purpose, leading.claim().version(), leading.record().withRenewTime(wall), null);
    }

    private void renewed(Phase.Leading leading, LockWrite result, InFlight asked) {
      LeaderRecord renewed = Objects.requireNonNull(asked.writing());
      long start = asked.start();
      if (result instanceof LockWrite.Written written) {
        phase =
            new Phase.Leading(
                leading.token(),
                leading.startedAt(),
                new Phase.Claim(written.version(), renewed),
                start);
        succeeded("renew");
        effects.add(new Effect.ExtendTerm(start + renewDeadline));
        see(new LockRead.Found(written.version(), renewed));
        effects.add(new Effect.ArmDeadline(start + renewDeadline - now));
        schedule(new Delay.Retry(start, Long.MAX_VALUE));
      } else if (result instanceof LockWrite.Conflict conflict
          && asked.purpose() == Purpose.RENEW_OVER_EDIT) {
        phase = new Phase.Following(new Phase.Claim(leading.claim().version(), null));
        log(
            Level.DEBUG,
            "renew conflicted again ("
                + conflict.detail()
                + "); stepping down and reading the lock");
        endTerm(leading, Ending.LOCK_LOST);
        watchCurrent = false;
        follow(new Delay.Exactly(0));
      } else if (result instanceof LockWrite.Conflict conflict) {
        // Someone else wrote the lock: another holder, or an edit that left the record ours (a
        // label, an annotation). The term stays valid only until its deadline whatever the read
        // shows, so reading first costs no safety: no candidate can take a lock it saw renewed
        // before that deadline has passed on this candidate's clock.
        log(
            Level.DEBUG,
            "renew conflicted (" + conflict.detail() + "); reading the lock to see whose it is");
        Phase.Leading conflicted =
            new Phase.Leading(
                leading.token(), leading.startedAt(), leading.claim(), leading.validFrom(), true);
        phase = conflicted;
        verify(conflicted);
      } else {
        renewalFailed(leading, (LockFailure) result, start);
      }
    }

    private void renewalFailed(Phase.Leading leading, LockFailure failure, long start) {
      long left = leading.validFrom() + renewDeadline - now;
      effects.add(
          new Effect.Failed(
              "renew",
              failure,
              "Stepping down in " + Duration.ofNanos(left) + " unless a renewal succeeds."));
      // The next try comes a retryPeriod after this one started, as renewals do: a renewal that
      // failed slowly (a call that timed out, a server that answered late) is retried at once,
      // so a stalled request does not cost the rest of the deadline a retry period more.
      long sinceStart = now - start;
      schedule(new Delay.Exactly(Math.min(Math.max(0, retry - sinceStart), Math.max(0, left))));
    }

    /**
     * The read after a conflicting renewal answered. A record that still names this leader with its
     * own term's token was changed only outside the election's fields: the leader takes the new
     * version and renews over it at once. Anything else ends the term.
     */
    /** Reads the lock after a conflicting renewal, unless the deadline has passed. */
    private void verify(Phase.Leading leading) {
      if (now - leading.validFrom() >= renewDeadline) {
        deadlineExceeded(leading);
        return;
      }
      read(Purpose.VERIFY);
    }

    private void verified(Phase.Leading leading, LockRead result) {
      // At most one renewal goes over what the read shows: if that conflicts too, the term ends.
      if (result instanceof LockRead.Found found && ours(found.record(), leading)) {
        see(found);
        if (found.record().prefersOtherThan(identity)) {
          handOverAsked(leading, found);
          return;
        }
        Phase.Leading adopted = adopt(leading, found);
        log(
            Level.DEBUG,
            "the lock changed without a change of holder or term (metadata); renewing over version "
                + found.version());
        renew(adopted, Purpose.RENEW_OVER_EDIT);
        return;
      }
      phase = new Phase.Following(new Phase.Claim(leading.claim().version(), null));
      endTerm(leading, Ending.LOCK_LOST);
      effects.add(new Effect.Watch());
      if (result instanceof LockFailure failure) {
        // Someone wrote the lock and it cannot be read: as good as lost.
        failed(failure, "read", "Stepping down: the lock was written by someone else.");
      } else {
        log(Level.DEBUG, "the lock is no longer this leader's; stepping down");
        decide(see(result), "read");
      }
    }

    /**
     * Whether {@code record} names this leader with its own term's token, in a lock candidates may
     * write: a lock now under coordinated leader election is someone else's.
     */
    private boolean ours(LeaderRecord record, Phase.Leading leading) {
      return record.isHeldBy(identity)
          && record.leaderTransitions() == leading.token()
          && !TakeoverRule.coordinated(record);
    }

    /** Leads on over {@code found}, this term's own record at a version changed by someone else. */
    private Phase.Leading adopt(Phase.Leading leading, LockRead.Found found) {
      Phase.Leading adopted =
          new Phase.Leading(
              leading.token(),
              leading.startedAt(),
              new Phase.Claim(found.version(), found.record()),
              leading.validFrom());
      phase = adopted;
      return adopted;
    }

    private void deadlineDue() {
      if (!(phase instanceof Phase.Leading leading)) {
        return;
      }
      if (now - leading.validFrom() >= renewDeadline) {
        deadlineExceeded(leading);
      } else {
        effects.add(new Effect.ArmDeadline(leading.validFrom() + renewDeadline - now));
      }
    }

    private void deadlineExceeded(Phase.Leading leading) {
      phase = new Phase.Following(leading.claim());
      // A renewal conflicted and the read that would tell whose the lock is has not answered:
      // someone else wrote it, so the term ends as lost.
      boolean conflicted =
          leading.conflicted()
              || (call != null
                  && call.purpose() == Purpose.RENEW_OVER_EDIT
                  && call.epoch() == epoch);
      log(
          Level.ERROR,
          "lost leadership: no successful renewal within renewDeadline "
              + settings.renewDeadline()
              + (conflicted ? " after a conflicting write by someone else" : ""));
      endTerm(leading, conflicted ? Ending.LOCK_LOST : Ending.RENEW_DEADLINE_EXCEEDED);
      // A leader past its deadline backs off as after a failure.
      failures = Math.max(failures, 1);
      follow(new Delay.Backoff(failures, Long.MAX_VALUE));
    }

    /** Ends the term {@code leading} led; what was scheduled for it is cancelled. */
    private void endTerm(Phase.Leading leading, Ending reason) {
      epoch++;
      effects.add(new Effect.CancelDeadline());
      cancelStep();
      effects.add(new Effect.EndTerm(leading.token(), reason));
    }

    // -------------------------------------------------------------- step down

    private void stepDownAsked(long until) {
      if (!(phase instanceof Phase.Leading leading) || closeRequested) {
        return;
      }
      phase = new Phase.SteppingDown(leading.claim(), leading.token(), until);
      view = view.holdingOffUntil(until);
      endTerm(leading, Ending.STEPPED_DOWN);
    }

    /**
     * The watch shows the lock, still naming this leader, asking that another identity lead next:
     * the term ends as on request, and the release goes over the version that carries the request.
     */
    private void handOverAsked(Phase.Leading leading, LockRead.Found found) {
      phase =
          new Phase.SteppingDown(
              new Phase.Claim(found.version(), found.record()),
              leading.token(),
              now + requestTimeout);
      see(found);
      log(
          Level.INFO,
          found.record().preferredHolder()
              + " is asked to lead next; stepping down (term "
              + leading.token()
              + ")");
      endTerm(leading, Ending.STEPPED_DOWN);
    }

    private void stopCallbackReturned(long token) {
      if (phase instanceof Phase.SteppingDown steppingDown
          && steppingDown.awaitingStopOf() == token) {
        Phase.SteppingDown returned =
            new Phase.SteppingDown(
                steppingDown.claim(), Phase.NO_STOP, steppingDown.holdOffUntil());
        phase = returned;
        releaseAfterStepDown(returned);
      } else if (phase instanceof Phase.Closing closing && closing.awaitingStopOf() == token) {
        phase = new Phase.Closing(closing.claim(), Phase.NO_STOP);
        releaseOrFinish();
      }
    }

    /**
     * A stepped-down candidate releases its claim, as close does, but stays a candidate; with the
     * claim's own record lost, the record last observed is released.
     */
    private void releaseAfterStepDown(Phase.SteppingDown steppingDown) {
      if (call != null) {
        return; // a renewal sent before; its answer takes the next step
      }
      Phase.Claim claim = steppingDown.claim();
      LeaderRecord base = claim.record() != null ? claim.record() : seenRecord();
      if (base == null) {
        phase = new Phase.Following(claim);
        follow(new Delay.Exactly(0));
        return;
      }
      write(Purpose.RELEASE_AFTER_STEP_DOWN, claim.version(), base.released(wall), claim);
    }

    private void releasedAfterStepDown(LockWrite result, Phase.Claim claim) {
      if (result instanceof LockWrite.Written) {
        phase = new Phase.Following(null);
        log(Level.INFO, "released the lock after stepping down; still a candidate");
      } else if (result instanceof LockWrite.Conflict) {
        phase = new Phase.Following(null); // someone else wrote it: not ours to release any more
      } else {
        phase = new Phase.Following(claim);
        effects.add(
            new Effect.Failed(
                "release",
                (LockFailure) result,
                "The lock will expire after its lease duration; following until then."));
      }
      follow(new Delay.Exactly(0));
    }

    // -------------------------------------------------------------- release and close

    private void close() {
      closeRequested = true;
      if (Phase.closing(phase)) {
        return;
      }
      // A stop callback still running after a step-down is awaited too.
      long awaiting =
          phase instanceof Phase.Leading leading
              ? leading.token()
              : phase instanceof Phase.SteppingDown steppingDown
                  ? steppingDown.awaitingStopOf()
                  : Phase.NO_STOP;
      Phase before = phase;
      phase = new Phase.Closing(Phase.claimOf(before), awaiting);
      cancelStep();
      if (before instanceof Phase.Leading leading) {
        endTerm(leading, Ending.CLOSED);
      }
      epoch++;
      effects.add(new Effect.ArmCloseTimer(closeTimeout));
      if (awaiting == Phase.NO_STOP) {
        releaseOrFinish();
      }
    }

    /**
     * Closing once the stop callback returned: finish, or release the claim once no write that may
     * yet name this candidate is in flight.
     */
    private void releaseOrFinish() {
      if (!(phase instanceof Phase.Closing closing) || closing.awaitingStopOf() != Phase.NO_STOP) {
        return;
      }
      if (!settings.releaseOnClose()) {
        closed();
        return;
      }
      if (call != null && call.writes()) {
        return; // the write may yet name us; its answer comes back here
      }
      Phase.Claim claim = closing.claim();
      if (claim == null) {
        closed();
        return;
      }
      if (call != null) {
        return; // the call's answer comes back here
      }
      Phase.Releasing releasing = new Phase.Releasing(claim);
      phase = releasing;
      releaseDue(releasing);
    }

    private void releaseDue(Phase.Releasing releasing) {
      Phase.Claim claim = releasing.claim();
      LeaderRecord base = claim.record() != null ? claim.record() : seenRecord();
      if (base == null) {
        closed();
        return;
      }
      write(Purpose.RELEASE, claim.version(), base.released(wall), claim);
    }

    private void released(LockWrite result) {
      if (result instanceof LockWrite.Written) {
        log(Level.INFO, "released the lock");
        closed();
      } else if (result instanceof LockWrite.Conflict) {
        read(Purpose.READ_FOR_RELEASE); // still ours, by a version this candidate did not see?
      } else {
        effects.add(
            new Effect.Failed("release", (LockFailure) result, "Retrying until closeTimeout."));
        schedule(new Delay.Exactly(retry / 2));
      }
    }

    private void readForRelease(LockRead result) {
      if (result instanceof LockRead.Found found && found.record().isHeldBy(identity)) {
        Phase.Releasing releasing =
            new Phase.Releasing(new Phase.Claim(found.version(), found.record()));
        phase = releasing;
        releaseDue(releasing);
      } else if (result instanceof LockFailure failure) {
        effects.add(new Effect.Failed("release", failure, "Retrying until closeTimeout."));
        schedule(new Delay.Exactly(retry / 2));
      } else {
        closed(); // no longer ours
      }
    }

    private void closeTimedOut() {
      if (!(phase instanceof Phase.Closing || phase instanceof Phase.Releasing)) {
        return;
      }
      log(
          Level.WARN,
          "close did not finish within closeTimeout "
              + settings.closeTimeout()
              + "; "
              + (Phase.claimOf(phase) != null && settings.releaseOnClose()
                  ? "the lock was not released and will expire after its lease duration"
                  : "a stop callback may still be running"));
      closed();
    }

    private void closed() {
      phase = new Phase.Closed();
      finish();
    }

    private void finish() {
      epoch++;
      call = null;
      stepPending = false;
      effects.add(new Effect.Finish());
    }

    // -------------------------------------------------------------- calls and their answers

    private void read(Purpose purpose) {
      issue(purpose, null, null, null);
    }

    /**
     * Writes {@code record} at {@code version} (a create when null); {@code over} is the claim a
     * release writes over.
     */
    private void write(
        Purpose purpose,
        @Nullable String version,
        LeaderRecord record,
        Phase.@Nullable Claim over) {
      issue(purpose, version, record, over);
    }

    /** Makes a call if the budget allows it now, else takes the next step once it will. */
    private void issue(
        Purpose purpose,
        @Nullable String version,
        @Nullable LeaderRecord record,
        Phase.@Nullable Claim over) {
      long wait = budget.waitAt(now);
      if (wait > 0) {
        effects.add(new Effect.CallDeferred(wait));
        schedule(new Delay.Exactly(wait));
        return;
      }
      budget = budget.spend(now);
      seq++;
      boolean namesUs = purpose != Purpose.RELEASE && purpose != Purpose.RELEASE_AFTER_STEP_DOWN;
      call =
          new InFlight(
              seq,
              purpose,
              epoch,
              now,
              namesUs ? record : null,
              over,
              watchEvents,
              view.othersSeen());
      effects.add(new Effect.Call(seq, purpose, version, record));
    }

    private void answered(long answeredSeq, @Nullable LockRead read, @Nullable LockWrite write) {
      InFlight asked = call;
      if (asked == null || asked.seq() != answeredSeq) {
        return; // the driver delivers only the call in flight; anything else is stale
      }
      call = null;
      if (asked.epoch() != epoch) {
        answeredEarlierPhase(asked, write);
        return;
      }
      switch (asked.purpose()) {
        case LOOK -> looked(Objects.requireNonNull(read), asked);
        case READ_FOR_RELEASE -> {
          if (phase instanceof Phase.Releasing) {
            readForRelease(Objects.requireNonNull(read));
          }
        }
        case FIRST_CREATE, CREATE -> created(Objects.requireNonNull(write), asked);
        case ACQUIRE -> acquired(Objects.requireNonNull(write), asked);
        case RENEW, RENEW_OVER_EDIT -> {
          if (phase instanceof Phase.Leading leading) {
            renewed(leading, Objects.requireNonNull(write), asked);
          }
        }
        case VERIFY -> {
          if (phase instanceof Phase.Leading leading) {
            verified(leading, Objects.requireNonNull(read));
          }
        }
        case RELEASE_AFTER_STEP_DOWN ->
            releasedAfterStepDown(
                Objects.requireNonNull(write), Objects.requireNonNull(asked.over()));
        case RELEASE -> {
          if (phase instanceof Phase.Releasing) {
            released(Objects.requireNonNull(write));
          }
        }
      }
    }

    /**
     * A call made in an earlier phase answered: a write that took effect left a record naming this
     * candidate, whose version and token the phase keeps so that close may release it.
     */
    private void answeredEarlierPhase(InFlight asked, @Nullable LockWrite write) {
      if (write instanceof LockWrite.Written written) {
        phase = Phase.withClaim(phase, new Phase.Claim(written.version(), asked.writing()));
      }
      if (phase instanceof Phase.Closing || phase instanceof Phase.Releasing) {
        releaseOrFinish();
      } else if (!stepPending) {
        boolean atOnce = phase instanceof Phase.Leading || phase instanceof Phase.SteppingDown;
        schedule(atOnce ? new Delay.Exactly(0) : new Delay.Retry(now, Long.MAX_VALUE));
      }
    }

    // -------------------------------------------------------------- small effects

    /** Counts a failed call and backs off; the view may be stale, so the next step reads. */
    private void failed(LockFailure failure, String callName, String consequence) {
      failures++;
      lastFailure = failure;
      effects.add(new Effect.Failed(callName, failure, consequence));
      watchCurrent = false;
      schedule(backoff(failure));
    }

    /**
     * The back-off after a failure, which never keeps a candidate from the lock past the moment it
     * could take it: from then on it tries once a retry period, so the end of an outage costs at
     * most a retry period (with jitter) and a round trip. Back-off only spares a server while the
     * lock is someone else's anyway. A configuration problem (a missing permission, say) backs off
     * in full: retrying sooner cannot help.
     */
    private Delay backoff(LockFailure failure) {
      if (failure.kind().isConfigurationProblem()) {
        return new Delay.Backoff(failures, Long.MAX_VALUE);
      }
      Observation seen = view.current();
      long untilTakeable = seen == null ? 0 : Math.max(0, mayTakeFrom(seen) - now);
      return new Delay.Backoff(failures, untilTakeable);
    }

    private void succeeded(String callName) {
      effects.add(new Effect.Succeeded(callName));
      failures = 0;
    }

    private @Nullable LeaderRecord seenRecord() {
      Observation seen = view.current();
      return seen == null ? null : seen.record();
    }

    private void schedule(Delay delay) {
      stepPending = true;
      effects.add(new Effect.ScheduleStep(delay));
    }

    private void cancelStep() {
      stepPending = false;
      effects.add(new Effect.CancelStep());
    }

    private void log(Level level, String message) {
      effects.add(new Effect.Log(level, message));
    }
  }
}
