package dev.elector.kube.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class KubeTimesTest {
  private static final Instant NOON = Instant.parse("2026-12-02T12:00:00Z");

  @Test
  void readsRfc3339WithAndWithoutFractionAndOffset() {
    assertEquals(NOON, KubeTimes.parse("2026-12-02T12:00:00Z"));
    assertEquals(NOON.plusMillis(123), KubeTimes.parse("2026-12-02T12:00:00.123Z"));
    assertEquals(NOON.plusNanos(123456000), KubeTimes.parse("2026-12-02T12:00:00.123456Z"));
    assertEquals(NOON, KubeTimes.parse("2026-12-02T14:00:00+02:00"));
    assertEquals(NOON, KubeTimes.parse("2026-12-02t12:00:00z"));
    assertEquals(NOON, KubeTimes.parse("2026-12-02 12:00:00Z"));
    assertEquals(NOON, KubeTimes.parse("2026-12-02T12:00:00"), "no zone is taken as UTC");
  }

  @Test
  void unreadableTimesAreNullNotErrors() {
    assertNull(KubeTimes.parse(null));
    assertNull(KubeTimes.parse(" "));
    assertNull(KubeTimes.parse("yesterday"));
    assertNull(KubeTimes.parse("2026-13-45T99:00:00Z"));
  }

  @Test
  void writesMicroTimeInUtc() {
    assertEquals("2026-12-02T12:00:00.123456Z", KubeTimes.formatMicros(NOON.plusNanos(123456789)));
    assertNull(KubeTimes.formatMicros(null));
  }
}
