package dev.elector.scenarios;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * No two candidates ever lead at once, and fencing tokens only grow, across thousands of randomized
 * fault schedules on one virtual timeline: errors, hangs, latency, conflicts, wall-clock jumps,
 * hijacks by foreign holders, garbled records, step-downs and requests to move leadership to a
 * named candidate (or to one that does not exist), with jitter factors from 1.0 to 4.9 spreading
 * renewals and looks. A failure names the seed that reproduces it.
 *
 * <p>An outside writer that deletes the lock under a live leader is the one fault no elector that
 * only reads the lock can fully mask (a candidate that never saw the new object cannot know it
 * existed); for schedules with deletions the property is that any overlap ends within
 * renewDeadline, when the deleted leader has stepped down at the latest.
 */
class SafetyPropertyTest {
  private static final long BASE_SEED = Long.getLong("elector.property.seed", 20261202L);
  private static final int SCHEDULES = Integer.getInteger("elector.property.schedules", 2000);
  private static final AtomicInteger STEP_DOWNS = new AtomicInteger();

  @Test
  void noOverlapAcrossRandomizedFaultSchedules() {
    int leaderships = 0;
    System.out.println("safety property: seed " + BASE_SEED + ", " + SCHEDULES + " schedules");
    for (int i = 0; i < SCHEDULES; i++) {
      long seed = BASE_SEED + i;
      try {
        leaderships += runSchedule(seed);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            "schedule failed; reproduce with -Delector.property.seed="
                + seed
                + " -Delector.property.schedules=1: "
                + e.getMessage(),
            e);
      }
    }
    assertTrue(leaderships > SCHEDULES, "the schedules exercised handovers: " + leaderships);
    assertTrue(
        STEP_DOWNS.get() > SCHEDULES / 10, "the schedules ended terms by step-down: " + STEP_DOWNS);
    System.out.println(
        "safety property: " + leaderships + " terms, " + STEP_DOWNS + " ended by step-down");
  }

  private static int runSchedule(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    boolean watch = random.nextBoolean();
    // renewals and looks are spread over retryPeriod × U[1, jitter]; the config allows any jitter
    // up to renewDeadline / retryPeriod (here 5), and safety must not depend on it
    double jitter = 1.0 + random.nextInt(40) / 10.0;
    ElectionFixture election =
        new ElectionFixture(seed, b -> b.watchWhenFollowing(watch).jitter(jitter));
    int candidates = 2 + random.nextInt(3);
    for (int c = 0; c < candidates; c++) {
      election.start("c" + c);
    }
    boolean historyDestroyed = false;
    boolean deleted = false;
    for (int step = 0; step < 60; step++) {
      ElectionFixture.Candidate victim = election.candidate("c" + random.nextInt(candidates));
      switch (random.nextInt(14)) {
        case 0 ->
            victim.lock.failAll(
                random.nextBoolean() ? LockFailure.Kind.UNAVAILABLE : LockFailure.Kind.FORBIDDEN);
        case 1 -> victim.lock.hang();
        case 2 -> victim.lock.latency(Duration.ofMillis(random.nextInt(6000)));
        case 3 -> victim.lock.failRandomly(0.5, LockFailure.Kind.UNAVAILABLE, random.nextLong());
        case 4 -> victim.lock.injectConflicts(1 + random.nextInt(3));
        case 5 -> victim.jumpWallClock(Duration.ofMinutes(random.nextInt(121) - 60));
        case 6 -> {
          var now = victim.wall.instant();
          long next = election.store.current().map(r -> r.leaderTransitions() + 1).orElse(0L);
          election.store.overwrite(
              new LeaderRecord(
                  "outsider", Duration.ofSeconds(1 + random.nextInt(20)), now, now, next));
        }
        case 7 -> {
          election.store.delete();
          historyDestroyed = true;
          deleted = true;
        }
        case 8 -> {
          election.store.corrupt("garbage");
          historyDestroyed = true;
        }
        case 10 -> {
          String wanted = random.nextInt(4) == 0 ? "ghost" : "c" + random.nextInt(candidates);
          election
              .store
              .current()
              .ifPresent(r -> election.store.overwrite(r.withPreferredHolder(wanted)));
        }
        case 9 -> {
          boolean ended = victim.elector.stepDown(Duration.ofMillis(random.nextInt(20_000)));
          if (ended) {
            STEP_DOWNS.incrementAndGet();
          }
        }
        default -> victim.lock.heal();
      }
      election.advance(Duration.ofMillis(random.nextInt(8000)));
    }
    election.candidates.values().forEach(c -> c.lock.heal());
    election.advance(Duration.ofMinutes(2));
    if (deleted) {
      Duration overlap = election.timeline.maxOverlap();
      if (overlap.compareTo(ElectorConfig.DEFAULT_RENEW_DEADLINE) > 0) {
        throw new AssertionError("after a deletion two leaders overlapped for " + overlap);
      }
    } else if (historyDestroyed) {
      election.timeline.assertNoTwoLeaders();
    } else {
      election.timeline.assertNoOverlap();
    }
    if (election.leaders().size() != 1) {
      throw new AssertionError(
          "after healing for 2 minutes, leaders: " + election.leaders().size());
    }
    int terms = election.timeline.terms().size();
    election.closeAll();
    return terms;
  }
}
