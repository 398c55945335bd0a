package dev.elector.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProcessEventTest {
  @Test
  void aLineIsOneJsonObjectKindTimeMonoThenTheFieldsInOrder() {
    ProcessEvent event =
        ProcessEvent.of(
            "allocated", 1700000000123L, 42L, "vmconfig", "ns/vm-1", "ip", "10.0.0.10", "n", 3);

    assertEquals(
        "{\"event\":\"allocated\",\"time\":1700000000123,\"mono\":42,"
            + "\"vmconfig\":\"ns/vm-1\",\"ip\":\"10.0.0.10\",\"n\":\"3\"}",
        event.toJson());
    assertEquals(Optional.of(event), ProcessEvent.parse(event.toJson()));
  }

  @Test
  void withoutAMonotonicTimeTheMemberIsLeftOutAndNullValuesToo() {
    ProcessEvent event =
        ProcessEvent.of("leading", 5, ProcessEvent.NO_MONO, "token", 7, "reason", null);

    assertEquals("{\"event\":\"leading\",\"time\":5,\"token\":\"7\"}", event.toJson());
    ProcessEvent read = ProcessEvent.parse(event.toJson()).orElseThrow();
    assertFalse(read.hasMono());
    assertEquals(Map.of("token", "7"), read.fields());
    assertEquals("", read.get("reason"));
  }

  @Test
  void everyCharacterRoundTrips() {
    List<String> values =
        List.of(
            "carriage\rreturn",
            "line\nbreak and \r\n both",
            "\\r is a backslash and an r",
            "quotes \"inside\" and a \\ backslash",
            "tab\tand\u0000nul\u001f",
            "unicode: é ü 中文 and 😀, and U+2028 \u2028",
            "ends with a backslash \\",
            "",
            "{\"event\":\"nested\",\"time\":1}");
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 0; i < values.size(); i++) {
      fields.put("v" + i, values.get(i));
    }
    fields.put("key with \"quotes\" and é", "x");
    ProcessEvent event = new ProcessEvent("reply", -1, Long.MAX_VALUE, fields);

    String line = event.toJson();

    assertTrue(line.chars().allMatch(c -> c >= 0x20 && c <= 0x7e), "plain ASCII: " + line);
    assertFalse(line.contains("\n") || line.contains("\r"), line);
    assertEquals(Optional.of(event), ProcessEvent.parse(line));
  }

  @Test
  void anEscapedCarriageReturnIsReadAsACarriageReturn() {
    ProcessEvent read =
        ProcessEvent.parse("{\"event\":\"x\",\"time\":1,\"m\":\"a\\rb\\u00e9\\\"\"}").orElseThrow();

    assertEquals("a\rbé\"", read.get("m"));
  }

  @Test
  void otherLinesAreNotEvents() {
    for (String line :
        List.of(
            "",
            "12:00:01 INFO leading",
            "EVENT 1700000000123 LEADING identity=a",
            "{\"level\":\"info\"}",
            "{\"event\":\"x\"}",
            "{\"event\":\"x\",\"time\":1",
            "{\"event\":\"x\",\"time\":1} trailing",
            "{\"event\":\"x\",\"time\":\"1\"}",
            "{\"event\":\"x\",\"time\":1,\"a\":\"\\q\"}",
            "{\"event\":\"x\",\"time\":1,\"a\":\"\\u12\"}",
            "{\"event\":\"x\",\"time\":1,\"a\":\"1\",\"a\":\"2\"}",
            "{\"event\":\"x\",\"time\":1,\"a\":2}")) {
      assertEquals(Optional.empty(), ProcessEvent.parse(line), line);
    }
  }

  @Test
  void surroundingWhitespaceIsIgnored() {
    assertEquals("x", ProcessEvent.parse("  {\"event\":\"x\",\"time\":1}\r").orElseThrow().kind());
  }

  @Test
  void badArgumentsAreRefusedWithTheFix() {
    IllegalArgumentException reserved =
        assertThrows(IllegalArgumentException.class, () -> ProcessEvent.of("x", 1, 1, "time", 2));
    assertTrue(reserved.getMessage().contains("reserved"), reserved.getMessage());
    IllegalArgumentException odd =
        assertThrows(IllegalArgumentException.class, () -> ProcessEvent.of("x", 1, 1, "key"));
    assertTrue(odd.getMessage().contains("alternate"), odd.getMessage());
  }
}
