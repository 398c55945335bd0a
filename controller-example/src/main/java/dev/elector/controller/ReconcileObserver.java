package dev.elector.controller;

import dev.elector.Term;

/**
 * Told of every reconcile a term runs and every pool it writes; for tests that check who wrote
 * what, and when.
 */
interface ReconcileObserver {
  /** Observes nothing. */
  ReconcileObserver NONE = (kind, key, shard, term, startNanos, endNanos) -> {};

  /**
   * The term of {@code shard} wrote the pool {@code key} (its object or its status), answered at
   * {@code nanos} ({@link System#nanoTime()}).
   */
  default void poolWritten(String key, int shard, Term term, long nanos) {}

  /**
   * A reconcile of {@code key} ran in {@code term} of {@code shard} (0 for a single leader) from
   * {@code startNanos} to {@code endNanos} ({@link System#nanoTime()}).
   */
  void reconciled(String kind, String key, int shard, Term term, long startNanos, long endNanos);
}
