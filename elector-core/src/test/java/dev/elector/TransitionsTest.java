package dev.elector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the phase changes: each transition as a pure function of the phase, an event and now. */
class TransitionsTest {
  private static final long S = 1_000_000_000L;
  private static final long RENEW_DEADLINE = 10 * S;
  private static final long RETRY = 2 * S;
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final LeaderRecord OURS =
      new LeaderRecord("me", Duration.ofSeconds(15), T0, T0, 4);
  private static final LeaderRecord THEIRS =
      new LeaderRecord("other", Duration.ofSeconds(15), T0, T0, 5);

  private final Transitions transitions = transitions(true);
  private final Term term = new Term("me", "lock", 4, T0, Runnable::run, () -> 0L, RENEW_DEADLINE);
  private final Phase.Claim claim = new Phase.Claim("7", OURS);
  private final Phase.Leading leading = new Phase.Leading(term, claim, 100 * S);

  private static Transitions transitions(boolean releaseOnClose) {
    return new Transitions(
        "me", RENEW_DEADLINE, RETRY, Duration.ofSeconds(10), Duration.ofSeconds(5), releaseOnClose);
  }

  private static List<Class<?>> kinds(Transition transition) {
    return transition.actions().stream().<Class<?>>map(Object::getClass).toList();
  }

  private static LockFailure failure() {
    return LockFailure.of(LockFailure.Kind.UNAVAILABLE, "down");
  }

  // ---------------------------------------------------------------- lead and renew

  @Test
  void aTermStartsLeadingFromTheStartOfTheWriteThatWonIt() {
    Transition t = transitions.acquired(term, "8", OURS, 90 * S);
    assertEquals(new Phase.Leading(term, new Phase.Claim("8", OURS), 90 * S), t.next());
    assertEquals(new Action.ArmDeadline(90 * S), t.actions().get(1));
    assertEquals(new Action.ScheduleRenewal(90 * S), t.actions().get(2));
  }

  @Test
  void aRenewalIsSentUntilRenewDeadlineHasPassedSinceTheLastGoodWriteThenTheTermEnds() {
    Transition before = transitions.renewDue(leading, 110 * S - 1);
    assertSame(leading, before.next());
    assertEquals(List.of(new Action.Renew(leading)), before.actions());

    Transition at = transitions.renewDue(leading, 110 * S);
    assertEquals(new Phase.Following(claim), at.next(), "follows, keeping the claim for close");
    assertEquals(List.of(Action.Log.class, Action.EndTerm.class, Action.Follow.class), kinds(at));
    assertEquals(
        new Action.EndTerm(term, TermEnd.RENEW_DEADLINE_EXCEEDED, Action.AfterStop.NOTHING),
        at.actions().get(1));
    assertEquals(new Action.Follow(true), at.actions().get(2), "backs off as after a failure");
  }

  @Test
  void aRenewalWrittenCountsTheTermFromTheStartOfThatWriteNotFromItsAnswer() {
    LeaderRecord renewed = OURS.withRenewTime(T0.plusSeconds(2));
    Transition t =
        transitions.renewed(leading, new LockWrite.Written("9"), 102 * S, renewed, 105 * S);
    assertEquals(new Phase.Leading(term, new Phase.Claim("9", renewed), 102 * S), t.next());
    assertEquals(
        List.of(
            new Action.Succeeded("renew"),
            new Action.ExtendTerm(term, 112 * S),
            new Action.See(new LockRead.Found("9", renewed)),
            new Action.ArmDeadline(102 * S),
            new Action.ScheduleRenewal(102 * S)),
        t.actions());
  }

  @Test
  void aConflictingRenewalEndsTheTermAndForgetsTheRecordButNotTheVersion() {
    Transition t =
        transitions.renewed(leading, new LockWrite.Conflict("changed"), 102 * S, OURS, 105 * S);
    assertEquals(new Phase.Following(new Phase.Claim("7", null)), t.next());
    assertEquals(
        List.of(
            Action.Log.class, Action.EndTerm.class, Action.MarkStale.class, Action.Follow.class),
        kinds(t));
    assertEquals(
        new Action.EndTerm(term, TermEnd.LOCK_LOST, Action.AfterStop.NOTHING), t.actions().get(1));
    assertEquals(new Action.Follow(false), t.actions().get(3), "reads at once");
  }

  @Test
  void aFailedRenewalRetriesNoLaterThanTheDeadline() {
    LockWrite failed = new LockWrite.Failed(failure());
    Transition early = transitions.renewed(leading, failed, 101 * S, OURS, 101 * S);
    assertSame(leading, early.next());
    assertEquals(new Action.ScheduleStep(RETRY), early.actions().get(1));

    Transition late = transitions.renewed(leading, failed, 109 * S, OURS, 109 * S + S / 10);
    assertEquals(
        new Action.ScheduleStep(S - S / 10), late.actions().get(1), "the deadline comes first");
  }

  @Test
  void aRenewalThatFailedSlowlyIsRetriedARetryPeriodAfterItStarted() {
    LockWrite failed = new LockWrite.Failed(failure());
    // started at 101 s, failed 1.5 s later: the next try half a second on, not a whole period
    Transition slow = transitions.renewed(leading, failed, 101 * S, OURS, 102 * S + S / 2);
    assertEquals(new Action.ScheduleStep(S / 2), slow.actions().get(1));
    // a call that took longer than the retry period: at once
    Transition stalled = transitions.renewed(leading, failed, 101 * S, OURS, 104 * S);
    assertEquals(new Action.ScheduleStep(0), stalled.actions().get(1));
  }

  @Test
  void theDeadlineTimerEndsTheTermOnlyOnceTheDeadlineHasPassedAndRearmsFromTheLastGoodWrite() {
    assertEquals(
        Transition.stay(new Phase.Following(null)),
        transitions.deadlineDue(new Phase.Following(null), 200 * S));

    Transition early = transitions.deadlineDue(leading, 105 * S);
    assertSame(leading, early.next());
    assertEquals(List.of(new Action.ArmDeadline(100 * S)), early.actions());

    assertEquals(new Phase.Following(claim), transitions.deadlineDue(leading, 110 * S).next());
  }

  // ---------------------------------------------------------------- step down on request

  @Test
  void aLeaderStepsDownOnRequestUnlessClosing() {
    assertEquals(Transition.stay(leading), transitions.stepDownAsked(leading, true, 130 * S));
    Phase following = new Phase.Following(null);
    assertEquals(Transition.stay(following), transitions.stepDownAsked(following, false, 130 * S));

    Transition t = transitions.stepDownAsked(leading, false, 130 * S);
    assertEquals(new Phase.SteppingDown(claim, true, 130 * S), t.next());
    assertEquals(
        List.of(
            new Action.HoldOff(130 * S),
            new Action.EndTerm(term, TermEnd.STEPPED_DOWN, Action.AfterStop.STEP_DOWN)),
        t.actions());
  }

  @Test
  void aHandOverReleasesTheVersionThatCarriesTheRequest() {
    LockRead.Found request =
        new LockRead.Found("8", new LeaderRecord("me", Duration.ofSeconds(15), T0, T0, 4, "next"));
    Transition t = transitions.handOverAsked(leading, request, 140 * S);
    assertEquals(
        new Phase.SteppingDown(new Phase.Claim("8", request.record()), true, 140 * S), t.next());
    assertEquals(new Action.See(request), t.actions().get(0));
    assertEquals(
        new Action.EndTerm(term, TermEnd.STEPPED_DOWN, Action.AfterStop.STEP_DOWN),
        t.actions().get(2));
  }

  @Test
  void theReleaseAfterAStepDownWaitsForACallInFlightAndFallsBackToTheRecordSeen() {
    Phase.SteppingDown withRecord = new Phase.SteppingDown(claim, false, 130 * S);
    assertEquals(
        Transition.stay(withRecord), transitions.releaseAfterStepDown(withRecord, true, THEIRS));
    assertEquals(
        List.of(new Action.WriteRelease(claim, OURS, true)),
        transitions.releaseAfterStepDown(withRecord, false, THEIRS).actions());

    Phase.Claim overwritten = new Phase.Claim("7", null);
    Phase.SteppingDown lost = new Phase.SteppingDown(overwritten, false, 130 * S);
    assertEquals(
        List.of(new Action.WriteRelease(overwritten, THEIRS, true)),
        transitions.releaseAfterStepDown(lost, false, THEIRS).actions());
    assertEquals(
        Transition.to(new Phase.Following(overwritten), new Action.Follow(false)),
        transitions.releaseAfterStepDown(lost, false, null));
  }

  @Test
  void aFailedReleaseAfterAStepDownKeepsTheClaimSoThatCloseMayRetryIt() {
    assertEquals(
        new Phase.Following(null),
        transitions.releasedAfterStepDown(new LockWrite.Written("8"), claim).next());
    assertEquals(
        new Phase.Following(null),
        transitions.releasedAfterStepDown(new LockWrite.Conflict("x"), claim).next());
    assertEquals(
        new Phase.Following(claim),
        transitions.releasedAfterStepDown(new LockWrite.Failed(failure()), claim).next());
  }

  @Test
  void theStopCallbackReturningLetsTheReleaseGoOn() {
    Phase.SteppingDown pending = new Phase.SteppingDown(claim, true, 130 * S);
    assertEquals(
        Transition.to(
            new Phase.SteppingDown(claim, false, 130 * S), new Action.ReleaseAfterStepDown()),
        transitions.stepDownCallbackReturned(pending));
    assertEquals(
        Transition.to(new Phase.Closing(claim, false), new Action.ReleaseOrFinish()),
        transitions.stepDownCallbackReturned(new Phase.Closing(claim, true)));
    assertEquals(Transition.stay(pending), transitions.step(pending, 0));
  }

  // ---------------------------------------------------------------- release and close

  @Test
  void closeEndsATermAndWaitsForAnyStopCallbackStillRunning() {
    Transition fromLeading = transitions.closeAsked(leading);
    assertEquals(new Phase.Closing(claim, true), fromLeading.next());
    assertEquals(
        List.of(
            new Action.CancelStep(),
            new Action.EndTerm(term, TermEnd.CLOSED, Action.AfterStop.CLOSE),
            new Action.NewEpoch(),
            new Action.ArmCloseTimer()),
        fromLeading.actions());

    Transition stillStopping = transitions.closeAsked(new Phase.SteppingDown(claim, true, 0));
    assertEquals(
        List.of(Action.CancelStep.class, Action.NewEpoch.class, Action.ArmCloseTimer.class),
        kinds(stillStopping));

    Transition following = transitions.closeAsked(new Phase.Following(claim));
    assertEquals(new Phase.Closing(claim, true), following.next());
    assertEquals(new Action.StopCallbackReturnedLater(), following.actions().get(3));

    Phase closed = new Phase.Closed();
    assertEquals(Transition.stay(closed), transitions.closeAsked(closed));
  }

  @Test
  void closingReleasesOnlyOnceNoWriteThatMayNameThisCandidateIsInFlight() {
    Phase.Closing closing = new Phase.Closing(claim, false);
    assertEquals(
        Transition.stay(closing), transitions.releaseOrFinish(closing, true, true), "a write");
    assertEquals(
        Transition.stay(closing), transitions.releaseOrFinish(closing, false, true), "a read");
    assertEquals(
        Transition.to(new Phase.Releasing(claim), new Action.Release()),
        transitions.releaseOrFinish(closing, false, false));

    Phase.Closing nothingToRelease = new Phase.Closing(null, false);
    assertEquals(
        Transition.stay(nothingToRelease),
        transitions.releaseOrFinish(nothingToRelease, true, true),
        "a write in flight may yet name this candidate");
    assertEquals(
        Transition.to(new Phase.Closed(), new Action.Finish()),
        transitions.releaseOrFinish(nothingToRelease, false, true));
    assertEquals(
        Transition.to(new Phase.Closed(), new Action.Finish()),
        transitions(false).releaseOrFinish(closing, true, true),
        "without releaseOnClose nothing is waited for");
    Phase.Closing stopping = new Phase.Closing(claim, true);
    assertEquals(Transition.stay(stopping), transitions.releaseOrFinish(stopping, false, false));
  }

  @Test
  void aReleaseOnCloseWritesTheClaimsRecordOrTheOneSeenOrFinishes() {
    Phase.Releasing releasing = new Phase.Releasing(claim);
    assertEquals(
        List.of(new Action.WriteRelease(claim, OURS, false)),
        transitions.releaseDue(releasing, THEIRS).actions());
    Phase.Claim overwritten = new Phase.Claim("7", null);
    assertEquals(
        List.of(new Action.WriteRelease(overwritten, THEIRS, false)),
        transitions.releaseDue(new Phase.Releasing(overwritten), THEIRS).actions());
    assertEquals(
        Transition.to(new Phase.Closed(), new Action.Finish()),
        transitions.releaseDue(new Phase.Releasing(overwritten), null));
  }

  @Test
  void aConflictingReleaseReadsAndReleasesAgainOnlyWhatStillNamesThisCandidate() {
    Phase.Releasing releasing = new Phase.Releasing(claim);
    assertEquals(
        List.of(Action.Log.class, Action.Finish.class),
        kinds(transitions.released(releasing, new LockWrite.Written("8"))));
    assertEquals(
        Transition.to(releasing, new Action.ReadForRelease()),
        transitions.released(releasing, new LockWrite.Conflict("x")));
    assertEquals(
        new Action.ScheduleStep(RETRY / 2),
        transitions.released(releasing, new LockWrite.Failed(failure())).actions().get(1));

    LockRead.Found stillOurs = new LockRead.Found("9", OURS);
    assertEquals(
        Transition.to(new Phase.Releasing(new Phase.Claim("9", OURS)), new Action.Release()),
        transitions.readForRelease(releasing, stillOurs));
    assertEquals(
        Transition.to(new Phase.Closed(), new Action.Finish()),
        transitions.readForRelease(releasing, new LockRead.Found("9", THEIRS)));
    assertEquals(
        new Action.ScheduleStep(RETRY / 2),
        transitions.readForRelease(releasing, new LockRead.Failed(failure())).actions().get(1));
  }

  @Test
  void closeTimesOutOnlyWhileClosingOrReleasing() {
    Phase following = new Phase.Following(claim);
    assertEquals(Transition.stay(following), transitions.closeTimedOut(following));
    assertEquals(
        List.of(Action.Log.class, Action.Finish.class),
        kinds(transitions.closeTimedOut(new Phase.Releasing(claim))));
    assertEquals(
        new Phase.Closed(), transitions.closeTimedOut(new Phase.Closing(null, true)).next());
  }

  // ---------------------------------------------------------------- answers to earlier phases

  @Test
  void aWriteFromAnEarlierPhaseThatTookEffectBecomesTheClaimCloseReleases() {
    CallAnswer written = new CallAnswer.Write(new LockWrite.Written("8"));
    assertEquals(
        Transition.to(
            new Phase.Closing(new Phase.Claim("8", OURS), false), new Action.ReleaseOrFinish()),
        transitions.answeredEarlierPhase(new Phase.Closing(null, false), written, OURS, true));
    assertEquals(
        Transition.stay(new Phase.Following(new Phase.Claim("8", OURS))),
        transitions.answeredEarlierPhase(new Phase.Following(null), written, OURS, true));

    CallAnswer conflict = new CallAnswer.Write(new LockWrite.Conflict("x"));
    assertEquals(
        Transition.to(leading, new Action.ScheduleStep(0)),
        transitions.answeredEarlierPhase(leading, conflict, OURS, false));
    Phase following = new Phase.Following(null);
    assertEquals(
        Transition.to(following, new Action.ScheduleRetry()),
        transitions.answeredEarlierPhase(
            following, new CallAnswer.Read(new LockRead.Absent()), null, false));
  }

  @Test
  void theGateLetsACandidateFollowOnceAndAFailedGateKeepsItOut() {
    Phase waiting = new Phase.AwaitingGate(null);
    assertEquals(
        Transition.to(new Phase.Following(null), new Action.Follow(false)),
        transitions.gateCompleted(waiting, null));
    assertEquals(new Phase.AwaitingGate("boom"), transitions.gateCompleted(waiting, "boom").next());
    Phase following = new Phase.Following(null);
    assertEquals(Transition.stay(following), transitions.gateCompleted(following, null));
    assertEquals(Transition.to(following, new Action.Look()), transitions.step(following, 0));
  }

  @Test
  void answersAreCountedByKind() {
    assertEquals(CallOutcome.OK, new CallAnswer.Read(new LockRead.Found("1", OURS)).outcome(false));
    assertEquals(CallOutcome.ABSENT, new CallAnswer.Read(new LockRead.Absent()).outcome(false));
    assertEquals(
        CallOutcome.MALFORMED,
        new CallAnswer.Read(new LockRead.Malformed("1", "x")).outcome(false));
    assertEquals(
        CallOutcome.CONFLICT, new CallAnswer.Write(new LockWrite.Conflict("x")).outcome(false));
    assertEquals(
        CallOutcome.FAILED, new CallAnswer.Write(new LockWrite.Failed(failure())).outcome(false));
    assertEquals(
        CallOutcome.TIMEOUT,
        new CallAnswer.Read(new LockRead.Failed(LockFailure.of(LockFailure.Kind.TIMEOUT, "slow")))
            .outcome(false));
    assertEquals(
        CallOutcome.TIMEOUT, new CallAnswer.Write(new LockWrite.Written("1")).outcome(true));
  }
}
