package dev.elector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.elector.internal.candidate.Observation;
import dev.elector.internal.candidate.Phase;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The health verdict and status line an elector reports in each phase of a term's life. */
class HealthTest {
  private static final long S = 1_000_000_000L;
  private final Timings timings = new Timings(15 * S, 10 * S, 2 * S, 5 * S, 30 * S, 10 * S, 2 * S);
  private final Health health =
      new Health("lock [me]", timings, Duration.ofSeconds(15), Duration.ofSeconds(2));

  private static Health.Report of(boolean healthy, String status) {
    return new Health.Report(healthy, status);
  }

  @Test
  void waitingForTheGateIsHealthyUntilTheGateFails() {
    assertEquals(
        of(true, "lock [me]: waiting for the readiness gate"),
        health.report(new Phase.AwaitingGate(null), 0, null, 0, null, ""));
    assertEquals(
        of(false, "lock [me]: readiness gate failed: boom"),
        health.report(new Phase.AwaitingGate("boom"), 0, null, 0, null, ""));
  }

  @Test
  void aFollowerIsHealthyAndNamesTheHolderItsFailuresAndHowItWatches() {
    Observation seen =
        new Observation(
            "1",
            new LeaderRecord("other", Duration.ofSeconds(15), Instant.EPOCH, Instant.EPOCH, 1),
            null,
            0,
            false);
    assertEquals(
        of(true, "lock [me]: following (lock not read yet)"),
        health.report(new Phase.Following(null), 0, null, 0, null, ""));
    assertEquals(
        of(
            true,
            "lock [me]: following other, 3 failures in a row, the last: FORBIDDEN: no"
                + "; watching the lock"),
        health.report(
            new Phase.Following(null),
            0,
            seen,
            3,
            LockFailure.of(LockFailure.Kind.FORBIDDEN, "no"),
            "; watching the lock"));
  }

  @Test
  void aLeaderTurnsUnhealthyOnlyPastLeaseDurationPlusToleranceSinceItsLastRenewal() {
    Phase leading =
        new Phase.Leading(4, java.time.Instant.EPOCH, new Phase.Claim("1", null), 100 * S);
    assertEquals(
        of(true, "lock [me]: leading, renewed PT17S ago"),
        health.report(leading, 117 * S, null, 0, null, ""));
    assertEquals(
        of(
            false,
            "lock [me]: leading but not renewed for PT17.000000001S, past"
                + " leaseDuration PT15S + tolerance PT2S; the elector's threads may be stalled"),
        health.report(leading, 117 * S + 1, null, 0, null, ""));
  }

  @Test
  void closingIsReportedAsClosingNotClosed() {
    assertEquals(
        of(false, "lock [me]: closing"),
        health.report(new Phase.Closing(null, 4), 0, null, 0, null, ""));
    assertEquals(
        of(false, "lock [me]: closing"),
        health.report(new Phase.Releasing(new Phase.Claim("1", null)), 0, null, 0, null, ""));
    assertEquals(
        of(false, "lock [me]: closed"), health.report(new Phase.Closed(), 0, null, 0, null, ""));
  }

  @Test
  void aCandidateSteppingDownOnRequestIsHealthy() {
    assertEquals(
        of(true, "lock [me]: stepped down on request, releasing the lock; still a candidate"),
        health.report(
            new Phase.SteppingDown(new Phase.Claim("1", null), 4, 0), 0, null, 0, null, ""));
  }

  @Test
  void aFollowerOfACoordinatedLeaseSaysWhyItNeverTakesIt() {
    Observation seen =
        new Observation(
            "1",
            new LeaderRecord(
                "kcm-a",
                Duration.ofSeconds(15),
                Instant.EPOCH,
                Instant.EPOCH,
                1,
                null,
                "OldestEmulationVersion"),
            null,
            0,
            false);
    assertEquals(
        of(
            true,
            "lock [me]: following kcm-a, chosen by coordinated leader election (strategy"
                + " OldestEmulationVersion): this candidate never writes the lock"
                + "; watching the lock"),
        health.report(new Phase.Following(null), 0, seen, 0, null, "; watching the lock"));
  }
}
