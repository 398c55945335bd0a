package dev.elector.internal.candidate;

/**
 * The hard bound on lock calls, as a value: a token bucket of {@code burst} calls that earns one
 * back every {@code interval} nanoseconds, kept as the instant the next call would be due if calls
 * came evenly (the generic cell rate algorithm). In any interval of length T a candidate makes at
 * most {@code burst + T / interval} calls, whatever state it is in and whatever fails.
 */
public record Budget(int burst, long interval, boolean started, long due) {

  /** A full budget. */
  public static Budget of(int burst, long interval) {
    if (burst < 1 || interval <= 0) {
      throw new IllegalArgumentException(
          "a call budget needs a burst of at least 1 and a positive interval, not "
              + burst
              + " and "
              + interval);
    }
    return new Budget(burst, interval, false, 0);
  }

  /** Nanoseconds from {@code now} until a call may be made; 0 if it may be made now. */
  public long waitAt(long now) {
    if (!started) {
      return 0;
    }
    long allowedAt = due - (burst - 1L) * interval;
    return now - allowedAt < 0 ? allowedAt - now : 0;
  }

  /** The budget after one call at {@code now}. */
  public Budget spend(long now) {
    long from = started ? due : now;
    return new Budget(burst, interval, true, Math.max(from - now, 0) + now + interval);
  }
}
