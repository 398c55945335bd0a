package dev.elector;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * What a candidate knows of the lock: the last observation (judged by {@link TakeoverRule}), the
 * highest fencing token seen, and the leader the lock names. A change of content is logged when it
 * needs attention, and a change of holder goes to the listener and to {@code onNewLeader}. Guarded
 * by the election's monitor, except {@link #leader()}.
 */
final class LockView {
  private final TakeoverRule rule;
  private final String identity;
  private final String subject;
  private final Duration leaseDuration;
  private final Dispatcher dispatcher;
  private final LeaderCallbacks callbacks;
  private final Logger log;
  private @Nullable Observation current;
  private long highestToken = -1;
  private long othersSeen;
  private boolean holdingOff;
  private long holdOffUntil;
  private long firstLookAt;
  private volatile @Nullable String leader;

  /** The identity the lock asks to lead next, if any, and when this candidate first saw it. */
  private @Nullable String request;

  private long requestSeenAt;

  LockView(
      TakeoverRule rule,
      String identity,
      String subject,
      Duration leaseDuration,
      Dispatcher dispatcher,
      LeaderCallbacks callbacks,
      Logger log) {
    this.rule = rule;
    this.identity = identity;
    this.subject = subject;
    this.leaseDuration = leaseDuration;
    this.dispatcher = dispatcher;
    this.callbacks = callbacks;
    this.log = log;
  }

  /** The last observation, or null before the first. */
  @Nullable Observation current() {
    return current;
  }

  long highestToken() {
    return highestToken;
  }

  /**
   * How many times the view changed to show that someone else's lock exists or existed (a record
   * not naming this candidate, an unreadable one, a deletion): a different count after a create
   * shows that someone else created the lock while it was on its way.
   */
  long othersSeen() {
    return othersSeen;
  }

  /**
   * A create was refused at {@code now}: the lock exists. Unless something newer has been seen
   * since the create was decided, the view becomes a lock held by a holder not read yet.
   */
  void createRefused(long now) {
    if (current == null || current.absent()) {
      current = rule.refused(now);
      othersSeen++;
    }
  }

  /** No term may start before {@code until} (monotonic), whatever the lock shows. */
  void holdOff(long until) {
    holdingOff = true;
    holdOffUntil = until;
  }

  /** Whether a hold-off (after a step-down, or asked for) keeps this candidate back at now. */
  boolean holdingOff(long now) {
    return holdingOff && now - holdOffUntil < 0;
  }

  /** Whether {@code seen} is content that changed after this candidate's first look. */
  boolean changedSinceFirstLook(Observation seen) {
    return seen.seenAt() - firstLookAt > 0;
  }

  /** Whether the holder named in {@code seen} no longer holds the lock at {@code now}. */
  boolean expired(Observation seen, long now) {
    return now - rule.expiresAt(seen) >= 0;
  }

  /** Whether this candidate may write the lock as {@code seen} at {@code now}. */
  boolean mayTake(Observation seen, long now) {
    return rule.mayTake(seen, now)
        && (!holdingOff || now - holdOffUntil >= 0)
        && !heldBackByRequest(now);
  }

  /**
   * Whether the lock asks leadership to move to another identity, a request this candidate first
   * saw less than {@link #requestTimeout()} ago. A request for an identity that never takes the
   * lock holds nobody back for longer than that.
   */
  boolean heldBackByRequest(long now) {
    return request != null && !request.equals(identity) && now - requestSeenAt < requestTimeout();
  }

  /** The identity the lock asks to lead next, as last seen, or null. */
  @Nullable String request() {
    return request;
  }

  /** How long a request to move leadership holds the other candidates back: two leases. */
  long requestTimeout() {
    return 2 * rule.leaseNanos();
  }

  private void noteRequest(@Nullable String wanted, long now) {
    if (wanted == null) {
      request = null;
    } else if (!wanted.equals(request)) {
      request = wanted;
      requestSeenAt = now;
      log.info(
          "{}: the lock asks that {} lead next ({}); {}",
          subject,
          wanted,
          LeaderRecord.PREFERRED_HOLDER,
          wanted.equals(identity)
              ? "this candidate takes it once it is released"
              : "other candidates hold back for up to " + Duration.ofNanos(requestTimeout()));
    }
  }

  /**
   * When this candidate may take the lock as {@code seen}: at once if it is free or its own, else
   * when it stops protecting its holder; never before the hold-off ends.
   */
  long mayTakeFrom(Observation seen) {
    long from = rule.mayTake(seen, seen.seenAt()) ? seen.seenAt() : rule.expiresAt(seen);
    if (request != null && !request.equals(identity)) {
      long requestEnds = requestSeenAt + requestTimeout();
      from = requestEnds - from > 0 ? requestEnds : from;
    }
    return holdingOff && holdOffUntil - from > 0 ? holdOffUntil : from;
  }

  void noteToken(long token) {
    highestToken = Math.max(highestToken, token);
  }

  /** The holder the lock named when last seen; readable without the monitor. */
  Optional<String> leader() {
    return Optional.ofNullable(leader);
  }

  /**
   * Takes in what a read, a watch event or this candidate's own write showed at {@code now}, and
   * returns the observation, which is {@link #current()} from now on.
   */
  Observation see(LockRead read, long now) {
    Observation previous = current;
    if (previous == null) {
      firstLookAt = now;
    }
    boolean changed = previous == null || !previous.sameContent(read);
    Observation seen = rule.observe(previous, read, now);
    current = seen;
    if (!changed) {
      return seen;
    }
    noteRequest(
        read instanceof LockRead.Found found ? found.record().preferredHolder() : null, now);
    if (seen.lockSeen()
        && !(read instanceof LockRead.Found own && own.record().isHeldBy(identity))) {
      othersSeen++;
    }
    if (read instanceof LockRead.Found found) {
      noteToken(found.record().leaderTransitions());
      warnAboutDuration(found.record());
    } else if (read instanceof LockRead.Malformed bad) {
      log.warn(
          "{}: the lock holds a record that cannot be read ({}); treating it as held by an"
              + " unknown holder until it has not changed for {}",
          subject,
          bad.problem(),
          leaseDuration);
    } else if (seen.guarded()) {
      log.info(
          "{}: the lock was deleted; recreating it only after leaseDuration {}, since a"
              + " holder this candidate did not see may still be leading",
          subject,
          leaseDuration);
    }
    // Before the first look no leader is known: a first look that finds none is no news.
    String before = previous == null ? "" : previous.holder();
    String holder = seen.holder();
    if (!Objects.equals(before, holder)) {
      leader = holder.isEmpty() ? null : holder;
      dispatcher.listener(l -> l.onLeaderObserved(holder));
      if (!holder.isEmpty()) {
        dispatcher.callback("onNewLeader", () -> callbacks.onNewLeader(holder));
      }
    }
    return seen;
  }

  private void warnAboutDuration(LeaderRecord record) {
    record
        .durationProblem()
        .ifPresent(
            problem ->
                log.warn(
                    "{}: {}; judging its expiry with this candidate's leaseDuration {}. Fix the"
                        + " writer of this record.",
                    subject,
                    problem,
                    leaseDuration));
    Duration written = record.leaseDuration();
    if (written != null
        && written.compareTo(leaseDuration.multipliedBy(10)) > 0
        && !record.isHeldBy(identity)) {
      log.warn(
          "{}: holder {} wrote a lease duration of {}; it is honoured, so no other candidate"
              + " can lead until it expires",
          subject,
          record.holderIdentity(),
          record.leaseDuration());
    }
  }
}
