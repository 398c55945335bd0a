package dev.elector.internal.candidate;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a candidate knows of the lock, as a value: the last observation (judged by {@link
 * TakeoverRule}), the highest fencing token seen, how often someone else's lock was seen, the
 * hold-off, and the identity the lock asks to lead next. Taking in a read returns a new view and
 * adds to the transition's effects the news that needs telling: a new holder, a record to warn
 * about.
 *
 * @param current the last observation, or null before the first
 * @param othersSeen how many times the view changed to show that someone else's lock exists or
 *     existed (a record not naming this candidate, an unreadable one, a deletion): a different
 *     count after a create shows that someone else created the lock while it was on its way
 * @param holdOffUntil no term starts before this instant (monotonic) while {@code holdingOff}
 * @param firstLookAt when the first observation was made
 * @param request the identity the lock asks to lead next, or null; {@code requestSeenAt} is when
 *     this candidate first saw the request
 */
public record View(
    @Nullable Observation current,
    long highestToken,
    long othersSeen,
    boolean holdingOff,
    long holdOffUntil,
    long firstLookAt,
    @Nullable String request,
    long requestSeenAt) {

  static final View NOTHING_SEEN = new View(null, -1, 0, false, 0, 0, null, 0);

  View withToken(long token) {
    return token <= highestToken
        ? this
        : new View(
            current,
            token,
            othersSeen,
            holdingOff,
            holdOffUntil,
            firstLookAt,
            request,
            requestSeenAt);
  }

  /** Holds back from the lock until {@code until}, replacing any earlier hold. */
  View holdingOffUntil(long until) {
    return new View(
        current, highestToken, othersSeen, true, until, firstLookAt, request, requestSeenAt);
  }

  /** Whether a hold-off keeps this candidate back at {@code now}. */
  boolean holdingOff(long now) {
    return holdingOff && now - holdOffUntil < 0;
  }

  /** Whether {@code seen} is content that changed after this candidate's first look. */
  boolean changedSinceFirstLook(Observation seen) {
    return seen.seenAt() - firstLookAt > 0;
  }

  /**
   * A create was refused at {@code now}: the lock exists. Unless something newer has been seen
   * since the create was decided, the view becomes a lock held by a holder not read yet.
   */
  View createRefused(TakeoverRule rule, long now) {
    if (current != null && !current.absent()) {
      return this;
    }
    return new View(
        rule.refused(now),
        highestToken,
        othersSeen + 1,
        holdingOff,
        holdOffUntil,
        firstLookAt,
        request,
        requestSeenAt);
  }

  /**
   * Takes in what a read, a watch event or this candidate's own write showed at {@code now}; the
   * news goes to {@code effects}.
   */
  View see(
      LockRead read,
      long now,
      TakeoverRule rule,
      String identity,
      Duration leaseDuration,
      long requestTimeout,
      List<Effect> effects) {
    Observation previous = current;
    long first = previous == null ? now : firstLookAt;
    boolean changed = previous == null || !previous.sameContent(read);
    Observation seen = rule.observe(previous, read, now);
    if (!changed) {
      return new View(
          seen, highestToken, othersSeen, holdingOff, holdOffUntil, first, request, requestSeenAt);
    }
    String wanted = read instanceof LockRead.Found found ? found.record().preferredHolder() : null;
    String nextRequest = request;
    long nextRequestSeenAt = requestSeenAt;
    if (wanted == null) {
      nextRequest = null;
    } else if (!wanted.equals(request)) {
      nextRequest = wanted;
      nextRequestSeenAt = now;
      effects.add(
          new Effect.Log(
              Effect.Level.INFO,
              "the lock asks that "
                  + wanted
                  + " lead next ("
                  + LeaderRecord.PREFERRED_HOLDER
                  + "); "
                  + (wanted.equals(identity)
                      ? "this candidate takes it once it is released"
                      : "other candidates hold back for up to "
                          + Duration.ofNanos(requestTimeout))));
    }
    noteCoordination(previous, seen, effects);
    long others = othersSeen;
    if (seen.lockSeen()
        && !(read instanceof LockRead.Found own && own.record().isHeldBy(identity))) {
      others++;
    }
    long token = highestToken;
    if (read instanceof LockRead.Found found) {
      token = Math.max(token, found.record().leaderTransitions());
      warnAboutDuration(found.record(), identity, leaseDuration, effects);
      if (seen.guarded()) {
        effects.add(
            new Effect.Log(
                Effect.Level.INFO,
                "the lock was released, but the release does not show that the holder of the term"
                    + " it ends wrote it ("
                    + (previous == null || previous.record() == null
                        ? "no acquisition time apart from its release time"
                        : "not the token and acquisition time of the term seen, holder "
                            + previous.describeHolder())
                    + "): it may have been written over a term that still runs, as client-go's"
                    + " leader does when it releases after its renewals failed; treating the lock"
                    + " as held for leaseDuration "
                    + leaseDuration));
      }
    } else if (read instanceof LockRead.Malformed bad) {
      effects.add(
          new Effect.Log(
              Effect.Level.WARN,
              "the lock holds a record that cannot be read ("
                  + bad.problem()
                  + "); treating it as held by an unknown holder until it has not changed for "
                  + leaseDuration));
    } else if (seen.guarded()) {
      effects.add(
          new Effect.Log(
              Effect.Level.INFO,
              "the lock was deleted; recreating it only after leaseDuration "
                  + leaseDuration
                  + ", since a holder this candidate did not see may still be leading"));
    }
    // Before the first look no leader is known: a first look that finds none is no news.
    String before = previous == null ? "" : previous.holder();
    if (!Objects.equals(before, seen.holder())) {
      effects.add(new Effect.LeaderObserved(seen.holder()));
    }
    return new View(
        seen, token, others, holdingOff, holdOffUntil, first, nextRequest, nextRequestSeenAt);
  }

  /**
   * One line when the lock comes under coordinated leader election or leaves it, not one per read:
   * while it is under it, this candidate follows and never writes it.
   */
  private static void noteCoordination(
      @Nullable Observation previous, Observation seen, List<Effect> effects) {
    LeaderRecord before = previous == null ? null : previous.record();
    String was = before == null ? null : before.strategy();
    LeaderRecord after = seen.record();
    String is = after == null ? null : after.strategy();
    if (is != null && !is.equals(was)) {
      effects.add(
          new Effect.Log(
              Effect.Level.INFO,
              "the lock is under Kubernetes coordinated leader election (strategy "
                  + is
                  + "): a controller chooses its holder, so this candidate follows it and never"
                  + " writes it, even once it looks expired"));
    } else if (is == null && was != null && after != null) {
      effects.add(
          new Effect.Log(
              Effect.Level.INFO,
              "the lock is no longer under coordinated leader election; candidates contend for it"
                  + " again, from a full leaseDuration after this change"));
    }
  }

  private static void warnAboutDuration(
      LeaderRecord record, String identity, Duration leaseDuration, List<Effect> effects) {
    record
        .durationProblem()
        .ifPresent(
            problem ->
                effects.add(
                    new Effect.Log(
                        Effect.Level.WARN,
                        problem
                            + "; judging its expiry with this candidate's leaseDuration "
                            + leaseDuration
                            + ". Fix the writer of this record.")));
    Duration written = record.leaseDuration();
    if (written != null
        && written.compareTo(leaseDuration.multipliedBy(10)) > 0
        && !record.isHeldBy(identity)) {
      effects.add(
          new Effect.Log(
              Effect.Level.WARN,
              "holder "
                  + record.holderIdentity()
                  + " wrote a lease duration of "
                  + record.leaseDuration()
                  + "; it is honoured, so no other candidate can lead until it expires"));
    }
  }
}
