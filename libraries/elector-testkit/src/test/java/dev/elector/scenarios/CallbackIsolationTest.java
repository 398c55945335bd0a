package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.CallOutcome;
import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.LockCall;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.lock.LeaderRecord;
import dev.elector.testkit.VirtualTime;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Callbacks never run on the renew path: throwing or blocking ones cannot stop renewals. */
class CallbackIsolationTest {

  @Test
  void throwingCallbacksDoNotStopRenewalsOrTheElection() {
    VirtualTime time = VirtualTime.withSeed(3);
    InMemoryLockStore store = InMemoryLockStore.create("lock");
    AtomicInteger stops = new AtomicInteger();
    LeaderCallbacks throwing =
        new LeaderCallbacks() {
          @Override
          public void onStartedLeading(Term term) {
            throw new IllegalStateException("start callback broke");
          }

          @Override
          public void onStoppedLeading(Term term, TermEnd reason) {
            stops.incrementAndGet();
            throw new IllegalStateException("stop callback broke");
          }

          @Override
          public void onNewLeader(String identity) {
            throw new IllegalStateException("new-leader callback broke");
          }
        };
    LeaderElector elector =
        LeaderElector.start(
            time.configure(ElectorConfig.newBuilder())
                .lock(store.lockFor("a"))
                .callbacks(throwing)
                .build());

    time.advance(Duration.ofMinutes(1));
    long renewals = elector.stats().calls(LockCall.RENEW, CallOutcome.OK);
    assertTrue(elector.isLeader());
    // renewals come every retryPeriod × U[1, jitter]: at least one per 2.4 s
    assertTrue(renewals >= 24, "renewed at least every 2.4 s despite the callback: " + renewals);

    var now = time.newWallClock().instant();
    store.overwrite(new LeaderRecord("x", Duration.ofSeconds(15), now, now, 9));
    time.advance(Duration.ofSeconds(40));
    assertEquals(1, stops.get());
    assertTrue(elector.isLeader(), "leads again after the foreign lease expired");
    time.close(elector);
    assertEquals(2, stops.get(), "stop delivered for the second term too");
  }

  @Test
  void aBlockedCallbackDoesNotDelayRenewals() throws Exception {
    VirtualTime time = VirtualTime.withSeed(4);
    InMemoryLockStore store = InMemoryLockStore.create("lock");
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch entered = new CountDownLatch(1);
    ExecutorService callbackThread = Executors.newSingleThreadExecutor();
    try {
      LeaderElector elector =
          LeaderElector.start(
              time.configure(ElectorConfig.newBuilder())
                  .callbackExecutor(callbackThread)
                  .lock(store.lockFor("a"))
                  .callbacks(
                      LeaderCallbacks.of(
                          term -> {
                            entered.countDown();
                            try {
                              release.await();
                            } catch (InterruptedException e) {
                              Thread.currentThread().interrupt();
                            }
                          },
                          (term, reason) -> {}))
                  .build());
      time.advance(Duration.ofSeconds(1));
      assertTrue(entered.await(10, TimeUnit.SECONDS), "the start callback is running");

      time.advance(Duration.ofMinutes(10));
      assertTrue(elector.isLeader(), "still leading while the callback blocks");
      assertTrue(
          elector.stats().calls(LockCall.RENEW, CallOutcome.OK) >= 249,
          "renewed at least every 2.4 s for 10 minutes");
      assertTrue(elector.stats().healthy());

      release.countDown();
      CompletableFuture<Void> closing = elector.closeAsync();
      time.advanceUntil(closing::isDone, Duration.ofSeconds(30));
    } finally {
      release.countDown();
      callbackThread.shutdownNow();
    }
  }
}
