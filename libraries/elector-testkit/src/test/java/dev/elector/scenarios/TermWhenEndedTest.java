package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.lock.LeaderRecord;
import dev.elector.time.MonotonicClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Term#whenEnded()}: completed once, with the reason, when the elector steps down. */
class TermWhenEndedTest {
  private static final Duration LEASE = Duration.ofSeconds(15);

  private final ElectionFixture election = new ElectionFixture(5, b -> b.watchWhenFollowing(false));

  /** What a dependent of whenEnded() saw each time it ran. */
  private record Completion(TermEnd reason, long atNanos, boolean activeThen) {}

  @AfterEach
  void noTwoLeadersEver() {
    election.timeline.assertNoOverlap();
  }

  private List<Completion> watch(Term term) {
    List<Completion> completions = new ArrayList<>();
    term.whenEnded()
        .thenAccept(
            reason ->
                completions.add(
                    new Completion(reason, election.time.clock().nanos(), term.isActive())));
    return completions;
  }

  @Test
  void completesOnceWithLockLostWhenALeaderStepsDownForAHijack() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(3));
    Term term = a.terms.get(0);
    List<Completion> ended = watch(term);
    election.advance(Duration.ofSeconds(20));
    assertEquals(List.of(), ended, "not completed while the term lasts");

    var now = a.wall.instant();
    election.store.overwrite(new LeaderRecord("hijacker", LEASE, now, now, 50));
    election.advanceUntil(() -> !a.leading(), Duration.ofSeconds(5));
    long stepDownAt = election.time.clock().nanos();

    assertEquals(List.of(new Completion(TermEnd.LOCK_LOST, stepDownAt, false)), ended);
    assertEquals(Optional.of(TermEnd.LOCK_LOST), term.endReason());

    // a leads again after the hijacker's lease, and is closed: the first term stays ended once.
    election.advanceUntil(a::leading, Duration.ofMinutes(1));
    Term second = a.terms.get(1);
    List<Completion> secondEnded = watch(second);
    election.closeAll();

    assertEquals(1, ended.size(), "completed exactly once: " + ended);
    assertEquals(TermEnd.LOCK_LOST, ended.get(0).reason());
    assertEquals(Optional.of(TermEnd.LOCK_LOST), term.endReason(), "the reason never changes");
    assertEquals(1, secondEnded.size());
    assertEquals(TermEnd.CLOSED, secondEnded.get(0).reason());
  }

  @Test
  void completesWithRenewDeadlineExceededAtTheDeadlineWhenRenewalsHang() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(3));
    Term term = a.terms.get(0);
    List<Completion> ended = watch(term);

    a.lock.hang();
    election.advanceUntil(() -> !ended.isEmpty(), Duration.ofSeconds(30));

    assertEquals(
        List.of(new Completion(TermEnd.RENEW_DEADLINE_EXCEEDED, term.activeUntilNanos(), false)),
        ended,
        "completed at the term's deadline, the instant it stops being active");
    election.advance(Duration.ofMinutes(2));
    assertEquals(1, ended.size());
  }

  @Test
  void aPausedProcessCompletesItWithRenewDeadlineExceededAsSoonAsItResumesBeforeAnyCall() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(7));
    Term term = a.terms.get(0);
    List<Completion> ended = watch(term);
    MonotonicClock clock = election.time.clock();
    int callsBeforePause = a.lock.calls().size();

    // The process is paused (a long GC, SIGSTOP): time passes its deadline, none of its threads
    // run.
    election.time.stall(Duration.ofNanos(term.activeUntilNanos() - clock.nanos() + 1));
    assertFalse(term.isActive());
    assertEquals(List.of(), ended, "nothing ran during the pause, so nothing could complete it");
    election.time.stall(Duration.ofSeconds(20));
    long resumedAt = clock.nanos();

    election.time.runDueTasks(); // the process resumes

    assertEquals(
        List.of(new Completion(TermEnd.RENEW_DEADLINE_EXCEEDED, resumedAt, false)),
        ended,
        "completed in the first steps after the pause, not held up by anything");
    assertEquals(
        callsBeforePause,
        a.lock.calls().size(),
        "ended without renewing: a renewal after the deadline cannot save the term");
    assertEquals(Optional.of(TermEnd.RENEW_DEADLINE_EXCEEDED), term.endReason());
    election.advance(Duration.ofMinutes(1));
    assertEquals(1, ended.size());
    assertTrue(a.leading() && a.terms.size() == 2, "a leads again after the pause, in a new term");
  }

  @Test
  void completesWithClosedWhenTheElectorIsClosed() {
    ElectionFixture.Candidate a = election.start("a");
    election.advance(Duration.ofSeconds(3));
    Term term = a.terms.get(0);
    List<Completion> ended = watch(term);

    CompletableFuture<Void> closing = a.elector.closeAsync();
    election.advanceUntil(() -> !a.leading(), Duration.ofSeconds(1));
    long closedAt = election.time.clock().nanos();
    election.advance(Duration.ofMinutes(1));

    assertEquals(List.of(new Completion(TermEnd.CLOSED, closedAt, false)), ended);
    assertTrue(closing.isDone(), "closed within the minute");
  }
}
