package dev.elector.dhcp.agent;

import dev.elector.examples.ProcessEvent;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The events ({@link ProcessEvent} lines) of one agent, read from a growing text source (a log file
 * or a buffer).
 */
final class AgentEventLog {

  /** One event line. */
  record Event(
      String agent, long epochMillis, long monoNanos, String kind, Map<String, String> fields) {
    String get(String key) {
      return fields.get(key);
    }

    boolean is(String kind, String... keyValues) {
      if (!this.kind.equals(kind)) {
        return false;
      }
      for (int i = 0; i + 1 < keyValues.length; i += 2) {
        if (!keyValues[i + 1].equals(fields.get(keyValues[i]))) {
          return false;
        }
      }
      return true;
    }
  }

  private final String agent;
  private final Supplier<String> text;

  private AgentEventLog(String agent, Supplier<String> text) {
    this.agent = agent;
    this.text = text;
  }

  /** Events printed into {@code file} (for example a process's redirected output). */
  static AgentEventLog ofFile(String agent, Path file) {
    return new AgentEventLog(
        agent,
        () -> {
          try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
          } catch (IOException e) {
            return "";
          }
        });
  }

  /** Events printed into the returned log's {@link #sink()}. */
  static InMemory inMemory(String agent) {
    return new InMemory(agent);
  }

  /** An event log filled through an output stream, for in-process agents. */
  static final class InMemory {
    private final StringBuffer buffer = new StringBuffer();
    private final AgentEventLog log;

    private InMemory(String agent) {
      this.log = new AgentEventLog(agent, buffer::toString);
    }

    OutputStream sink() {
      return new OutputStream() {
        private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
          line.write(b);
          if (b == '\n') {
            buffer.append(line.toString(StandardCharsets.UTF_8));
            line.reset();
          }
        }
      };
    }

    AgentEventLog log() {
      return log;
    }
  }

  String agent() {
    return agent;
  }

  /** Every event so far, in order. */
  List<Event> events() {
    List<Event> events = new ArrayList<>();
    for (String line : text.get().split("\n")) {
      ProcessEvent.parse(line)
          .ifPresent(
              e ->
                  events.add(
                      new Event(agent, e.epochMillis(), e.monoNanos(), e.kind(), e.fields())));
    }
    return events;
  }

  /** The first event matching, if any yet. */
  Optional<Event> first(Predicate<Event> match) {
    return events().stream().filter(match).findFirst();
  }

  /** Waits, on the real clock, for an event matching; fails with the log so far. */
  Event await(Predicate<Event> match, Duration limit, String what) {
    try {
      return Awaitility.await(agent + ": event '" + what + "'")
          .atMost(limit)
          .pollInterval(Duration.ofMillis(20))
          .until(() -> first(match), Optional::isPresent)
          .orElseThrow();
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          agent + ": no event '" + what + "' within " + limit + "; output so far:\n" + text.get(),
          e);
    }
  }

  /** The whole text, for failure messages. */
  String text() {
    return text.get();
  }
}
