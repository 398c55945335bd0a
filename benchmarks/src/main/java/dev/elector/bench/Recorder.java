package dev.elector.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/** Start and stop callbacks of the candidates of one election, stamped with System.nanoTime(). */
public class Recorder {
  /** One callback. */
  public record Event(String identity, boolean started, long nanos) {}

  private final List<Event> events = new CopyOnWriteArrayList<>();
  private final Map<String, Boolean> leading = new ConcurrentHashMap<>();

  public void started(String identity) {
    started(identity, System.nanoTime());
  }

  public void stopped(String identity) {
    stopped(identity, System.nanoTime());
  }

  /** A start callback that ran at {@code nanos} (System.nanoTime()'s clock), told later. */
  public void started(String identity, long nanos) {
    events.add(new Event(identity, true, nanos));
    leading.put(identity, true);
  }

  /** A stop callback that ran at {@code nanos}, told later. */
  public void stopped(String identity, long nanos) {
    events.add(new Event(identity, false, nanos));
    leading.put(identity, false);
  }

  List<Event> events() {
    return List.copyOf(events);
  }

  /** Who leads now according to the callbacks. */
  List<String> leaders() {
    List<String> result = new ArrayList<>();
    leading.forEach(
        (id, on) -> {
          if (on) {
            result.add(id);
          }
        });
    return result;
  }

  /** The first start by anyone but {@code except} at or after {@code fromNanos}. */
  Optional<Event> firstStartAfter(long fromNanos, String except) {
    for (Event e : events) {
      if (e.started() && !e.identity().equals(except) && e.nanos() - fromNanos >= 0) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  /** Waits for such a start until {@code deadlineNanos}. */
  Optional<Event> awaitStartAfter(long fromNanos, String except, long deadlineNanos) {
    while (true) {
      Optional<Event> found = firstStartAfter(fromNanos, except);
      if (found.isPresent() || System.nanoTime() - deadlineNanos >= 0) {
        return found;
      }
      LockSupport.parkNanos(1_000_000L);
    }
  }

  /** Waits until exactly one candidate leads; returns it. */
  Optional<String> awaitOneLeader(long deadlineNanos) {
    while (true) {
      List<String> now = leaders();
      if (now.size() == 1) {
        return Optional.of(now.get(0));
      }
      if (System.nanoTime() - deadlineNanos >= 0) {
        return Optional.empty();
      }
      LockSupport.parkNanos(5_000_000L);
    }
  }
}
