package dev.elector;

/** The kinds of call an elector makes to its lock. */
public enum LockCall {
  READ,
  CREATE,
  UPDATE
}
