package dev.elector.internal.candidate;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import org.jspecify.annotations.Nullable;

/**
 * What a candidate last saw in the lock, and when it first saw that content (monotonic). Exactly
 * one of four shapes: a record ({@code version} and {@code record} set), an unreadable record
 * ({@code version} and {@code unknownHolder} set), a lock known to exist but not read yet (only
 * {@code unknownHolder} set: a create of it was refused) or an absence (all three null). An absence
 * is {@code guarded} when the candidate has seen the lock exist before: someone deleted it, and a
 * holder the candidate never saw may still be leading, so it counts as taken for a lease. A release
 * is {@code guarded} when it cannot be its holder's own ({@link TakeoverRule#unprovenRelease}): the
 * term it cleared may still run, so it too counts as taken for a lease.
 */
public record Observation(
    @Nullable String version,
    @Nullable LeaderRecord record,
    @Nullable String unknownHolder,
    long seenAt,
    boolean guarded) {

  boolean absent() {
    return version == null && unknownHolder == null;
  }

  /** Whether the candidate has seen the lock exist, now or before. */
  boolean lockSeen() {
    return !absent() || guarded;
  }

  /** Whether {@code read} shows the same content; a new version of an equal record does. */
  boolean sameContent(LockRead read) {
    if (read instanceof LockRead.Found found) {
      return found.record().equals(record);
    }
    if (read instanceof LockRead.Malformed bad) {
      return record == null && bad.version().equals(version);
    }
    return absent(); // a lock known to exist but not read yet is never what a read shows
  }

  /** The holder's identity, or "" when the record is absent or unreadable. */
  String holder() {
    return record == null ? "" : record.holderIdentity();
  }

  /** The holder for messages: its identity, "nobody", "unreadable" or "not read yet". */
  public String describeHolder() {
    if (unknownHolder != null) {
      return version == null ? "not read yet" : "unreadable";
    }
    return holder().isEmpty() ? "nobody" : holder();
  }
}
