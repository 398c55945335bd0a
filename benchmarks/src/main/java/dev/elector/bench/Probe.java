package dev.elector.bench;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the benchmark learns from inside one candidate's lock: when its writes succeeded, and a kill
 * switch. Once killed, every lock call fails as if the process were gone; this is how a leader is
 * made to stop without releasing, identically for every implementation. Thread-safe.
 */
public final class Probe {
  /** What a traced lock did, and when. */
  enum MarkKind {
    READ,
    READ_DONE,
    WRITE,
    WRITE_DONE,
    WRITE_FAILED,
    WATCH_RELEASED,
    WATCH_OTHER
  }

  /** One traced instant (System.nanoTime()). */
  record Mark(MarkKind kind, long nanos) {}

  private volatile boolean tracing;
  private final List<Mark> marks = new CopyOnWriteArrayList<>();
  private volatile boolean dead;
  private final AtomicLong lastWriteNanos = new AtomicLong();
  private final AtomicLong writes = new AtomicLong();
  private final AtomicLong calls = new AtomicLong();
  private volatile long gapsFromNanos = Long.MAX_VALUE;
  private final AtomicLong maxGapNanos = new AtomicLong();

  /** Keeps a transcript of the lock's calls and watch events from now on (for breakdowns). */
  void trace() {
    tracing = true;
  }

  /** Notes a traced instant, if tracing. */
  void mark(MarkKind kind) {
    if (tracing) {
      marks.add(new Mark(kind, System.nanoTime()));
    }
  }

  /** The transcript so far. */
  List<Mark> marks() {
    return List.copyOf(marks);
  }

  /** The first mark of {@code kind} at or after {@code fromNanos}, or -1. */
  long first(MarkKind kind, long fromNanos) {
    for (Mark m : marks) {
      if (m.kind() == kind && m.nanos() - fromNanos >= 0) {
        return m.nanos();
      }
    }
    return -1;
  }

  /** The last mark of {@code kind} in [fromNanos, toNanos], or -1. */
  long last(MarkKind kind, long fromNanos, long toNanos) {
    long found = -1;
    for (Mark m : marks) {
      if (m.kind() == kind && m.nanos() - fromNanos >= 0 && toNanos - m.nanos() >= 0) {
        found = m.nanos();
      }
    }
    return found;
  }

  /** Whether the kill switch was thrown. */
  public boolean dead() {
    return dead;
  }

  /** Throws the kill switch: from now on every call fails. */
  public void kill() {
    dead = true;
  }

  /** A call is about to be made; returns false when it must fail because the candidate is dead. */
  boolean call() {
    calls.incrementAndGet();
    return !dead;
  }

  /** A create or update succeeded now. */
  void wrote() {
    wroteAt(System.nanoTime());
  }

  /** A create or update succeeded at {@code now} (System.nanoTime()'s clock). */
  void wroteAt(long now) {
    long previous = lastWriteNanos.getAndSet(now);
    writes.incrementAndGet();
    if (previous != 0 && previous - gapsFromNanos >= 0) {
      maxGapNanos.accumulateAndGet(now - previous, Math::max);
    }
  }

  /** Starts tracking the largest gap between successful writes from now on. */
  void trackGaps() {
    maxGapNanos.set(0);
    long last = lastWriteNanos.get();
    gapsFromNanos = last != 0 ? last : System.nanoTime();
  }

  /** Largest gap between successful writes since {@link #trackGaps()}, including the open one. */
  long maxGapNanos() {
    long open = System.nanoTime() - lastWriteNanos.get();
    return Math.max(maxGapNanos.get(), open);
  }

  /** System.nanoTime() of the last successful write, 0 if none. */
  public long lastWriteNanos() {
    return lastWriteNanos.get();
  }

  long writes() {
    return writes.get();
  }

  long calls() {
    return calls.get();
  }
}
