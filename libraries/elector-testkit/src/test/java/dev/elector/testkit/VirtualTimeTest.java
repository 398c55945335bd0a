package dev.elector.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.time.Scheduler;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class VirtualTimeTest {
  private final VirtualTime time = VirtualTime.withSeed(1);
  private final Scheduler scheduler = time.scheduler();

  @Test
  void tasksRunInOrderOfDueTimeEachWithTheClockAtItsDueTime() {
    List<String> ran = new ArrayList<>();
    later(() -> ran.add("b at " + time.clock().nanos()), 2_000);
    later(() -> ran.add("a at " + time.clock().nanos()), 1_000);
    later(() -> ran.add("c at " + time.clock().nanos()), 2_000);

    time.advance(Duration.ofNanos(5_000));

    assertEquals(List.of("a at 1000", "b at 2000", "c at 2000"), ran);
    assertEquals(Duration.ofNanos(5_000), time.elapsed());
    assertEquals(3, time.tasksRun());
  }

  @Test
  void aStallMovesTheClockButRunsNothingUntilTimeIsDrivenAgain() {
    List<Long> ranAt = new ArrayList<>();
    later(() -> ranAt.add(time.clock().nanos()), Duration.ofSeconds(1).toNanos());

    time.stall(Duration.ofSeconds(5));
    assertEquals(List.of(), ranAt, "a frozen process runs nothing");
    assertEquals(1, time.pendingTasks());

    time.runDueTasks();
    assertEquals(List.of(Duration.ofSeconds(5).toNanos()), ranAt, "the task runs late, at once");
  }

  @Test
  void aWallClockFollowsTheClockFromTheEpochAndJumpsAlone() {
    Clock a = time.newWallClock();
    Clock b = time.newWallClock();
    time.advance(Duration.ofSeconds(3));

    time.jumpWallClock(a, Duration.ofHours(-1));

    assertEquals(VirtualTime.EPOCH.plusSeconds(3).minus(Duration.ofHours(1)), a.instant());
    assertEquals(VirtualTime.EPOCH.plusSeconds(3), b.instant());
    assertEquals(Duration.ofSeconds(3).toNanos(), time.clock().nanos(), "monotonic time stays");
  }

  @Test
  void onlyItsOwnWallClocksCanBeJumped() {
    Clock foreign = VirtualTime.create().newWallClock();

    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> time.jumpWallClock(foreign, Duration.ofSeconds(1)));
    assertTrue(e.getMessage().contains("newWallClock()"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> time.jumpWallClock(Clock.systemUTC(), Duration.ofSeconds(1)));
  }

  @Test
  void advanceUntilFailsWhenTheConditionDoesNotHoldWithinTheLimit() {
    AssertionError e =
        assertThrows(
            AssertionError.class, () -> time.advanceUntil(() -> false, Duration.ofSeconds(2)));

    assertTrue(e.getMessage().contains("PT2S"), e.getMessage());
    assertEquals(Duration.ofSeconds(2), time.elapsed());
  }

  @Test
  void aTaskLeftScheduledIsNamedWithWhenItIsDue() {
    Runnable leak =
        new Runnable() {
          @Override
          public void run() {}

          @Override
          public String toString() {
            return "renew-timer";
          }
        };
    later(leak, Duration.ofMinutes(2).toNanos());

    AssertionError e = assertThrows(AssertionError.class, time::assertNoMoreTasks);

    assertTrue(e.getMessage().contains("1 task(s) still scheduled"), e.getMessage());
    assertTrue(e.getMessage().contains("renew-timer due in PT2M"), e.getMessage());
  }

  @Test
  void cancelledAndRunTasksAreNotLeft() {
    Future<?> cancelled = scheduler.schedule(() -> {}, Duration.ofSeconds(5).toNanos());
    Future<?> ran = scheduler.schedule(() -> {}, Duration.ofSeconds(1).toNanos());
    assertTrue(cancelled.cancel(false), "cancelled before it started");
    assertFalse(cancelled.cancel(false), "once only");
    time.advance(Duration.ofSeconds(2));

    time.assertNoMoreTasks();
    assertEquals(0, time.pendingTasks());
    assertTrue(cancelled.isCancelled());
    assertTrue(ran.isDone() && !ran.isCancelled(), "ran");
    assertFalse(ran.cancel(false), "a task that ran cannot be cancelled");
  }

  @Test
  void aTaskThatThrowsFailsTheAdvanceAndItsFuture() {
    IllegalStateException boom = new IllegalStateException("boom");
    Future<?> failing =
        scheduler.schedule(
            () -> {
              throw boom;
            },
            Duration.ofSeconds(1).toNanos());

    assertEquals(
        boom, assertThrows(IllegalStateException.class, () -> time.advance(Duration.ofSeconds(2))));
    assertTrue(failing.isDone());
    assertEquals(boom, assertThrows(ExecutionException.class, failing::get).getCause());
  }

  @Test
  void aTasksFutureWaitsForTheTestToRunItAndReportsACancel() throws Exception {
    List<String> ran = new ArrayList<>();
    Future<?> pending = scheduler.schedule(() -> ran.add("ran"), Duration.ofSeconds(1).toNanos());
    assertThrows(
        TimeoutException.class,
        () -> pending.get(1, TimeUnit.MILLISECONDS),
        "virtual time does not move by itself");

    CompletableFuture<Object> waiter =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return pending.get();
              } catch (InterruptedException | ExecutionException e) {
                throw new IllegalStateException(e);
              }
            });
    time.advance(Duration.ofSeconds(2));
    assertEquals(null, waiter.get(30, TimeUnit.SECONDS), "released once the test ran the task");
    assertEquals(List.of("ran"), ran);

    Future<?> cancelled = scheduler.schedule(() -> ran.add("never"), 1);
    cancelled.cancel(false);
    assertThrows(CancellationException.class, cancelled::get);
    assertThrows(CancellationException.class, () -> cancelled.get(1, TimeUnit.MILLISECONDS));
    time.advance(Duration.ofSeconds(1));
    assertEquals(List.of("ran"), ran);
  }

  /** Schedules {@code task} after {@code delayNanos}; these tests never cancel it. */
  private void later(Runnable task, long delayNanos) {
    var unused = scheduler.schedule(task, delayNanos);
  }
}
