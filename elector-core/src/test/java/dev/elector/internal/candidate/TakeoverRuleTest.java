package dev.elector.internal.candidate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When a candidate may take the lock: the rule as pure functions of observations and instants. */
class TakeoverRuleTest {
  private static final long S = 1_000_000_000L;
  private static final long LEASE = 15 * S;
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private final TakeoverRule rule = new TakeoverRule("me", LEASE);

  private static LockRead.Found found(String version, String holder, Duration lease, long token) {
    return new LockRead.Found(version, new LeaderRecord(holder, lease, T0, T0, token));
  }

  private static LockRead.Found other(String version) {
    return found(version, "other", Duration.ofSeconds(15), 3);
  }

  @Test
  void aRecordHeldByAnotherMayBeTakenOnlyOnceItHasNotChangedForALeaseSinceFirstSeen() {
    Observation seen = rule.observe(null, other("1"), 100 * S);
    assertFalse(rule.mayTake(seen, 100 * S));
    assertFalse(rule.mayTake(seen, 115 * S - 1));
    assertTrue(rule.mayTake(seen, 115 * S));
    assertEquals(115 * S, rule.expiresAt(seen));
  }

  @Test
  void theRecordsOwnTimestampsAreNotTrustedOnlyWhenThisCandidateSawItChange() {
    LockRead.Found stale =
        new LockRead.Found(
            "1",
            new LeaderRecord(
                "other", Duration.ofSeconds(15), T0.minusSeconds(3600), T0.minusSeconds(3600), 3));
    Observation seen = rule.observe(null, stale, 50 * S);
    assertFalse(rule.mayTake(seen, 50 * S), "an hour-old renewTime is not an expiry");
  }

  @Test
  void aRenewalRestartsTheLeaseButAnUnchangedRecordAtANewVersionDoesNot() {
    Observation first = rule.observe(null, other("1"), 0);
    Observation sameRecordNewVersion = rule.observe(first, other("2"), 10 * S);
    assertEquals("2", sameRecordNewVersion.version());
    assertEquals(0, sameRecordNewVersion.seenAt(), "equal content keeps the first sighting");

    LockRead.Found renewed =
        new LockRead.Found("3", other("3").record().withRenewTime(T0.plusSeconds(2)));
    Observation afterRenewal = rule.observe(sameRecordNewVersion, renewed, 12 * S);
    assertEquals(12 * S, afterRenewal.seenAt());
    assertFalse(rule.mayTake(afterRenewal, 20 * S));
    assertTrue(rule.mayTake(afterRenewal, 27 * S));
  }

  @Test
  void aReleasedRecordOrOneHeldByThisCandidateMayBeTakenAtOnce() {
    LockRead.Found released =
        new LockRead.Found("1", other("1").record().released(T0.plusSeconds(5)));
    assertTrue(rule.mayTake(rule.observe(null, released, 0), 0));
    assertTrue(rule.mayTake(rule.observe(null, found("1", "me", Duration.ofSeconds(15), 3), 0), 0));
  }

  @Test
  void theReleaseOfTheTermSeenHeldIsFreeAtOnce() {
    Observation held = rule.observe(null, other("1"), 0);
    Observation released =
        rule.observe(
            held, new LockRead.Found("2", other("1").record().released(T0.plusSeconds(1))), 2 * S);
    assertFalse(released.guarded());
    assertTrue(rule.mayTake(released, 2 * S));
  }

  /** What client-go's leader writes when it releases after its renewals failed. */
  private static LockRead.Found staleRelease(String version, long token, Instant now) {
    return new LockRead.Found(
        version, new LeaderRecord("", Duration.ofSeconds(1), now, now, token));
  }

  @Test
  void aReleaseWithoutTheAcquisitionTimeOfTheTermSeenProtectsThatTermForALease() {
    Observation held = rule.observe(null, other("1"), 0);
    Observation cleared = rule.observe(held, staleRelease("2", 3, T0.plusSeconds(1)), 2 * S);
    assertTrue(cleared.guarded());
    assertFalse(rule.mayTake(cleared, 2 * S));
    assertFalse(rule.mayTake(cleared, 17 * S - 1));
    assertTrue(rule.mayTake(cleared, 17 * S), "a lease from when the release was seen");

    Observation reread = rule.observe(cleared, staleRelease("3", 3, T0.plusSeconds(1)), 5 * S);
    assertTrue(reread.guarded(), "reading it again keeps the protection");
    assertEquals(2 * S, reread.seenAt());
  }

  @Test
  void aReleaseOfATermThisCandidateNeverSawHeldProtectsItForALease() {
    Observation held = rule.observe(null, other("1"), 0);
    LeaderRecord unseenTerm = new LeaderRecord("third", Duration.ofSeconds(15), T0, T0, 4);
    Observation cleared =
        rule.observe(held, new LockRead.Found("3", unseenTerm.released(T0.plusSeconds(1))), 2 * S);
    assertTrue(cleared.guarded(), "token 4 ends a term seen only as token 3");
    assertFalse(rule.mayTake(cleared, 16 * S));
  }

  @Test
  void aFirstLookAtAReleaseTrustsOnlyOneThatKeepsItsAcquisitionTime() {
    LockRead.Found holders =
        new LockRead.Found("1", other("1").record().released(T0.plusSeconds(1)));
    assertTrue(rule.mayTake(rule.observe(null, holders, 0), 0));
    Observation unproven = rule.observe(null, staleRelease("1", 3, T0), 0);
    assertTrue(unproven.guarded());
    assertFalse(rule.mayTake(unproven, LEASE - 1));
    assertTrue(rule.mayTake(unproven, LEASE));
  }

  @Test
  void aLockNeverSeenToExistMayBeCreatedAtOnceButADeletedOneOnlyAfterALease() {
    Observation neverSeen = rule.observe(null, new LockRead.Absent(), 5 * S);
    assertFalse(neverSeen.guarded());
    assertTrue(rule.mayTake(neverSeen, 5 * S));

    Observation existed = rule.observe(null, other("1"), 0);
    Observation deleted = rule.observe(existed, new LockRead.Absent(), 5 * S);
    assertTrue(deleted.guarded(), "a holder this candidate did not see may still lead");
    assertFalse(rule.mayTake(deleted, 20 * S - 1));
    assertTrue(rule.mayTake(deleted, 20 * S));

    Observation stillGone = rule.observe(deleted, new LockRead.Absent(), 10 * S);
    assertSame(deleted, stillGone, "a second look at the same absence keeps the first sighting");
  }

  @Test
  void aRefusedCreateCountsAsAnUnreadHolderAndAnAbsenceReadAfterItIsADeletion() {
    Observation refused = rule.refused(10 * S);
    assertEquals("not read yet", refused.describeHolder());
    assertTrue(refused.lockSeen(), "the lock exists");
    assertFalse(rule.mayTake(refused, 10 * S + LEASE - 1));
    assertTrue(rule.mayTake(refused, 10 * S + LEASE));

    Observation gone = rule.observe(refused, new LockRead.Absent(), 12 * S);
    assertTrue(gone.guarded(), "the holder that refused the create may still lead");
    assertEquals(12 * S + LEASE, rule.expiresAt(gone), "guarded from when the absence was read");

    Observation read = rule.observe(refused, other("4"), 12 * S);
    assertEquals("other", read.holder());
    assertEquals(12 * S, read.seenAt());
  }

  @Test
  void anUnreadableRecordCountsAsHeldByAnUnknownHolderForOurLease() {
    Observation seen = rule.observe(null, new LockRead.Malformed("7", "garbled"), 0);
    assertEquals("unreadable", seen.describeHolder());
    assertFalse(rule.mayTake(seen, LEASE - 1));
    assertTrue(rule.mayTake(seen, LEASE));
    Observation again = rule.observe(seen, new LockRead.Malformed("7", "garbled"), 10 * S);
    assertEquals(0, again.seenAt(), "the same unreadable version does not restart the lease");
  }

  @Test
  void aLongerLeaseInTheRecordIsHonouredAShorterOrInvalidOneIsRaisedToOurs() {
    assertEquals(
        60 * S, rule.effectiveLease(new LeaderRecord("x", Duration.ofSeconds(60), T0, T0, 1)));
    assertEquals(
        LEASE,
        rule.effectiveLease(new LeaderRecord("x", Duration.ofSeconds(1), T0, T0, 1)),
        "a short lease may have replaced a holder that steps down only within our timings");
    assertEquals(
        LEASE,
        rule.effectiveLease(new LeaderRecord("x", Duration.ofSeconds(-5), T0, T0, 1)),
        "a negative duration is not read as already expired");
    assertEquals(LEASE, rule.effectiveLease(new LeaderRecord("x", null, T0, T0, 1)));
    assertEquals(LEASE, rule.effectiveLease(null));
  }

  @Test
  void anExpiryBeyondTheClockRangeIsNeverRatherThanInThePast() {
    Observation seen =
        rule.observe(null, found("1", "other", Duration.ofDays(365 * 400), 1), Long.MAX_VALUE - S);
    assertEquals(Long.MAX_VALUE, rule.expiresAt(seen));
    assertFalse(rule.mayTake(seen, Long.MAX_VALUE - 1));
  }

  @Test
  void aNewTermsTokenIsOneAboveTheHighestEverSeen() {
    Observation seen = rule.observe(null, found("1", "other", Duration.ofSeconds(15), 4), 0);
    assertEquals(5, TakeoverRule.nextToken(-1, seen));
    assertEquals(10, TakeoverRule.nextToken(9, seen), "a higher token seen earlier wins");
    assertEquals(0, TakeoverRule.nextToken(-1, rule.observe(null, new LockRead.Absent(), 0)));
  }

  @Test
  void aRecordUnderCoordinatedLeaderElectionIsNeverTakenWhateverItShows() {
    for (String holder : List.of("other", "", "me")) {
      LockRead.Found coordinated =
          new LockRead.Found(
              "1",
              new LeaderRecord(
                  holder, Duration.ofSeconds(15), T0, T0, 3, null, "OldestEmulationVersion"));
      Observation seen = rule.observe(null, coordinated, 0);
      assertFalse(rule.mayTake(seen, 0), "holder '" + holder + "'");
      assertFalse(
          rule.mayTake(seen, 1000 * LEASE), "holder '" + holder + "', a thousand leases on");
      assertEquals(Long.MAX_VALUE, rule.expiresAt(seen));
    }
  }
}
