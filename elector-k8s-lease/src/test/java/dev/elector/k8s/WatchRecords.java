package dev.elector.k8s;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import java.time.Duration;
import java.time.Instant;

/** Records to write and read back in the watch tests. */
final class WatchRecords {
  private WatchRecords() {}

  /** A record held by {@code holder} for 3 s from now. */
  static LeaderRecord record(String holder, long transitions) {
    Instant now = Instant.now();
    return new LeaderRecord(holder, Duration.ofSeconds(3), now, now, transitions);
  }

  /** The holder a read shows, or null when it shows no record. */
  static String holderOf(LockRead read) {
    return read instanceof LockRead.Found found ? found.record().holderIdentity() : null;
  }
}
