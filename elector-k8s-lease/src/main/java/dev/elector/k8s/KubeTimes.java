package dev.elector.k8s;

import java.time.Instant;

/**
 * Timestamps as Kubernetes writes them: RFC 3339 in UTC. Parsing is lenient and never throws, so a
 * record written by another tool in an odd format still reads (with a null time at worst). The same
 * rules as every Elector backend (they live in elector-kube-base).
 */
public final class KubeTimes {
  private KubeTimes() {}

  /**
   * Parses RFC 3339 with or without a fraction, with {@code Z} or an offset, also with a space
   * instead of {@code T} or without a zone (taken as UTC). Returns null for null, blank or
   * unparseable text.
   */
  public static Instant parse(String text) {
    return dev.elector.kube.internal.KubeTimes.parse(text);
  }

  /** Formats as a Kubernetes MicroTime: UTC, six fraction digits. Null stays null. */
  public static String formatMicros(Instant time) {
    return dev.elector.kube.internal.KubeTimes.formatMicros(time);
  }
}
