package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.CallOutcome;
import dev.elector.ElectorConfig;
import dev.elector.ElectorStats;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.LockCall;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.testkit.FaultyLock;
import dev.elector.testkit.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * The elector cancels every call it stops waiting for, so that a lock can stop the call's I/O: a
 * call past callTimeout, and a call still in flight when close() is done waiting. A call answered
 * in time is never cancelled. In virtual time with default timings (renewDeadline 10 s, so
 * callTimeout 5 s and closeTimeout 10 s; retryPeriod 2 s).
 */
class CallCancellationTest {
  private final VirtualTime time = VirtualTime.withSeed(17);
  private final InMemoryLockStore store = InMemoryLockStore.create("lock");
  private final FaultyLock faults = FaultyLock.wrap(store.lockFor("a"), time);
  private final List<String> transcript = new ArrayList<>();
  private LeaderElector elector;

  /** Passes every call on unchanged, its stage too, and notes when it is made and cancelled. */
  private final class Recording extends DelegatingLock {
    Recording(LeaderLock delegate) {
      super(delegate);
    }

    @Override
    public CompletionStage<LockRead> read(Duration timeout) {
      return noted("read", super.read(timeout));
    }

    @Override
    public CompletionStage<LockWrite> create(LeaderRecord record, Duration timeout) {
      return noted("create", super.create(record, timeout));
    }

    @Override
    public CompletionStage<LockWrite> update(
        String expectedVersion, LeaderRecord record, Duration timeout) {
      return noted(
          record.isReleased() ? "release" : "update",
          super.update(expectedVersion, record, timeout));
    }

    private <T> CompletionStage<T> noted(String call, CompletionStage<T> stage) {
      log(call);
      stage.whenComplete(
          (result, error) -> {
            if (error instanceof CancellationException) {
              log(call + " cancelled");
            }
          });
      return stage;
    }
  }

  private void log(String line) {
    transcript.add(String.format("%.3fs %s", time.elapsed().toNanos() / 1e9, line));
  }

  private void start() {
    elector =
        LeaderElector.start(
            time.configure(ElectorConfig.newBuilder())
                .lock(new Recording(faults))
                .watchWhenFollowing(false)
                .jitter(1.0) // renewals exactly every retryPeriod: the transcripts are exact
                .callbacks(
                    LeaderCallbacks.of(term -> log("leading"), (term, end) -> log(end.name())))
                .build());
    time.runDueTasks();
  }

  private String transcript() {
    return String.join("\n", transcript);
  }

  @Test
  void aCallWithoutAnAnswerIsCancelledAtCallTimeout() {
    start();
    time.advance(Duration.ofMillis(2500)); // created at 0, renewed at 2 s
    faults.hang();
    time.advance(Duration.ofMillis(6499)); // the renewal at 4 s gets no answer

    assertEquals(
        List.of("0.000s create", "0.000s leading", "2.000s update", "4.000s update"),
        transcript,
        "waiting for the renewal until callTimeout");
    time.advance(Duration.ofMillis(1));
    assertEquals(
        List.of(
            "0.000s create",
            "0.000s leading",
            "2.000s update",
            "4.000s update",
            "9.000s update cancelled",
            "9.000s update"),
        transcript,
        "cancelled when callTimeout (5 s) has passed, and tried again at once: it started more"
            + " than a retry period ago");
    ElectorStats stats = elector.stats();
    assertEquals(1, stats.calls(LockCall.RENEW, CallOutcome.TIMEOUT), stats.toString());
    assertEquals(0, stats.lateResults(), "its own cancellation is no late answer");
  }

  @Test
  void aCallAnsweredWithinCallTimeoutIsNotCancelled() {
    faults.latency(Duration.ofMillis(4999));
    start();
    time.advance(Duration.ofSeconds(30));

    assertEquals(
        List.of(
            "0.000s create",
            "4.999s leading",
            "4.999s update",
            "9.998s update",
            "14.997s update",
            "19.996s update",
            "24.995s update",
            "29.994s update"),
        transcript,
        "every call answered 1 ms within callTimeout, none cancelled");
    assertTrue(elector.isLeader());
  }

  @Test
  void closeCancelsTheReadInFlightWhenNothingIsLeftToRelease() {
    var now = time.newWallClock().instant();
    store.overwrite(new LeaderRecord("b", Duration.ofSeconds(15), now, now, 1));
    start(); // refused create, then a read: b leads
    time.advance(Duration.ofMillis(1500));
    faults.hang();
    time.advance(Duration.ofSeconds(1)); // the next look, within 2 to 2.4 s, gets no answer
    log("close");

    CompletableFuture<Void> closed = elector.closeAsync();
    time.runDueTasks();

    assertTrue(closed.isDone(), "a follower has nothing to release");
    assertEquals(
        List.of("2.500s close", "2.500s read cancelled"),
        transcript.subList(transcript.size() - 2, transcript.size()),
        transcript());
  }

  @Test
  void closeCancelsTheReleaseInFlightWhenCloseTimeoutEnds() {
    start();
    time.advance(Duration.ofMillis(2500)); // created at 0, renewed at 2 s
    faults.hang();
    time.advance(Duration.ofMillis(3500));
    log("close");

    CompletableFuture<Void> closed = elector.closeAsync();
    time.advanceUntil(closed::isDone, Duration.ofSeconds(20));

    assertEquals(
        List.of(
            "0.000s create",
            "0.000s leading",
            "2.000s update",
            "4.000s update",
            "6.000s close",
            "6.000s CLOSED",
            "9.000s update cancelled", // callTimeout: the release may go out
            "9.000s release",
            "14.000s release cancelled", // callTimeout
            "15.000s release",
            "16.000s release cancelled"), // closeTimeout (10 s) since close
        transcript,
        transcript());
  }
}
