package dev.elector.internal.candidate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The candidate machine, transition by transition: each test feeds events at stated instants and
 * reads the phase and the effects, with no clock, scheduler or lock. Timings: lease 15 s, renew
 * deadline 10 s, retry 2 s.
 */
class CandidateTest {
  private static final long S = 1_000_000_000L;
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final LeaderRecord THEIRS =
      new LeaderRecord("other", Duration.ofSeconds(15), T0, T0, 5);

  private final Candidate machine = candidate(true);
  private State state = machine.initial();
  private List<Effect> effects = List.of();

  private static Candidate candidate(boolean releaseOnClose) {
    return new Candidate(
        new Candidate.Settings(
            "me",
            Duration.ofSeconds(15),
            Duration.ofSeconds(10),
            Duration.ofSeconds(2),
            Duration.ofSeconds(5),
            releaseOnClose,
            4,
            2));
  }

  /** Feeds {@code event} at {@code seconds} and keeps the next state and its effects. */
  private void at(double seconds, Event event) {
    long nanos = (long) (seconds * S);
    Candidate.Step step =
        machine.next(state, event, new Candidate.Moment(nanos, T0.plusNanos(nanos)));
    state = step.next();
    effects = step.effects();
  }

  private <T extends Effect> T effect(Class<T> kind) {
    return effects.stream()
        .filter(kind::isInstance)
        .map(kind::cast)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind.getSimpleName() + " in " + effects));
  }

  private boolean has(Class<? extends Effect> kind) {
    return effects.stream().anyMatch(kind::isInstance);
  }

  private long callSeq() {
    return effect(Effect.Call.class).seq();
  }

  /** Gate open at 0, first look (a create) at 0 written: leading from 0. */
  private void leadFromZero() {
    at(0, new Event.GateCompleted(null));
    at(0, new Event.StepDue());
    at(0, new Event.WriteAnswered(callSeq(), new LockWrite.Written("1")));
  }

  private Phase.Leading leading() {
    return assertInstanceOf(Phase.Leading.class, state.phase());
  }

  // ---------------------------------------------------------------- looking and acquiring

  @Test
  void theGateLetsACandidateFollowAndItsFirstLookIsACreate() {
    at(0, new Event.GateCompleted(null));
    assertInstanceOf(Phase.Following.class, state.phase());
    assertTrue(has(Effect.Watch.class));
    assertEquals(
        new Effect.ScheduleStep(new Effect.Delay.Exactly(0)), effect(Effect.ScheduleStep.class));

    at(0, new Event.StepDue());
    Effect.Call create = effect(Effect.Call.class);
    assertEquals(Effect.Kind.CREATE, create.kind());
    assertEquals(Purpose.FIRST_CREATE, create.purpose());
    assertEquals("me", create.record().holderIdentity());
  }

  @Test
  void aFailedGateKeepsTheCandidateOutAndSaysSo() {
    at(0, new Event.GateCompleted("cache never synced"));
    assertEquals(new Phase.AwaitingGate("cache never synced"), state.phase());
    assertEquals(Effect.Level.ERROR, effect(Effect.Log.class).level());
    at(1, new Event.StepDue());
    assertFalse(has(Effect.Call.class), "no call from a candidate that is out");
  }

  @Test
  void aRefusedFirstCreateReadsAtOnceAndAnUnexpiredForeignRecordIsLeftAlone() {
    at(0, new Event.GateCompleted(null));
    at(0, new Event.StepDue());
    at(0.1, new Event.WriteAnswered(callSeq(), new LockWrite.Conflict("exists")));
    assertEquals(Effect.Kind.READ, effect(Effect.Call.class).kind());

    at(0.2, new Event.ReadAnswered(callSeq(), new LockRead.Found("7", THEIRS)));
    assertFalse(has(Effect.Call.class), "the holder's lease runs");
    assertEquals(new Effect.LeaderObserved("other"), effect(Effect.LeaderObserved.class));
    // not watching yet: polls a retry period on, never past the expiry 15 s after the sighting
    assertEquals(
        new Effect.Delay.Retry((long) (0.2 * S), 15 * S),
        effect(Effect.ScheduleStep.class).delay());
  }

  @Test
  void aRecordUnchangedForALeaseOnThisCandidatesClockIsTaken() {
    at(0, new Event.GateCompleted(null));
    at(0, new Event.Watched(new LockRead.Found("7", THEIRS)));
    assertEquals(new Effect.Delay.Exactly(15 * S), effect(Effect.ScheduleStep.class).delay());

    at(14.9, new Event.StepDue());
    assertEquals(Effect.Kind.READ, effect(Effect.Call.class).kind(), "not yet: it reads");
    at(14.9, new Event.ReadAnswered(callSeq(), new LockRead.Found("7", THEIRS)));

    at(15, new Event.StepDue());
    Effect.Call take = effect(Effect.Call.class);
    assertEquals(Effect.Kind.UPDATE, take.kind());
    assertEquals("7", take.version(), "conditional on the version seen");
    assertEquals(6, take.record().leaderTransitions(), "a token above the highest seen");
  }

  // ---------------------------------------------------------------- recovering from faults

  @Test
  void aFailureBacksOffOnlyUntilTheLockCouldBeTakenThenTriesEachRetryPeriod() {
    at(0, new Event.GateCompleted(null));
    at(0, new Event.Watched(new LockRead.Found("7", THEIRS))); // expires at 15 on our clock
    LockFailure down = LockFailure.of(LockFailure.Kind.UNAVAILABLE, "connection refused");
    at(1, new Event.Watched(down));
    at(3, new Event.StepDue());
    at(3, new Event.ReadAnswered(callSeq(), down));
    assertEquals(
        new Effect.Delay.Backoff(1, 12 * S),
        effect(Effect.ScheduleStep.class).delay(),
        "backs off, but not past the holder's expiry");
    at(14, new Event.StepDue());
    at(14, new Event.ReadAnswered(callSeq(), down));
    at(16, new Event.StepDue());
    at(16, new Event.ReadAnswered(callSeq(), down));
    assertEquals(
        new Effect.Delay.Backoff(3, 0),
        effect(Effect.ScheduleStep.class).delay(),
        "the lock could be taken now: one try per retry period, whatever the streak");
  }

  @Test
  void aConfigurationProblemBacksOffInFull() {
    at(0, new Event.GateCompleted(null));
    at(0, new Event.StepDue());
    LockFailure forbidden = LockFailure.of(LockFailure.Kind.FORBIDDEN, "no create on leases");
    at(0.1, new Event.WriteAnswered(callSeq(), forbidden));
    at(0.2, new Event.ReadAnswered(callSeq(), new LockRead.Absent()));
    assertEquals(Effect.Kind.CREATE, effect(Effect.Call.class).kind());
    at(0.3, new Event.WriteAnswered(callSeq(), forbidden));
    assertEquals(
        new Effect.Delay.Backoff(1, Long.MAX_VALUE), effect(Effect.ScheduleStep.class).delay());
  }

  @Test
  void anAcquisitionThatLandedAfterItsAnswerWasGivenUpIsReleasedNotTakenOver() {
    at(0, new Event.GateCompleted(null));
    at(0, new Event.StepDue());
    Effect.Call create = effect(Effect.Call.class);
    LockFailure late = LockFailure.of(LockFailure.Kind.TIMEOUT, "no answer within 5 s");
    at(5, new Event.WriteAnswered(create.seq(), late));
    assertEquals(Effect.Kind.READ, effect(Effect.Call.class).kind());

    at(5.1, new Event.ReadAnswered(callSeq(), new LockRead.Found("1", create.record())));
    assertFalse(has(Effect.StartTerm.class), "an answer given up on starts no term");
    Effect.Call release = effect(Effect.Call.class);
    assertEquals(Purpose.RELEASE_AFTER_STEP_DOWN, release.purpose(), "not an acquisition over it");
    assertEquals("1", release.version());
    assertTrue(release.record().isReleased());

    at(5.2, new Event.WriteAnswered(release.seq(), new LockWrite.Written("2")));
    assertEquals(new Phase.Following(null), state.phase(), "still a candidate");
  }

  @Test
  void anAcquisitionWhoseAnswerWasLostFastIsTakenOverAsBefore() {
    at(0, new Event.GateCompleted(null));
    at(0, new Event.StepDue());
    Effect.Call create = effect(Effect.Call.class);
    LockFailure reset = LockFailure.of(LockFailure.Kind.UNAVAILABLE, "connection reset");
    at(0.1, new Event.WriteAnswered(create.seq(), reset));
    at(0.2, new Event.ReadAnswered(callSeq(), new LockRead.Found("1", create.record())));
    Effect.Call take = effect(Effect.Call.class);
    assertEquals(Purpose.ACQUIRE, take.purpose(), "no slow link: its own record, taken at once");
  }

  @Test
  void aLateAcquisitionSeenThroughTheWatchIsReleasedToo() {
    at(0, new Event.GateCompleted(null));
    at(0, new Event.Watched(new LockRead.Found("7", THEIRS)));
    at(15, new Event.StepDue());
    Effect.Call take = effect(Effect.Call.class);
    at(20, new Event.WriteAnswered(take.seq(), LockFailure.of(LockFailure.Kind.TIMEOUT, "5 s")));
    at(21, new Event.Watched(new LockRead.Found("8", take.record())));
    assertEquals(Purpose.RELEASE_AFTER_STEP_DOWN, effect(Effect.Call.class).purpose());
  }

  @Test
  void aRecordOfOursFromBeforeThisCandidateStartedIsTakenAtOnce() {
    LeaderRecord earlier = new LeaderRecord("me", Duration.ofSeconds(15), T0, T0, 3);
    at(0, new Event.GateCompleted(null));
    at(0, new Event.Watched(new LockRead.Found("7", earlier)));
    Effect.Call take = effect(Effect.Call.class);
    assertEquals(Effect.Kind.UPDATE, take.kind(), "a restart with the same identity leads on");
    assertEquals(4, take.record().leaderTransitions());
  }

  // ---------------------------------------------------------------- leading and renewing

  @Test
  void aTermIsCountedFromTheStartOfTheWriteThatWonItNotFromItsAnswer() {
    at(0, new Event.GateCompleted(null));
    at(90, new Event.StepDue());
    at(95, new Event.WriteAnswered(callSeq(), new LockWrite.Written("1")));
    assertEquals(90 * S, leading().validFrom());
    assertEquals(100 * S, effect(Effect.StartTerm.class).validUntil());
    assertEquals(new Effect.ArmDeadline(5 * S), effect(Effect.ArmDeadline.class));
    assertEquals(
        new Effect.Delay.Retry(90 * S, Long.MAX_VALUE), effect(Effect.ScheduleStep.class).delay());
  }

  @Test
  void aRenewalWrittenExtendsTheTermFromItsStart() {
    leadFromZero();
    at(2, new Event.StepDue());
    Effect.Call renew = effect(Effect.Call.class);
    assertEquals(Purpose.RENEW, renew.purpose());
    assertEquals("1", renew.version());
    at(3, new Event.WriteAnswered(renew.seq(), new LockWrite.Written("2")));
    assertEquals(2 * S, leading().validFrom());
    assertEquals(new Effect.ExtendTerm(12 * S), effect(Effect.ExtendTerm.class));
    assertEquals("2", leading().claim().version());
  }

  @Test
  void noRenewalIsSentOnceTheDeadlineHasPassedTheTermEndsAndTheCandidateBacksOff() {
    leadFromZero();
    at(10, new Event.StepDue());
    assertInstanceOf(Phase.Following.class, state.phase());
    assertEquals(
        new Effect.EndTerm(0, Effect.Ending.RENEW_DEADLINE_EXCEEDED), effect(Effect.EndTerm.class));
    assertFalse(has(Effect.Call.class));
    assertEquals(
        new Effect.Delay.Backoff(1, Long.MAX_VALUE), effect(Effect.ScheduleStep.class).delay());
  }

  @Test
  void theDeadlineTimerEndsTheTermOnlyOnceTheDeadlineHasPassed() {
    leadFromZero();
    at(9.9, new Event.DeadlineDue());
    assertInstanceOf(Phase.Leading.class, state.phase());
    assertEquals(new Effect.ArmDeadline((long) (0.1 * S)), effect(Effect.ArmDeadline.class));
    at(10, new Event.DeadlineDue());
    assertInstanceOf(Phase.Following.class, state.phase());
  }

  @Test
  void aConflictingRenewalReadsAndEndsTheTermWhenAnotherHolderWrote() {
    leadFromZero();
    at(2, new Event.StepDue());
    at(2.1, new Event.WriteAnswered(callSeq(), new LockWrite.Conflict("409")));
    assertInstanceOf(
        Phase.Leading.class, state.phase(), "valid until its deadline whatever it reads");
    assertEquals(Effect.Kind.READ, effect(Effect.Call.class).kind());

    at(2.2, new Event.ReadAnswered(callSeq(), new LockRead.Found("9", THEIRS)));
    assertEquals(new Phase.Following(new Phase.Claim("1", null)), state.phase());
    assertEquals(new Effect.EndTerm(0, Effect.Ending.LOCK_LOST), effect(Effect.EndTerm.class));
    assertFalse(has(Effect.Call.class), "the read just made decides: the new holder's lease runs");
  }

  @Test
  void aConflictingRenewalOverOurOwnRecordEditedBySomeoneElseRenewsOverTheNewVersion() {
    leadFromZero();
    LeaderRecord ours = leading().record();
    at(2, new Event.StepDue());
    at(2.1, new Event.WriteAnswered(callSeq(), new LockWrite.Conflict("409")));
    at(2.2, new Event.ReadAnswered(callSeq(), new LockRead.Found("5", ours)));
    Effect.Call renew = effect(Effect.Call.class);
    assertEquals("5", renew.version(), "over the version of the label edit");
    assertFalse(has(Effect.EndTerm.class));
    at(2.3, new Event.WriteAnswered(renew.seq(), new LockWrite.Written("6")));
    assertEquals(0, leading().token(), "the same term");
    assertEquals(new Effect.ExtendTerm((long) (12.2 * S)), effect(Effect.ExtendTerm.class));
  }

  @Test
  void aRenewalOverAnEditThatConflictsAgainEndsTheTerm() {
    leadFromZero();
    LeaderRecord ours = leading().record();
    at(2, new Event.StepDue());
    at(2.1, new Event.WriteAnswered(callSeq(), new LockWrite.Conflict("409")));
    at(2.2, new Event.ReadAnswered(callSeq(), new LockRead.Found("5", ours)));
    assertEquals(Purpose.RENEW_OVER_EDIT, effect(Effect.Call.class).purpose());
    at(2.3, new Event.WriteAnswered(callSeq(), new LockWrite.Conflict("409")));
    assertEquals(new Effect.EndTerm(0, Effect.Ending.LOCK_LOST), effect(Effect.EndTerm.class));
    assertInstanceOf(Phase.Following.class, state.phase());
  }

  @Test
  void aCheckDeferredByTheBudgetIsMadeAtTheNextStepNotARenewal() {
    leadFromZero(); // one call spent
    at(0.1, new Event.StepDue()); // renewals at once: three more, the burst is spent
    at(0.1, new Event.WriteAnswered(callSeq(), new LockWrite.Written("2")));
    at(0.1, new Event.StepDue());
    at(0.1, new Event.WriteAnswered(callSeq(), new LockWrite.Written("3")));
    at(0.1, new Event.StepDue());
    at(0.2, new Event.WriteAnswered(callSeq(), new LockWrite.Conflict("409")));
    assertEquals(new Effect.CallDeferred((long) (0.8 * S)), effect(Effect.CallDeferred.class));

    at(1.0, new Event.StepDue());
    Effect.Call check = effect(Effect.Call.class);
    assertEquals(Purpose.VERIFY, check.purpose(), "the read it owes, not another renewal");
  }

  @Test
  void aConflictThatCannotBeCheckedEndsTheTermAsLost() {
    leadFromZero();
    at(2, new Event.StepDue());
    at(2.1, new Event.WriteAnswered(callSeq(), new LockWrite.Conflict("409")));
    LockFailure down = LockFailure.of(LockFailure.Kind.UNAVAILABLE, "down");
    at(2.2, new Event.ReadAnswered(callSeq(), down));
    assertEquals(new Effect.EndTerm(0, Effect.Ending.LOCK_LOST), effect(Effect.EndTerm.class));
    assertEquals(
        new Effect.Delay.Backoff(1, 0),
        effect(Effect.ScheduleStep.class).delay(),
        "the record last seen is its own: it may try again after one retry period");
  }

  @Test
  void theDeadlinePassingWhileAConflictIsCheckedEndsTheTermAsLost() {
    leadFromZero();
    at(9, new Event.StepDue());
    at(9.5, new Event.WriteAnswered(callSeq(), new LockWrite.Conflict("409")));
    at(10, new Event.DeadlineDue());
    assertEquals(new Effect.EndTerm(0, Effect.Ending.LOCK_LOST), effect(Effect.EndTerm.class));
  }

  @Test
  void theWatchShowingOurRecordAtANewVersionIsTakenForTheNextRenewal() {
    leadFromZero();
    LeaderRecord ours = leading().record();
    at(1, new Event.Watched(new LockRead.Found("4", ours)));
    assertTrue(effects.isEmpty(), "no call and no end: " + effects);
    at(2, new Event.StepDue());
    assertEquals("4", effect(Effect.Call.class).version());
  }

  @Test
  void aPreferredHolderAnnotationNamingTheLeaderEndsNoTerm() {
    leadFromZero();
    LeaderRecord namingUs = leading().record().withPreferredHolder("me");
    at(1, new Event.Watched(new LockRead.Found("4", namingUs)));
    assertInstanceOf(Phase.Leading.class, state.phase());
    at(2, new Event.StepDue());
    Effect.Call renew = effect(Effect.Call.class);
    assertEquals("4", renew.version());
    assertEquals("me", renew.record().preferredHolder(), "the renewal keeps the annotation");
  }

  @Test
  void aRenewalThatFailedSlowlyIsRetriedARetryPeriodAfterItStartedNeverPastTheDeadline() {
    leadFromZero();
    at(2, new Event.StepDue());
    LockFailure down = LockFailure.of(LockFailure.Kind.UNAVAILABLE, "down");
    at(2.5, new Event.WriteAnswered(callSeq(), down));
    assertEquals(
        new Effect.Delay.Exactly((long) (1.5 * S)), effect(Effect.ScheduleStep.class).delay());
    at(8.5, new Event.StepDue());
    at(9, new Event.WriteAnswered(callSeq(), down));
    assertEquals(
        new Effect.Delay.Exactly(S),
        effect(Effect.ScheduleStep.class).delay(),
        "the next try comes no later than the deadline");
    assertInstanceOf(Phase.Leading.class, state.phase(), "a failure alone ends no term");
  }

  // ---------------------------------------------------------------- stepping down

  @Test
  void aLeaderStepsDownAndReleasesOnlyOnceItsStopCallbackReturned() {
    leadFromZero();
    at(1, new Event.StepDownAsked(16 * S));
    assertEquals(new Effect.EndTerm(0, Effect.Ending.STEPPED_DOWN), effect(Effect.EndTerm.class));
    assertFalse(has(Effect.Call.class), "no release while onStoppedLeading runs");
    assertEquals(16 * S, state.view().holdOffUntil());

    at(1.1, new Event.StopCallbackReturned(7));
    assertFalse(has(Effect.Call.class), "another term's callback is not this one");

    at(1.2, new Event.StopCallbackReturned(0));
    Effect.Call release = effect(Effect.Call.class);
    assertTrue(release.record().isReleased());
    assertEquals("1", release.version());
    at(1.3, new Event.WriteAnswered(release.seq(), new LockWrite.Written("2")));
    assertEquals(new Phase.Following(null), state.phase(), "still a candidate");
  }

  @Test
  void aStepDownIsRefusedOnceCloseWasRequested() {
    leadFromZero();
    at(1, new Event.CloseRequested());
    Phase before = state.phase();
    at(1, new Event.StepDownAsked(16 * S));
    assertSame(before, state.phase());
    assertTrue(effects.isEmpty());
  }

  // ---------------------------------------------------------------- close

  @Test
  void closeEndsTheTermWaitsForItsStopCallbackReleasesThenFinishes() {
    leadFromZero();
    at(1, new Event.CloseRequested());
    at(1, new Event.Close());
    assertEquals(new Effect.EndTerm(0, Effect.Ending.CLOSED), effect(Effect.EndTerm.class));
    assertEquals(new Effect.ArmCloseTimer(5 * S), effect(Effect.ArmCloseTimer.class));
    assertFalse(has(Effect.Call.class));

    at(1.1, new Event.StopCallbackReturned(0));
    assertInstanceOf(Phase.Releasing.class, state.phase());
    Effect.Call release = effect(Effect.Call.class);
    assertEquals(Purpose.RELEASE, release.purpose());
    at(1.2, new Event.WriteAnswered(release.seq(), new LockWrite.Written("2")));
    assertInstanceOf(Phase.Closed.class, state.phase());
    assertTrue(has(Effect.Finish.class));
  }

  @Test
  void closeWaitsForAWriteInFlightThatMayYetNameThisCandidateAndReleasesWhatItWrote() {
    leadFromZero();
    at(2, new Event.StepDue());
    long renewal = callSeq();
    at(2.1, new Event.Close());
    at(2.2, new Event.StopCallbackReturned(0));
    assertFalse(has(Effect.Call.class), "the renewal may yet land");

    at(2.3, new Event.WriteAnswered(renewal, new LockWrite.Written("2")));
    Effect.Call release = effect(Effect.Call.class);
    assertEquals("2", release.version(), "the version the late renewal wrote");
  }

  @Test
  void aConflictingReleaseReadsAndGivesUpWhatNoLongerNamesThisCandidate() {
    leadFromZero();
    at(1, new Event.Close());
    at(1, new Event.StopCallbackReturned(0));
    at(1.1, new Event.WriteAnswered(callSeq(), new LockWrite.Conflict("409")));
    assertEquals(Effect.Kind.READ, effect(Effect.Call.class).kind());
    at(1.2, new Event.ReadAnswered(callSeq(), new LockRead.Found("9", THEIRS)));
    assertInstanceOf(Phase.Closed.class, state.phase());
  }

  @Test
  void closeTimesOutOnlyWhileClosing() {
    leadFromZero();
    at(1, new Event.CloseTimedOut());
    assertInstanceOf(Phase.Leading.class, state.phase());
    at(1, new Event.Close());
    at(6, new Event.CloseTimedOut());
    assertInstanceOf(Phase.Closed.class, state.phase());
    assertEquals(Effect.Level.WARN, effect(Effect.Log.class).level());
  }

  @Test
  void nothingHappensOnceClosed() {
    leadFromZero();
    at(1, new Event.Close());
    at(6, new Event.CloseTimedOut());
    State closed = state;
    at(7, new Event.StepDue());
    assertSame(closed, state);
    assertTrue(effects.isEmpty());
  }

  // ---------------------------------------------------------------- the call budget

  @Test
  void aCallBeyondTheBurstWaitsForTheBudgetAndTheStepComesBackThen() {
    at(0, new Event.GateCompleted(null));
    LockFailure down = LockFailure.of(LockFailure.Kind.UNAVAILABLE, "down");
    at(0, new Event.StepDue()); // create
    at(0, new Event.WriteAnswered(callSeq(), down)); // read at once
    for (int i = 0; i < 3; i++) {
      at(0, new Event.ReadAnswered(callSeq(), down));
      at(0, new Event.StepDue());
    }
    assertEquals(new Effect.CallDeferred(S), effect(Effect.CallDeferred.class));
    assertEquals(new Effect.Delay.Exactly(S), effect(Effect.ScheduleStep.class).delay());
    assertNull(state.calls().inFlight());
  }
}
