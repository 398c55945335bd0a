package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.testkit.FaultyLock;
import dev.elector.testkit.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A leader renews retryPeriod × U[1, jitter] after its last renewal started, so electors that start
 * together do not renew together for ever: the API server sees their renewals spread over the
 * period instead of in waves, and no gap between two renewals exceeds jitter × retryPeriod.
 */
class RenewalSpreadTest {
  private static final int ELECTORS = 200;
  private static final Duration RETRY = ElectorConfig.DEFAULT_RETRY_PERIOD;
  private static final long MAX_GAP =
      (long) (ElectorConfig.DEFAULT_JITTER * RETRY.toNanos()); // 2.4 s

  @Test
  void electorsStartedTogetherSpreadTheirRenewalsAndEachStaysWithinJitterTimesRetryPeriod() {
    VirtualTime time = VirtualTime.withSeed(28);
    List<FaultyLock> locks = new ArrayList<>();
    List<LeaderElector> electors = new ArrayList<>();
    for (int i = 0; i < ELECTORS; i++) {
      FaultyLock lock = FaultyLock.wrap(InMemoryLockStore.create("lock-" + i).lockFor("a"), time);
      locks.add(lock);
      electors.add(
          LeaderElector.start(
              time.configure(ElectorConfig.newBuilder())
                  .lock(lock)
                  .callbacks(LeaderCallbacks.of(term -> {}, (term, end) -> {}))
                  .build()));
    }
    time.advance(Duration.ofMinutes(3));
    assertTrue(electors.stream().allMatch(LeaderElector::isLeader));

    // the last minute: every elector renewed at least every jitter × retryPeriod
    long now = time.clock().nanos();
    long from = now - Duration.ofMinutes(1).toNanos();
    List<Long> renewals = new ArrayList<>();
    for (FaultyLock lock : locks) {
      long previous = from;
      for (FaultyLock.Call call : lock.calls()) {
        if (call.atNanos() < from || !call.kind().equals("update")) {
          continue;
        }
        assertTrue(
            call.atNanos() - previous <= MAX_GAP,
            "gap " + Duration.ofNanos(call.atNanos() - previous) + " > jitter × retryPeriod");
        previous = call.atNanos();
        renewals.add(call.atNanos());
      }
      assertTrue(now - previous <= MAX_GAP, "renewing up to the end");
    }

    // and the server saw no wave: no 100 ms window of that minute held more than three times the
    // average of one (without the spread, all 200 renewals of a period fall into one instant)
    Collections.sort(renewals);
    long window = Duration.ofMillis(100).toNanos();
    int busiest = 0;
    for (int first = 0, last = 0; last < renewals.size(); last++) {
      while (renewals.get(last) - renewals.get(first) >= window) {
        first++;
      }
      busiest = Math.max(busiest, last - first + 1);
    }
    double average = renewals.size() / 600.0;
    System.out.printf(
        "renewal spread: %d renewals in a minute, busiest 100 ms window %d, average %.1f%n",
        renewals.size(), busiest, average);
    assertTrue(busiest <= 3 * average, "busiest 100 ms window " + busiest + " vs " + average);

    electors.forEach(time::close);
    assertEquals(0, electors.stream().filter(LeaderElector::isLeader).count());
    time.assertNoMoreTasks();
  }
}
