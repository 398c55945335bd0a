package dev.elector.testkit;

import dev.elector.time.MonotonicClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The monotonic clock of a {@link VirtualTime}: it moves only when told to. Wall clocks derived
 * from it with {@link #newWallClock()} follow it and can each be jumped on their own, as a
 * candidate's wall clock might be by NTP or an operator. Thread-safe.
 */
final class FakeClock implements MonotonicClock {
  private final AtomicLong nanos = new AtomicLong();

  @Override
  public long nanos() {
    return nanos.get();
  }

  /** Time since the clock started. */
  Duration elapsed() {
    return Duration.ofNanos(nanos.get());
  }

  /** Moves the clock forward. */
  void advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("a monotonic clock cannot go back: " + duration);
    }
    nanos.addAndGet(duration.toNanos());
  }

  /** Moves the clock to {@code target} nanos if that is later than now. */
  void advanceTo(long target) {
    nanos.accumulateAndGet(target, Math::max);
  }

  /** Returns a new wall clock that follows this clock from {@link VirtualTime#EPOCH}. */
  FakeWallClock newWallClock() {
    return new FakeWallClock(this, ZoneOffset.UTC, new AtomicLong());
  }

  /** A wall clock that follows a {@link FakeClock} plus its own adjustable offset. */
  static final class FakeWallClock extends Clock {
    private final FakeClock base;
    private final ZoneId zone;
    private final AtomicLong offsetNanos;

    FakeWallClock(FakeClock base, ZoneId zone, AtomicLong offsetNanos) {
      this.base = base;
      this.zone = zone;
      this.offsetNanos = offsetNanos;
    }

    /** Whether this wall clock follows {@code clock}. */
    boolean follows(FakeClock clock) {
      return base == clock;
    }

    /** Jumps this wall clock (forward or back) without moving monotonic time. */
    void jump(Duration by) {
      offsetNanos.addAndGet(by.toNanos());
    }

    @Override
    public Instant instant() {
      return VirtualTime.EPOCH.plusNanos(base.nanos() + offsetNanos.get());
    }

    @Override
    public ZoneId getZone() {
      return zone;
    }

    @Override
    public Clock withZone(ZoneId newZone) {
      return new FakeWallClock(base, newZone, offsetNanos);
    }
  }
}
