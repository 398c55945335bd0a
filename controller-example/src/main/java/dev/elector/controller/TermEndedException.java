package dev.elector.controller;

/** Thrown instead of a write when the leadership term that the work belongs to has ended. */
final class TermEndedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  TermEndedException(String what) {
    super("not written, the leadership term has ended: " + what, null, false, false);
  }
}
