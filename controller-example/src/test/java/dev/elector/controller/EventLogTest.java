package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventLogTest {
  private final List<String> lines = new ArrayList<>();
  private final EventLog log =
      new EventLog(
          lines::add,
          Clock.fixed(Instant.ofEpochMilli(1700000000123L), ZoneOffset.UTC),
          "replica-a_x1");

  @Test
  void aLineIsEventTimeKindIdentityThenKeyValues() {
    log.emit("ALLOCATED", "vmconfig", "ns/vm-1", "mac", "52:54:00:00:00:01", "ip", "10.0.0.10");
    assertEquals(
        List.of(
            "EVENT 1700000000123 ALLOCATED identity=replica-a_x1 vmconfig=ns/vm-1"
                + " mac=52:54:00:00:00:01 ip=10.0.0.10"),
        lines);
  }

  @Test
  void valuesWithSpacesOrQuotesAreQuotedAndEscaped() {
    log.emit("NIC", "message", "the pool is \"full\"\nreally", "ip", null, "n", 3);
    assertEquals(
        "EVENT 1700000000123 NIC identity=replica-a_x1"
            + " message=\"the pool is \\\"full\\\"\\nreally\" n=3",
        lines.get(0));
  }

  @Test
  void keysAndValuesMustPair() {
    assertThrows(IllegalArgumentException.class, () -> log.emit("X", "key"));
  }
}
