package dev.elector.kube.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A watch response is read one JSON object a line, the same for every client. */
class NextEventTest {

  private static Deque<String> lines(String... lines) {
    return new ArrayDeque<>(Arrays.asList(lines));
  }

  /** A parser that knows two lines, as a client's JSON parser would read them. */
  private static Map<String, Object> parse(String line) {
    return switch (line) {
      case "{\"type\":\"ADDED\"}" -> Map.of("type", "ADDED");
      case "{\"type\":\"DELETED\"}" -> Map.of("type", "DELETED");
      default -> null;
    };
  }

  @Test
  void blankLinesAreSkippedAnUnreadableLineIsEmptyAndTheEndIsNull() throws Exception {
    Deque<String> stream =
        lines("", "{\"type\":\"ADDED\"}", "  ", "garbage", "{\"type\":\"DELETED\"}");

    assertEquals(
        Map.of("type", "ADDED"), WatchStream.nextEvent(stream::poll, NextEventTest::parse));
    assertEquals(Map.of(), WatchStream.nextEvent(stream::poll, NextEventTest::parse));
    assertEquals(
        Map.of("type", "DELETED"), WatchStream.nextEvent(stream::poll, NextEventTest::parse));
    assertNull(WatchStream.nextEvent(stream::poll, NextEventTest::parse));
  }

  @Test
  void onlyBlankLinesLeftIsTheEnd() throws Exception {
    Deque<String> stream = lines("", " ");

    assertNull(WatchStream.nextEvent(stream::poll, NextEventTest::parse));
  }
}
