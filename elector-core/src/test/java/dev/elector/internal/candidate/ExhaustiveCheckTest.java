package dev.elector.internal.candidate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.internal.candidate.ModelCheck.Machine;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Every interleaving of two and of three candidates on one lock, up to a depth, holds the safety
 * properties of {@link ModelCheck}; and each known-unsafe change to the machine is caught. The
 * depth is a count of events after the gates opened; {@code -Delector.modelcheck.depth=N} explores
 * deeper (the default keeps the unit tests to seconds).
 */
class ExhaustiveCheckTest {
  private static final int DEPTH_TWO = Integer.getInteger("elector.modelcheck.depth", 10);
  private static final int DEPTH_THREE = Integer.getInteger("elector.modelcheck.depth3", 8);

  @Test
  void twoCandidatesNeverOverlapEndEveryTermOnceAndStayWithinTheCallBound() {
    ModelCheck.Report report = new ModelCheck(2, DEPTH_TWO, UnaryOperator.identity()).run();
    System.out.printf(
        "model check, 2 candidates: depth %d, %,d distinct worlds, %,d transitions%n",
        report.depth(), report.worlds(), report.transitions());
    assertNull(report.violation());
    assertEquals(DEPTH_TWO, report.depth(), "every level up to the depth was reached");
  }

  @Test
  void threeCandidatesNeverOverlapEndEveryTermOnceAndStayWithinTheCallBound() {
    ModelCheck.Report report = new ModelCheck(3, DEPTH_THREE, UnaryOperator.identity()).run();
    System.out.printf(
        "model check, 3 candidates: depth %d, %,d distinct worlds, %,d transitions%n",
        report.depth(), report.worlds(), report.transitions());
    assertNull(report.violation());
    assertEquals(DEPTH_THREE, report.depth(), "every level up to the depth was reached");
  }

  @Test
  void acquiringOverAnUnexpiredForeignRecordIsCaught() {
    assertCaught(
        "takes a record it has seen as expired at once",
        machine ->
            (candidate, state, event, now) -> {
              Observation seen = state.view().current();
              if (seen != null
                  && seen.record() != null
                  && state.phase() instanceof Phase.Following) {
                Observation old =
                    new Observation(
                        seen.version(),
                        seen.record(),
                        seen.unknownHolder(),
                        now.nanos() - 20 * ModelCheck.S,
                        seen.guarded());
                View view = state.view();
                state =
                    new State(
                        state.phase(),
                        new View(
                            old,
                            view.highestToken(),
                            view.othersSeen(),
                            view.holdingOff(),
                            view.holdOffUntil(),
                            view.firstLookAt(),
                            view.request(),
                            view.requestSeenAt()),
                        state.failures(),
                        state.lastFailure(),
                        state.watch(),
                        state.calls(),
                        state.createTried(),
                        state.closeRequested());
              }
              return machine.next(candidate, state, event, now);
            },
        "two valid terms");
  }

  @Test
  void aReleaseAStaleLeaderWritesOverALiveTermNeverLetsTwoLead() {
    ModelCheck.Report report =
        new ModelCheck(2, DEPTH_TWO, UnaryOperator.identity(), ModelCheck.Outsider.STALE_RELEASE)
            .run();
    System.out.printf(
        "model check, 2 candidates and a stale release: %,d worlds, depth %d%n",
        report.worlds(), report.depth());
    assertNull(report.violation());
    assertEquals(DEPTH_TWO, report.depth(), "every level up to the depth was reached");
  }

  @Test
  void trustingEveryReleaseIsCaught() {
    ModelCheck check =
        new ModelCheck(
            2,
            DEPTH_TWO,
            ExhaustiveCheckTest::trustingEveryRelease,
            ModelCheck.Outsider.STALE_RELEASE);
    ModelCheck.Report report = check.run();
    System.out.printf(
        "model check, mutant \"trusts every release\": %s after %,d worlds%n",
        report.violation(), report.worlds());
    assertNotNull(report.violation(), "trusting every release went unnoticed");
    assertTrue(report.violation().contains("two valid terms"), report.violation());
  }

  /**
   * The machine as it was before a release had to show that its holder wrote it: every release it
   * is shown reaches it as the holder's own (the acquisition time of the term it saw).
   */
  private static Machine trustingEveryRelease(Machine machine) {
    return (candidate, state, event, now) -> {
      Event shown = event;
      if (event instanceof Event.ReadAnswered read) {
        shown = new Event.ReadAnswered(read.seq(), asHoldersOwn(state, read.result()));
      } else if (event instanceof Event.Watched watched) {
        shown = new Event.Watched(asHoldersOwn(state, watched.event()));
      }
      return machine.next(candidate, state, shown, now);
    };
  }

  private static LockRead asHoldersOwn(State state, LockRead read) {
    if (!(read instanceof LockRead.Found found) || !found.record().isReleased()) {
      return read;
    }
    Observation seen = state.view().current();
    LeaderRecord held = seen == null ? null : seen.record();
    LeaderRecord release = found.record();
    Instant acquired =
        held != null && held.leaderTransitions() == release.leaderTransitions()
            ? held.acquireTime()
            : ModelCheck.EPOCH.minusSeconds(60);
    return new LockRead.Found(
        found.version(),
        new LeaderRecord(
            "",
            release.leaseDuration(),
            acquired,
            release.renewTime(),
            release.leaderTransitions()));
  }

  @Test
  void leadingPastTheRenewDeadlineIsCaught() {
    assertCaught(
        "ignores the renew deadline",
        machine ->
            (candidate, state, event, now) -> {
              if (state.phase() instanceof Phase.Leading leading) {
                if (event instanceof Event.DeadlineDue) {
                  return new Candidate.Step(state, List.of());
                }
                state =
                    new State(
                        new Phase.Leading(
                            leading.token(), leading.startedAt(), leading.claim(), now.nanos()),
                        state.view(),
                        state.failures(),
                        state.lastFailure(),
                        state.watch(),
                        state.calls(),
                        state.createTried(),
                        state.closeRequested());
              }
              return machine.next(candidate, state, event, now);
            },
        "outlived");
  }

  @Test
  void endingATermTwiceIsCaught() {
    assertCaught(
        "ends every term twice",
        machine ->
            (candidate, state, event, now) -> {
              Candidate.Step step = machine.next(candidate, state, event, now);
              List<Effect> effects = new ArrayList<>();
              for (Effect effect : step.effects()) {
                effects.add(effect);
                if (effect instanceof Effect.EndTerm) {
                  effects.add(effect);
                }
              }
              return new Candidate.Step(step.next(), effects);
            },
        "ended term");
  }

  /** A machine that retries every failure at once, instead of backing off. */
  private static Machine retryingAtOnce(Machine machine) {
    return (candidate, state, event, now) -> {
      Candidate.Step step = machine.next(candidate, state, event, now);
      List<Effect> effects = new ArrayList<>();
      for (Effect effect : step.effects()) {
        effects.add(
            effect instanceof Effect.ScheduleStep schedule
                    && schedule.delay() instanceof Effect.Delay.Backoff
                ? new Effect.ScheduleStep(new Effect.Delay.Exactly(0))
                : effect);
      }
      return new Candidate.Step(step.next(), effects);
    };
  }

  /** A machine whose budget is full before every event: it never defers a call. */
  private static Machine withoutBudget(Machine machine) {
    return (candidate, state, event, now) ->
        machine.next(
            candidate,
            new State(
                state.phase(),
                state.view(),
                state.failures(),
                state.lastFailure(),
                state.watch(),
                new State.Calls(
                    state.calls().seq(),
                    state.calls().epoch(),
                    state.calls().inFlight(),
                    state.calls().stepPending(),
                    Budget.of(4, ModelCheck.S),
                    state.calls().unanswered()),
                state.createTried(),
                state.closeRequested()),
            event,
            now);
  }

  @Test
  void aCandidateThatRetriedFailuresAtOnceWouldStillKeepTheCallBoundThroughItsBudget() {
    ModelCheck.Report report =
        new ModelCheck(2, DEPTH_TWO, ExhaustiveCheckTest::retryingAtOnce).run();
    assertNull(report.violation(), "the budget, not the back-off, is the bound");
  }

  @Test
  void retryingFailuresAtOnceWithoutTheBudgetIsCaught() {
    assertCaught(
        "retries at once, no budget",
        machine -> withoutBudget(retryingAtOnce(machine)),
        "beyond the bound");
  }

  private static void assertCaught(String mutant, UnaryOperator<Machine> mutation, String found) {
    ModelCheck check = new ModelCheck(2, DEPTH_TWO, mutation);
    ModelCheck.Report report = check.run();
    System.out.printf(
        "model check, mutant \"%s\": %s after %,d worlds%n",
        mutant, report.violation(), report.worlds());
    assertNotNull(report.violation(), mutant + " went unnoticed");
    assertTrue(
        report.violation().contains(found), mutant + " was caught as: " + report.violation());
  }
}
