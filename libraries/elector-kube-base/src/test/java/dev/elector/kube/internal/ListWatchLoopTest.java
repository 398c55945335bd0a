package dev.elector.kube.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.elector.lock.LockFailure;
import dev.elector.testkit.VirtualTime;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The list/watch loop in virtual time, against a scripted server: every request lands in a
 * transcript with the virtual millisecond it was sent at. Jitter is zero, so back-off is exact.
 */
class ListWatchLoopTest {
  private final VirtualTime time = VirtualTime.create();
  private final MonotonicClock clock = time.clock();
  private final Scheduler scheduler = time.scheduler();
  private final RandomGenerator noJitter = () -> 0L;
  private final List<String> transcript = new ArrayList<>();
  private final List<String> handed = new ArrayList<>();

  /** What the next lists answer; an empty queue answers 200 at resourceVersion "1". */
  private final Deque<Reply> lists = new ArrayDeque<>();

  /** What the next watches do; an empty queue is a watch that ends at once without an event. */
  private final Deque<Watch> watches = new ArrayDeque<>();

  private final Loop loop = new Loop();

  /**
   * A scripted watch: refused with a reply, or open with its steps, each an event handed over or a
   * {@link Duration} the stream stays open without one; it ends after the last step.
   */
  private record Watch(@Nullable Reply refused, List<Object> steps) {
    static Watch open(Object... steps) {
      return new Watch(null, List.of(steps));
    }

    static Watch refusedWith(int code) {
      return new Watch(new Reply(code, Map.of("message", "no"), null, Duration.ZERO), List.of());
    }
  }

  private static Map<String, Object> event(String type, String version) {
    return Map.of("type", type, "object", Map.of("metadata", Map.of("resourceVersion", version)));
  }

  private static Map<String, Object> gone() {
    return Map.of("type", "ERROR", "object", Map.of("code", 410, "message", "too old"));
  }

  private static Reply listAt(String version) {
    return new Reply(
        200,
        Map.of("metadata", Map.of("resourceVersion", version), "items", List.of()),
        null,
        Duration.ZERO);
  }

  private static Reply failing() {
    return new Reply(500, Map.of("message", "down"), null, Duration.ZERO);
  }

  private long millis() {
    return clock.nanos() / 1_000_000;
  }

  private void note(String request) {
    transcript.add(request + "@" + millis());
    if (transcript.size() > 500) {
      loop.stop();
      throw new AssertionError("runaway loop: " + transcript.subList(0, 20));
    }
  }

  private final class Server implements ListWatchLoop.Transport {
    @Override
    public Reply list() {
      note("list");
      Reply reply = lists.poll();
      return reply != null ? reply : listAt("1");
    }

    @Override
    public WatchStream watch(String resourceVersion, long timeoutSeconds) {
      Watch script = watches.poll();
      Watch watch = script != null ? script : Watch.open();
      Deque<Object> steps = new ArrayDeque<>(watch.steps());
      return new WatchStream() {
        @Override
        public @Nullable Reply open() {
          note("watch " + resourceVersion);
          return watch.refused();
        }

        @Override
        @SuppressWarnings("unchecked") // the script holds only events and durations
        public @Nullable Map<String, Object> next() {
          Object step = steps.poll();
          while (step instanceof Duration open) {
            time.stall(open); // the stream stays open this long without an event
            step = steps.poll();
          }
          return (Map<String, Object>) step;
        }

        @Override
        public void cancel() {}

        @Override
        public void close() {}
      };
    }
  }

  private final class Loop extends ListWatchLoop {
    Loop() {
      super(
          new Server(),
          new FailureText("Lease", "coordination.k8s.io", "leases", "ns", null, "me"),
          Duration.ofSeconds(5),
          new LockTime(clock, scheduler, noJitter));
    }

    @Override
    protected String describe() {
      return "test watch";
    }

    @Override
    protected void listed(List<Map<String, Object>> objects) {
      handed.add("listed@" + millis());
    }

    @Override
    protected void changed(String type, Map<String, Object> object) {
      handed.add(type + "@" + millis());
    }

    @Override
    protected void broke(LockFailure failure, boolean firstInARow) {
      handed.add("broke@" + millis());
    }
  }

  @AfterEach
  void stopAndLeaveNothingBehind() {
    loop.stop();
    time.assertNoMoreTasks();
  }

  @Test
  void aDroppedStreamReconnectsAtOnceFromTheLastVersionWithoutAList() {
    watches.add(Watch.open(event("MODIFIED", "5"), Duration.ofMinutes(1)));
    watches.add(Watch.open(Duration.ofMinutes(5)));
    loop.start("test-");

    time.advance(Duration.ofSeconds(61));

    assertEquals(List.of("list@0", "watch 1@0", "watch 5@60000"), transcript);
    assertEquals(List.of("listed@0", "MODIFIED@0"), handed);
  }

  @Test
  void failuresBackOffFromHalfASecondDoublingToTheCap() {
    for (int i = 0; i < 10; i++) {
      lists.add(failing());
    }
    loop.start("test-");

    time.advance(Duration.ofSeconds(125));

    assertEquals(
        List.of(
            "list@0",
            "list@500",
            "list@1500",
            "list@3500",
            "list@7500",
            "list@15500",
            "list@31500",
            "list@61500",
            "list@91500",
            "list@121500"),
        transcript);
    assertEquals(10, handed.size(), "each failure is handed over as a break: " + handed);
  }

  @Test
  void goneOnAWatchThatLastedListsAgainAtOnce() {
    lists.add(listAt("1"));
    lists.add(listAt("7"));
    watches.add(Watch.open(event("MODIFIED", "3"), Duration.ofMinutes(1), gone()));
    watches.add(Watch.open(Duration.ofMinutes(5)));
    loop.start("test-");

    time.advance(Duration.ofSeconds(61));

    assertEquals(List.of("list@0", "watch 1@0", "list@60000", "watch 7@60000"), transcript);
    assertEquals(List.of("listed@0", "MODIFIED@0", "listed@60000"), handed);
  }

  @Test
  void goneRightAfterAListBacksOff() {
    watches.add(Watch.refusedWith(410));
    watches.add(Watch.open(Duration.ofMinutes(5)));
    loop.start("test-");

    time.advance(Duration.ofSeconds(1));

    assertEquals(List.of("list@0", "watch 1@0", "list@500", "watch 1@500"), transcript);
    assertEquals(List.of("listed@0", "broke@0", "listed@500"), handed);
  }

  @Test
  void aServerThatEndsEveryWatchAtOnceMeetsTheRequestBound() {
    for (int i = 0; i < 200; i++) {
      watches.add(Watch.open(event("MODIFIED", String.valueOf(i + 2)))); // useful, then gone
    }
    loop.start("test-");

    time.advance(Duration.ofMinutes(1));

    assertEquals(
        List.of("list@0", "watch 1@0", "watch 2@0", "watch 3@0", "watch 4@1000", "watch 5@2000"),
        transcript.subList(0, 6));
    assertEquals(WatchPacer.bound(Duration.ofMinutes(1)), transcript.size());
  }

  @Test
  void stoppingBetweenStepsLeavesNoTaskAndSendsNothingMore() {
    lists.add(failing());
    loop.start("test-");
    time.advance(Duration.ofMillis(100));

    loop.stop();
    time.advance(Duration.ofSeconds(10));

    assertEquals(List.of("list@0"), transcript);
  }
}
