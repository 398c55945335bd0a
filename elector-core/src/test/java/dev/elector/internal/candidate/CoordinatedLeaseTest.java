package dev.elector.internal.candidate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A lock under Kubernetes coordinated leader election (its record names a strategy) has its holder
 * chosen by a controller: a candidate follows it, says so once, and never writes it, however long
 * it looks unrenewed and whoever it names. Timings: lease 15 s, renew deadline 10 s, retry 2 s.
 */
class CoordinatedLeaseTest {
  private static final long S = 1_000_000_000L;
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final String STRATEGY = "OldestEmulationVersion";

  private final Candidate machine =
      new Candidate(
          new Candidate.Settings(
              "me",
              Duration.ofSeconds(15),
              Duration.ofSeconds(10),
              Duration.ofSeconds(2),
              Duration.ofSeconds(5),
              true,
              4,
              2));
  private State state = machine.initial();

  /** Every effect since the test began, in order. */
  private final List<Effect> all = new ArrayList<>();

  /** What the lock holds, as the fake lock answers calls; null while it does not exist. */
  private LockRead.Found lock;

  private int versions = 100;

  private static LeaderRecord coordinated(String holder, long token) {
    return new LeaderRecord(holder, Duration.ofSeconds(15), T0, T0, token, null, STRATEGY);
  }

  /**
   * Feeds {@code event} at {@code seconds}, then answers every call it makes as a lock holding
   * {@link #lock} would, at the same instant: a read shows it, an update at its version is written
   * (the server would take it) and anything else conflicts.
   */
  private void at(double seconds, Event event) {
    long nanos = (long) (seconds * S);
    Candidate.Moment now = new Candidate.Moment(nanos, T0.plusNanos(nanos));
    Deque<Event> events = new ArrayDeque<>(List.of(event));
    while (!events.isEmpty()) {
      Candidate.Step step = machine.next(state, events.poll(), now);
      state = step.next();
      all.addAll(step.effects());
      for (Effect effect : step.effects()) {
        if (effect instanceof Effect.Call call) {
          events.add(answer(call));
        }
      }
    }
  }

  private Event answer(Effect.Call call) {
    LockRead.Found current = lock;
    if (call.kind() == Effect.Kind.READ) {
      return new Event.ReadAnswered(call.seq(), current == null ? new LockRead.Absent() : current);
    }
    LeaderRecord written = call.record();
    if (call.kind() == Effect.Kind.UPDATE
        && current != null
        && written != null
        && current.version().equals(call.version())) {
      lock = new LockRead.Found(Integer.toString(++versions), written);
      return new Event.WriteAnswered(call.seq(), new LockWrite.Written(lock.version()));
    }
    if (call.kind() == Effect.Kind.CREATE && current == null && written != null) {
      lock = new LockRead.Found(Integer.toString(++versions), written);
      return new Event.WriteAnswered(call.seq(), new LockWrite.Written(lock.version()));
    }
    return new Event.WriteAnswered(call.seq(), new LockWrite.Conflict("409"));
  }

  /** A step every second from {@code from} to {@code to}, as timers and polls would bring. */
  private void stepEverySecond(int from, int to) {
    for (int t = from; t <= to; t++) {
      at(t, new Event.StepDue());
    }
  }

  private List<Effect.Call> writes() {
    return all.stream()
        .filter(Effect.Call.class::isInstance)
        .map(Effect.Call.class::cast)
        .filter(call -> call.kind() != Effect.Kind.READ)
        .toList();
  }

  /** The first few writes, for a failure message. */
  private String shownWrites() {
    List<Effect.Call> writes = writes();
    return writes.size() + " writes, from " + writes.subList(0, Math.min(3, writes.size()));
  }

  private List<String> coordinationLines() {
    return all.stream()
        .filter(Effect.Log.class::isInstance)
        .map(Effect.Log.class::cast)
        .map(Effect.Log::message)
        .filter(message -> message.contains("coordinated leader election"))
        .toList();
  }

  @Test
  void aCoordinatedLeaseThatLooksExpiredIsFollowedNeverWrittenAndReportedOnce() {
    lock = new LockRead.Found("7", coordinated("kcm-a", 3));
    at(0, new Event.GateCompleted(null));
    at(0, new Event.Watched(lock));
    stepEverySecond(1, 300); // twenty leases with no renewal seen

    assertEquals(0, writes().size(), shownWrites());
    assertInstanceOf(Phase.Following.class, state.phase());
    assertTrue(all.contains(new Effect.LeaderObserved("kcm-a")), "it follows the holder");
    assertEquals(
        1, coordinationLines().size(), "one line, not one per look: " + coordinationLines());
    assertTrue(coordinationLines().get(0).contains(STRATEGY), coordinationLines().get(0));
    assertEquals(
        "kcm-a",
        machine.liveHolder(state, false, 300 * S).orElseThrow(),
        "its holder is respected, however old the lease");
  }

  @Test
  void aCoordinatedLeaseFoundOnlyByPollingIsNeverWrittenEither() {
    lock = new LockRead.Found("7", coordinated("kcm-a", 3));
    at(0, new Event.GateCompleted(null));
    stepEverySecond(0, 300);

    assertEquals(
        List.of(Effect.Kind.CREATE),
        writes().stream().map(Effect.Call::kind).toList(),
        "only the first look's create, which an existing lease refuses: " + shownWrites());
    assertEquals(1, coordinationLines().size());
  }

  @Test
  void aCoordinatedLeaseNamingNobodyOrThisCandidateIsNotTakenEither() {
    for (String holder : List.of("", "me")) {
      state = machine.initial();
      all.clear();
      lock = new LockRead.Found("7", coordinated(holder, 3));
      at(0, new Event.GateCompleted(null));
      at(0, new Event.Watched(lock));
      stepEverySecond(1, 60);
      assertEquals(0, writes().size(), "holder '" + holder + "': " + shownWrites());
    }
  }

  @Test
  void aLeaderWhoseLeaseComesUnderCoordinationEndsItsTermWithoutWritingIt() {
    at(0, new Event.GateCompleted(null));
    at(0, new Event.StepDue()); // the first look creates the lock: leading from 0
    Phase.Leading leading = assertInstanceOf(Phase.Leading.class, state.phase());
    // the controller takes the lease over, keeping the record as it was
    LeaderRecord ours = leading.record();
    lock =
        new LockRead.Found(
            "50",
            new LeaderRecord(
                ours.holderIdentity(),
                ours.leaseDuration(),
                ours.acquireTime(),
                ours.renewTime(),
                ours.leaderTransitions(),
                null,
                STRATEGY));
    int writesBefore = writes().size();
    at(1, new Event.Watched(lock));
    stepEverySecond(2, 60);

    assertTrue(
        writes().stream().noneMatch(call -> "50".equals(call.version())),
        "nothing is written over the coordinated version: " + shownWrites());
    assertEquals("50", lock.version(), "the lease is as the controller left it");
    assertTrue(
        all.contains(new Effect.EndTerm(0, Effect.Ending.LOCK_LOST)), "the term ends as lost");
    assertInstanceOf(Phase.Following.class, state.phase());
    assertTrue(
        writes().size() - writesBefore <= 1, "at most the renewal already due: " + shownWrites());
  }

  @Test
  void whenTheStrategyIsRemovedCandidatesContendAgainAfterAFullLease() {
    lock = new LockRead.Found("7", coordinated("kcm-a", 3));
    at(0, new Event.GateCompleted(null));
    at(0, new Event.Watched(lock));
    lock = new LockRead.Found("8", new LeaderRecord("kcm-a", Duration.ofSeconds(15), T0, T0, 3));
    at(100, new Event.Watched(lock));
    assertEquals(2, coordinationLines().size(), "one line for the change: " + coordinationLines());

    at(114.9, new Event.StepDue());
    assertEquals(0, writes().size(), "the holder's lease runs from the change: " + shownWrites());
    at(115, new Event.StepDue());
    assertEquals("8", writes().get(0).version());
    assertInstanceOf(Phase.Leading.class, state.phase());
  }
}
