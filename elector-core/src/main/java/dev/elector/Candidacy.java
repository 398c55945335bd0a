package dev.elector;

import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.time.MonotonicClock;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * A candidate's part while it does not lead: it looks at the lock (watch events, reads), and takes
 * it once {@link TakeoverRule} lets it, by a create or a conditional update; it keeps the streak of
 * failed calls that sets the back-off. A change of phase it causes (a term begins, a release asked
 * for by the lock) is a {@link Transitions transition} handed to the election. Guarded by the
 * loop's monitor; owned by the {@link Election}.
 */
final class Candidacy {
  private static final Logger log = ElectionLoop.log;

  private final ElectionLoop loop;
  private final Transitions transitions;
  private final LockView view;
  private final LockWatching watching;
  private final FailureLog failureLog;
  private final LeaderLock lock;
  private final String identity;
  private final String subject;
  private final MonotonicClock clock;
  private final ElectorConfig config;

  /**
   * Watch events in the order the watch delivered them: the scheduler may run two tasks on two
   * threads, and an older event taken in after a newer one would turn the view back.
   */
  private final SerialExecutor watchEvents;

  private @Nullable PhaseOwner owner;
  private int consecutiveFailures;
  private @Nullable LockFailure lastFailure;

  /** Watch events taken in while following; a read answered after one of them may be older. */
  private long watchEventsSeen;

  /** Whether the first look, a create without a read (see look), was taken. */
  private boolean createTried;

  Candidacy(ElectionLoop loop, Transitions transitions, LockView view, FailureLog failureLog) {
    this.loop = loop;
    this.transitions = transitions;
    this.view = view;
    this.watching = loop.watching;
    this.failureLog = failureLog;
    this.lock = loop.lock;
    this.identity = loop.identity;
    this.subject = loop.subject;
    this.clock = loop.clock;
    this.config = loop.config;
    this.watchEvents = new SerialExecutor(loop::execute);
  }

  /** Binds the election; its start does, once. */
  void bind(PhaseOwner owner) {
    this.owner = owner;
  }

  private PhaseOwner owner() {
    PhaseOwner bound = owner;
    if (bound == null) {
      throw new IllegalStateException(subject + ": the candidacy runs only once started");
    }
    return bound;
  }

  // ---------------------------------------------------------------- the failure streak

  int consecutiveFailures() {
    return consecutiveFailures;
  }

  @Nullable LockFailure lastFailure() {
    return lastFailure;
  }

  void resetFailures() {
    consecutiveFailures = 0;
  }

  /** A leader past its deadline backs off as after a failure. */
  long backOffAfterDeadline() {
    consecutiveFailures = Math.max(consecutiveFailures, 1);
    return loop.failureDelay(consecutiveFailures);
  }

  /** Counts a failed call and backs off; the view may be stale, so the next step reads. */
  private void failed(LockFailure failure, String action, long now, String consequence) {
    consecutiveFailures++;
    lastFailure = failure;
    failureLog.failure(action, failure, now, consequence);
    watching.markStale();
    loop.scheduleStep(loop.failureDelay(consecutiveFailures));
  }

  // ---------------------------------------------------------------- observe

  /** Follows the lock and takes the next look after {@code delay}. */
  void follow(long delay) {
    watching.open(
        lock,
        config.watchWhenFollowing(),
        event -> watchEvents.execute(() -> onWatchEventLocked(event)));
    loop.scheduleStep(delay);
  }

  private void onWatchEventLocked(LockRead event) {
    synchronized (loop.monitor) {
      onWatchEvent(event);
    }
  }

  /** A follower's look: take the lock, create it on the first look, or read it. */
  void look() {
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
      read();
    }
  }

  private void read() {
    long eventsBefore = watchEventsSeen;
    loop.read(CallPurpose.READ, (result, start) -> onRead(result, eventsBefore));
  }

  private void onRead(LockRead result, long eventsBefore) {
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
      if (owner().phase() instanceof Phase.Following && !loop.callInFlight()) {
        loop.scheduleStep(loop.retryDelay());
      }
      return;
    }
    watching.resumed();
    Phase phase = owner().phase();
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
        look();
      } else if (!loop.callInFlight()) {
        loop.scheduleStep(untilNextLook(seen, now));
      }
    } else if (phase instanceof Phase.Leading leading) {
      if (event instanceof LockRead.Found found) {
        view.noteToken(found.record().leaderTransitions());
        if (found.record().isHeldBy(identity)
            && found.record().leaderTransitions() == leading.record().leaderTransitions()) {
          if (found.record().prefersOtherThan(identity)) {
            // An operator asked that another identity lead next: the release keeps the request,
            // so that identity takes the lock and the others, this one included, hold back.
            owner().apply(transitions.handOverAsked(leading, found, now + view.requestTimeout()));
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

  /**
   * Holds back from the lock until {@code until}; the next look moves with the hold, without a
   * call.
   */
  void holdOff(long until, long now, boolean following) {
    view.holdOff(until);
    Observation seen = view.current();
    if (following && !loop.callInFlight() && seen != null) {
      loop.scheduleStep(untilNextLook(seen, now));
    }
  }

  /** Whether this candidate has seen the lock, and its watch or its last call is fresh. */
  boolean seesTheLock() {
    return view.current() != null && (watching.current() || consecutiveFailures == 0);
  }

  /** The holder of a live lease on this candidate's clock; see {@link Election#liveHolder()}. */
  Optional<String> liveHolder(boolean seenRenewing) {
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
    owner()
        .apply(
            transitions.releaseAsked(
                new LockRead.Found(version, record), now + view.requestTimeout()));
    return true;
  }

  // ---------------------------------------------------------------- acquire

  /**
   * Writes a record naming this candidate over {@code seen}, the current observation, or creates
   * the lock when nothing has been seen of it yet ({@code seen} null).
   */
  private void acquire(@Nullable Observation seen) {
    long token =
        seen == null ? view.highestToken() + 1 : TakeoverRule.nextToken(view.highestToken(), seen);
    Instant at = loop.wall.instant();
    LeaderRecord record = new LeaderRecord(identity, config.leaseDuration(), at, at, token);
    String version = seen == null ? null : seen.version();
    if (seen == null || version == null) {
      log.debug("{}: lock is absent or not seen yet, creating it", subject);
      long othersBefore = view.othersSeen();
      loop.write(
          LockCall.CREATE,
          record,
          CallPurpose.ACQUIRE,
          () -> lock.create(record),
          (result, start) -> onCreateWrite(result, start, record, at, othersBefore, seen == null));
    } else {
      log.debug("{}: trying to acquire (holder was {})", subject, seen.describeHolder());
      loop.write(
          LockCall.UPDATE,
          record,
          CallPurpose.ACQUIRE,
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
      read();
      return;
    }
    if (result instanceof LockWrite.Written written && view.othersSeen() != othersBefore) {
      failureLog.success("acquire");
      consecutiveFailures = 0;
      view.see(new LockRead.Found(written.version(), record), now);
      view.holdOff(now + loop.timings.lease());
      log.warn(
          "{}: created the lock after another candidate's copy of it was deleted; holding it"
              + " without leading for leaseDuration {}, since that candidate may still lead",
          subject,
          config.leaseDuration());
      loop.scheduleStep(loop.timings.lease());
      return;
    }
    onAcquireWrite(result, start, record, at);
  }

  private void onAcquireWrite(LockWrite result, long start, LeaderRecord record, Instant at) {
    long now = clock.nanos();
    if (result instanceof LockWrite.Written written) {
      failureLog.success("acquire");
      Term term =
          new Term(
              identity,
              lock.describe(),
              record.leaderTransitions(),
              at,
              loop.callbackExecutor,
              clock,
              start + loop.timings.renewDeadline());
      owner().apply(transitions.acquired(term, written.version(), record, start));
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
}
