package dev.elector.bench;

import java.time.Duration;

/** Lease duration, renew deadline and retry period, the same for every implementation. */
public record Timings(String name, Duration lease, Duration renew, Duration retry) {
  public static final Timings DEFAULT =
      new Timings(
          "default 15s/10s/2s",
          Duration.ofSeconds(15),
          Duration.ofSeconds(10),
          Duration.ofSeconds(2));
  public static final Timings SCALED =
      new Timings(
          "scaled 3s/2s/0.5s",
          Duration.ofSeconds(3),
          Duration.ofSeconds(2),
          Duration.ofMillis(500));

  /**
   * Ten times client-go's defaults, for the 10,000-elector point: 10,000 locks renewing every 20 s
   * ask the server for 500 renewals/s, what 1,000 locks ask at the defaults.
   */
  public static final Timings LONG =
      new Timings(
          "long 150s/100s/20s",
          Duration.ofSeconds(150),
          Duration.ofSeconds(100),
          Duration.ofSeconds(20));

  String shortName() {
    return name.substring(0, name.indexOf(' '));
  }

  String values() {
    return name.substring(name.indexOf(' ') + 1);
  }
}
