package dev.elector.internal.candidate;

/** What a lock call is for; it decides what its answer means. */
public enum Purpose {
  /** A follower's read. */
  LOOK,
  /** The first look, a create without a read. */
  FIRST_CREATE,
  /** A create of a lock seen absent. */
  CREATE,
  /** A conditional update taking the lock. */
  ACQUIRE,
  /** A leader's renewal. */
  RENEW,
  /**
   * A renewal over a version someone else wrote with the record still this term's: one more
   * conflict ends the term.
   */
  RENEW_OVER_EDIT,
  /** A leader's read after a conflicting renewal: is the record still its own? */
  VERIFY,
  /** A release after stepping down; the candidate goes on following. */
  RELEASE_AFTER_STEP_DOWN,
  /** A release on close. */
  RELEASE,
  /** A read after a conflicting release on close. */
  READ_FOR_RELEASE
}
