package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.testkit.FaultyLock;
import dev.elector.testkit.VirtualTime;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * close() on the paths where the release cannot simply be written: a renewal still in flight, a
 * lock changed by someone else, a hijack, an unreachable API server; and stepDown() on the first of
 * them, and with close() right behind it. In virtual time with default timings (renewDeadline 10 s,
 * so closeTimeout 10 s and callTimeout 5 s; retryPeriod 2 s).
 */
class CloseAndReleaseTest {
  private static final Duration LEASE = Duration.ofSeconds(15);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

  private final VirtualTime time = VirtualTime.withSeed(11);
  private final InMemoryLockStore store = InMemoryLockStore.create("lock");
  private final List<String> transcript = new ArrayList<>();
  private final HeldCallbacks callbackExecutor = new HeldCallbacks();
  private final FaultyLock faults = FaultyLock.wrap(store.lockFor("a"), time);
  private final ScriptedLock lock = new ScriptedLock(faults, transcript);
  private final List<Term> terms = new ArrayList<>();
  private int stops;
  private LeaderElector elector;

  /** Runs callbacks on virtual time, or holds them back while the test says so. */
  private final class HeldCallbacks implements Executor {
    private final Queue<Runnable> held = new ArrayDeque<>();
    private boolean holding;

    @Override
    public synchronized void execute(Runnable task) {
      if (holding) {
        held.add(task);
      } else {
        time.scheduler().execute(task);
      }
    }

    synchronized void hold() {
      holding = true;
    }

    synchronized void letGo() {
      holding = false;
      while (!held.isEmpty()) {
        time.scheduler().execute(held.poll());
      }
    }
  }

  private void startLeader(boolean watch) {
    start(watch);
    assertTrue(elector.isLeader(), "a leads its free lock at once");
  }

  private void startCandidate() {
    start(false);
  }

  private void start(boolean watch) {
    elector =
        LeaderElector.start(
            time.configure(ElectorConfig.newBuilder())
                .lock(lock)
                .watchWhenFollowing(watch)
                .jitter(1.0) // renewals exactly every retryPeriod: the times below are exact
                .callbackExecutor(callbackExecutor)
                .callbacks(
                    new LeaderCallbacks() {
                      @Override
                      public void onStartedLeading(Term term) {
                        terms.add(term);
                      }

                      @Override
                      public void onStoppedLeading(Term term, TermEnd reason) {
                        stops++;
                        log("stop callback " + reason);
                      }
                    })
                .build());
    time.runDueTasks();
  }

  private void log(String line) {
    synchronized (transcript) {
      transcript.add(line);
    }
  }

  private List<String> transcriptFrom(int index) {
    synchronized (transcript) {
      return List.copyOf(transcript.subList(index, transcript.size()));
    }
  }

  private LeaderRecord hijackerRecord() {
    var now = time.newWallClock().instant();
    return new LeaderRecord("hijacker", LEASE, now, now, 100);
  }

  private long nanos() {
    return time.clock().nanos();
  }

  @Test
  void closeDuringARenewalWaitsForItThenReleasesTheRenewedRecordAfterTheStopCallback() {
    startLeader(false);
    CompletableFuture<Void> renewalArrives = lock.holdNextUpdate();
    time.advance(Duration.ofMillis(2500)); // the renewal due at 2 s is on its way
    callbackExecutor.hold(); // and so will be the stop callback
    int mark = transcript.size();

    CompletableFuture<Void> closed = elector.closeAsync();
    time.runDueTasks();
    assertFalse(elector.isLeader(), "the term ends the instant close() runs");
    assertEquals(TermEnd.CLOSED, terms.get(0).endReason().orElseThrow());

    renewalArrives.complete(null); // the renewal lands: the record now has a newer version
    time.advance(Duration.ofSeconds(1));
    assertEquals(
        List.of("a: update naming a -> written"),
        transcriptFrom(mark),
        "nothing is released while the stop callback has not run");
    assertFalse(closed.isDone());

    callbackExecutor.letGo();
    time.advanceUntil(closed::isDone, CLOSE_TIMEOUT);

    assertEquals(
        List.of(
            "a: update naming a -> written",
            "stop callback CLOSED",
            "a: update naming nobody -> written"),
        transcriptFrom(mark),
        "the release follows the stop callback and uses the renewal's version: one write");
    assertEquals(1, stops);
    assertTrue(store.current().orElseThrow().isReleased());
    time.advance(Duration.ofMinutes(1));
    assertEquals(1, stops, "stop callback exactly once");
  }

  @Test
  void closeDuringARenewalThatNeverArrivesReleasesAfterTheCallTimeoutAndTheLateRenewalIsRefused() {
    startLeader(false);
    CompletableFuture<Void> renewalArrives = lock.holdNextUpdate();
    time.advance(Duration.ofMillis(2500));
    long renewalSentAt = Duration.ofSeconds(2).toNanos();
    int mark = transcript.size();

    CompletableFuture<Void> closed = elector.closeAsync();
    long closeAt = nanos();
    time.advanceUntil(closed::isDone, CLOSE_TIMEOUT);

    assertEquals(
        renewalSentAt + Duration.ofSeconds(5).toNanos(),
        nanos(),
        "the release waits for the renewal's callTimeout, then goes out at once");
    assertTrue(nanos() - closeAt <= CLOSE_TIMEOUT.toNanos());
    assertEquals(
        List.of("stop callback CLOSED", "a: update naming nobody -> written"),
        transcriptFrom(mark));

    renewalArrives.complete(null); // the lost renewal reaches the lock after all, too late
    time.advance(Duration.ofMinutes(1));
    assertEquals(
        List.of(
            "stop callback CLOSED",
            "a: update naming nobody -> written",
            "a: update naming a -> conflict"),
        transcriptFrom(mark));
    assertTrue(
        store.current().orElseThrow().isReleased(),
        "a renewal sent before close cannot take the released lock back");
    assertEquals(1, stops);
  }

  @Test
  void closeDuringARenewalWhileSomeoneElseTookTheLockLeavesTheNewHolder() {
    startLeader(false);
    CompletableFuture<Void> renewalArrives = lock.holdNextUpdate();
    time.advance(Duration.ofMillis(2500));
    store.overwrite(hijackerRecord());
    String hijackedVersion = store.version().orElseThrow();
    int mark = transcript.size();

    CompletableFuture<Void> closed = elector.closeAsync();
    time.runDueTasks();
    renewalArrives.complete(null);
    time.advanceUntil(closed::isDone, CLOSE_TIMEOUT);

    assertEquals(
        List.of(
            "stop callback CLOSED",
            "a: update naming a -> conflict",
            "a: update naming nobody -> conflict",
            "a: read -> holder hijacker"),
        transcriptFrom(mark));
    assertEquals("hijacker", store.current().orElseThrow().holderIdentity());
    assertEquals(hijackedVersion, store.version().orElseThrow(), "nothing written over it");
    assertEquals(1, stops);
  }

  @Test
  void closeDuringAnAcquisitionThatLandsReleasesTheLockWithoutStartingATerm() {
    var now = time.newWallClock().instant();
    store.overwrite(new LeaderRecord("gone", LEASE, now, now, 5).released(now));
    CompletableFuture<Void> acquisitionArrives = lock.holdNextUpdate();
    startCandidate();
    assertFalse(elector.isLeader(), "its acquisition is on its way");

    CompletableFuture<Void> closed = elector.closeAsync();
    time.runDueTasks();
    acquisitionArrives.complete(null); // the write lands: the record names a
    time.advanceUntil(closed::isDone, CLOSE_TIMEOUT);

    assertEquals(List.of(), terms, "no term starts once close() has run");
    assertEquals(0, stops);
    assertTrue(
        store.current().orElseThrow().isReleased(),
        "the record the late acquisition wrote is released, not left to expire: "
            + store.current().orElseThrow());
  }

  @Test
  void theReleaseAfterALateAcquisitionKeepsItsTokenNotAnOlderTermsOne() {
    startLeader(false); // term with token 0
    faults.hang();
    time.advanceUntil(() -> !elector.isLeader(), Duration.ofSeconds(15));
    // While a is cut off, b leads with token 7 and releases the lock.
    var now = time.newWallClock().instant();
    store.overwrite(new LeaderRecord("b", LEASE, now, now, 7));
    store.overwrite(new LeaderRecord("b", LEASE, now, now, 7).released(now));
    CompletableFuture<Void> acquisitionArrives = lock.holdNextUpdate();
    faults.heal();
    time.advanceUntil(
        () -> transcript.contains("a: update naming a held back"), Duration.ofMinutes(1));

    CompletableFuture<Void> closed = elector.closeAsync();
    time.runDueTasks();
    acquisitionArrives.complete(null); // a's write with token 8 lands
    time.advanceUntil(closed::isDone, CLOSE_TIMEOUT);

    LeaderRecord left = store.current().orElseThrow();
    assertTrue(left.isReleased(), left.toString());
    assertEquals(
        8,
        left.leaderTransitions(),
        "the token in the lock never goes back: the next candidate would reuse b's 7 or a's 8");
    assertEquals(1, terms.size(), "only the first term started");
  }

  @Test
  void aReleaseThatConflictsBecauseTheLockChangedLeavesTheNewHolderWithoutRetrying() {
    startLeader(true);
    time.advance(Duration.ofSeconds(3)); // renewed at 2 s
    // Another writer takes the lock after the last renewal, just before the release arrives.
    lock.beforeNextUpdate(() -> store.overwrite(hijackerRecord()));
    int callsBefore = faults.calls().size();
    int mark = transcript.size();

    CompletableFuture<Void> closed = elector.closeAsync();
    long closeAt = nanos();
    time.advanceUntil(closed::isDone, CLOSE_TIMEOUT);

    assertEquals(closeAt, nanos(), "close finishes as soon as the read shows the new holder");
    assertEquals(
        List.of(
            "stop callback CLOSED",
            "a: update naming nobody -> conflict",
            "a: read -> holder hijacker"),
        transcriptFrom(mark));
    assertEquals("hijacker", store.current().orElseThrow().holderIdentity());
    time.advance(Duration.ofMinutes(1));
    assertEquals(
        2, faults.calls().size() - callsBefore, "one release and one read, nothing after close");
    assertEquals(1, stops);
  }

  @Test
  void closeRightAfterAnUnnoticedHijackDoesNotOverwriteTheHijacker() {
    startLeader(false);
    time.advance(Duration.ofSeconds(3));
    store.overwrite(hijackerRecord()); // the leader has not read the lock since
    String hijackedVersion = store.version().orElseThrow();
    int mark = transcript.size();

    CompletableFuture<Void> closed = elector.closeAsync();
    time.advanceUntil(closed::isDone, CLOSE_TIMEOUT);

    assertEquals(TermEnd.CLOSED, terms.get(0).endReason().orElseThrow());
    assertEquals(
        List.of(
            "stop callback CLOSED",
            "a: update naming nobody -> conflict",
            "a: read -> holder hijacker"),
        transcriptFrom(mark));
    assertEquals(hijackedVersion, store.version().orElseThrow(), "the hijacker's record stays");
    assertEquals("hijacker", store.current().orElseThrow().holderIdentity());
  }

  @Test
  void closeAfterSteppingDownForAHijackDoesNotOverwriteTheHijacker() {
    startLeader(false);
    time.advance(Duration.ofSeconds(3));
    store.overwrite(hijackerRecord());
    String hijackedVersion = store.version().orElseThrow();
    time.advance(Duration.ofSeconds(5)); // the next renewal conflicts, a steps down and follows
    assertEquals(TermEnd.LOCK_LOST, terms.get(0).endReason().orElseThrow());
    assertEquals(1, stops);

    CompletableFuture<Void> closed = elector.closeAsync();
    time.advanceUntil(closed::isDone, CLOSE_TIMEOUT);
    time.advance(Duration.ofMinutes(1));

    assertEquals(hijackedVersion, store.version().orElseThrow(), "the hijacker's record stays");
    assertEquals("hijacker", store.current().orElseThrow().holderIdentity());
    assertEquals(1, stops, "no second stop for a term that already ended");
  }

  @Test
  void closeWhileTheApiServerFailsEveryCallRunsTheStopCallbackFirstAndEndsAtCloseTimeout() {
    startLeader(false);
    time.advance(Duration.ofSeconds(3));
    faults.failAll(LockFailure.Kind.UNAVAILABLE);
    callbackExecutor.hold();
    int callsBefore = faults.calls().size();
    int mark = transcript.size();

    CompletableFuture<Void> closed = elector.closeAsync();
    long closeAt = nanos();
    time.advance(Duration.ofSeconds(1));
    assertEquals(callsBefore, faults.calls().size(), "no release before the stop callback ran");

    callbackExecutor.letGo();
    Duration took = time.advanceUntil(closed::isDone, CLOSE_TIMEOUT);
    assertEquals(
        CLOSE_TIMEOUT.toNanos(),
        nanos() - closeAt,
        "close gives up exactly at closeTimeout: " + took);
    List<String> after = transcriptFrom(mark);
    assertEquals("stop callback CLOSED", after.get(0));
    assertTrue(
        after.size() >= 2
            && after.subList(1, after.size()).stream()
                .allMatch("a: update naming nobody -> failed UNAVAILABLE"::equals),
        after.toString());
    long releaseCalls = (long) faults.calls().size() - callsBefore;
    // The call budget: CALL_BURST, then one call per retryPeriod / CALLS_PER_RETRY_PERIOD.
    long bound =
        ElectorConfig.CALL_BURST
            + CLOSE_TIMEOUT.toNanos()
                / Duration.ofSeconds(2).dividedBy(ElectorConfig.CALLS_PER_RETRY_PERIOD).toNanos();
    assertTrue(releaseCalls <= bound, releaseCalls + " release attempts, bound " + bound);

    time.advance(Duration.ofMinutes(1));
    assertEquals(callsBefore + releaseCalls, faults.calls().size(), "no call after close");
    assertEquals(1, stops);
    assertEquals(
        "a",
        store.current().orElseThrow().holderIdentity(),
        "not released: the lease expires on its own");
  }

  @Test
  void closeWhileTheApiServerHangsIsBoundedByCloseTimeout() {
    startLeader(false);
    time.advance(Duration.ofSeconds(3));
    faults.hang();
    int callsBefore = faults.calls().size();
    int mark = transcript.size();

    CompletableFuture<Void> closed = elector.closeAsync();
    long closeAt = nanos();
    time.advanceUntil(closed::isDone, CLOSE_TIMEOUT);

    assertEquals(CLOSE_TIMEOUT.toNanos(), nanos() - closeAt);
    assertEquals(List.of("stop callback CLOSED"), transcriptFrom(mark), "no call ever answered");
    assertTrue(faults.calls().size() > callsBefore, "the release was attempted");
    assertEquals(1, stops);
    assertEquals("a", store.current().orElseThrow().holderIdentity());
  }

  @Test
  void aStopCallbackThatNeverReturnsHoldsTheReleaseBackAndCloseStillEndsAtCloseTimeout() {
    startLeader(false);
    time.advance(Duration.ofSeconds(3));
    callbackExecutor.hold(); // the stop callback is stuck
    int callsBefore = faults.calls().size();

    CompletableFuture<Void> closed = elector.closeAsync();
    long closeAt = nanos();
    time.advanceUntil(closed::isDone, CLOSE_TIMEOUT);

    assertEquals(CLOSE_TIMEOUT.toNanos(), nanos() - closeAt);
    assertEquals(
        callsBefore, faults.calls().size(), "no release while the stop callback has not returned");
    assertEquals("a", store.current().orElseThrow().holderIdentity());
  }

  @Test
  void stepDownDuringARenewalReleasesTheRenewedRecordAfterTheStopCallbackAndStaysACandidate() {
    startLeader(false);
    CompletableFuture<Void> renewalArrives = lock.holdNextUpdate();
    time.advance(Duration.ofMillis(2500)); // the renewal due at 2 s is on its way
    callbackExecutor.hold();
    int mark = transcript.size();

    assertTrue(elector.stepDown(Duration.ofMinutes(1)));
    assertFalse(elector.isLeader(), "the term ends the instant stepDown returns");
    renewalArrives.complete(null);
    time.advance(Duration.ofSeconds(1));
    assertEquals(
        List.of("a: update naming a -> written"),
        transcriptFrom(mark),
        "nothing is released while the stop callback has not run");

    callbackExecutor.letGo();
    time.advance(Duration.ofSeconds(1));

    assertEquals(
        List.of(
            "a: update naming a -> written",
            "stop callback STEPPED_DOWN",
            "a: update naming nobody -> written"),
        transcriptFrom(mark).subList(0, 3),
        "the release follows the stop callback and uses the renewal's version: one write");
    assertTrue(store.current().orElseThrow().isReleased());
    time.advance(Duration.ofSeconds(50));
    assertFalse(elector.isLeader(), "held back for the hold-off, though the lock is free");
    assertEquals(
        List.of(),
        transcriptFrom(mark + 3).stream().filter(line -> !line.startsWith("a: read")).toList(),
        "a candidate that follows by reading, and writes nothing during the hold-off");
    time.advanceUntil(elector::isLeader, Duration.ofSeconds(15));
    assertEquals(2, terms.size(), "a candidate still: a new term after the hold-off");
    assertEquals(1, stops);
  }

  @Test
  void closeWhileTheStepDownsStopCallbackRunsReleasesOnceAfterIt() {
    startLeader(false);
    callbackExecutor.hold();
    int mark = transcript.size();

    assertTrue(elector.stepDown(Duration.ofMinutes(1)));
    CompletableFuture<Void> closed = elector.closeAsync();
    time.advance(Duration.ofSeconds(1));
    assertFalse(closed.isDone(), "close waits for the stop callback");
    assertEquals(List.of(), transcriptFrom(mark), "nothing written before the stop callback");

    callbackExecutor.letGo();
    time.advanceUntil(closed::isDone, CLOSE_TIMEOUT);

    assertEquals(
        List.of("stop callback STEPPED_DOWN", "a: update naming nobody -> written"),
        transcriptFrom(mark));
    assertEquals(1, stops, "one term, one stop callback");
    assertTrue(store.current().orElseThrow().isReleased());
  }
}
