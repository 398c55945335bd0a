package dev.elector.testenv.net;

/**
 * The faults a {@link FaultProxy} applies at one moment; replaced whole, never changed in place.
 *
 * @param delayNanos fixed delay added to every chunk
 * @param jitterNanos upper bound of the uniform extra delay per chunk
 * @param bytesPerSecond per-direction rate limit of each connection; 0 for none
 * @param blackhole forward nothing and connect nothing until cleared
 * @param resetNew reset every newly accepted connection at once
 * @param refuse stop listening, so new connections are refused by the kernel
 * @param resetProbability chance that a chunk resets its connection instead of being forwarded
 */
record Faults(
    long delayNanos,
    long jitterNanos,
    long bytesPerSecond,
    boolean blackhole,
    boolean resetNew,
    boolean refuse,
    double resetProbability) {

  static final Faults NONE = new Faults(0, 0, 0, false, false, false, 0);

  Faults withLatency(long delay, long jitter) {
    return new Faults(delay, jitter, bytesPerSecond, blackhole, resetNew, refuse, resetProbability);
  }

  Faults withTrickle(long rate) {
    return new Faults(delayNanos, jitterNanos, rate, blackhole, resetNew, refuse, resetProbability);
  }

  Faults withBlackhole() {
    return new Faults(
        delayNanos, jitterNanos, bytesPerSecond, true, resetNew, refuse, resetProbability);
  }

  Faults withResetNew() {
    return new Faults(
        delayNanos, jitterNanos, bytesPerSecond, blackhole, true, refuse, resetProbability);
  }

  Faults withRefuse() {
    return new Faults(
        delayNanos, jitterNanos, bytesPerSecond, blackhole, resetNew, true, resetProbability);
  }

  Faults withResetProbability(double p) {
    return new Faults(delayNanos, jitterNanos, bytesPerSecond, blackhole, resetNew, refuse, p);
  }
}
