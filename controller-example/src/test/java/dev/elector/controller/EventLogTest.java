package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.elector.examples.ProcessEvent;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventLogTest {
  private final List<String> lines = new ArrayList<>();
  private final EventLog log =
      new EventLog(
          lines::add,
          Clock.fixed(Instant.ofEpochMilli(1700000000123L), ZoneOffset.UTC),
          "replica-a_x1");

  @Test
  void aLineIsAJsonEventWithTimeKindIdentityThenKeyValues() {
    log.emit("ALLOCATED", "vmconfig", "ns/vm-1", "mac", "52:54:00:00:00:01", "ip", "10.0.0.10");
    assertEquals(
        List.of(
            "{\"event\":\"allocated\",\"time\":1700000000123,\"identity\":\"replica-a_x1\","
                + "\"vmconfig\":\"ns/vm-1\",\"mac\":\"52:54:00:00:00:01\",\"ip\":\"10.0.0.10\"}"),
        lines);
  }

  @Test
  void anyValueReadsBackAsWrittenAndNullValuesAreLeftOut() {
    log.emit("NIC", "message", "the pool is \"full\"\r\nreally é", "ip", null, "n", 3);
    ProcessEvent read = ProcessEvent.parse(lines.get(0)).orElseThrow();
    assertEquals("nic", read.kind());
    assertEquals(1700000000123L, read.epochMillis());
    assertEquals(
        Map.of("identity", "replica-a_x1", "message", "the pool is \"full\"\r\nreally é", "n", "3"),
        read.fields());
  }

  @Test
  void keysAndValuesMustPair() {
    assertThrows(IllegalArgumentException.class, () -> log.emit("X", "key"));
  }
}
