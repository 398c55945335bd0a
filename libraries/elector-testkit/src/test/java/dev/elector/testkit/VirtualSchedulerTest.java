package dev.elector.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.time.Cancellable;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class VirtualSchedulerTest {
  private final VirtualTime time = VirtualTime.withSeed(1);
  private final VirtualScheduler scheduler = time.scheduler();

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
    scheduler.schedule(leak, Duration.ofMinutes(2).toNanos());

    AssertionError e = assertThrows(AssertionError.class, scheduler::assertNoMoreTasks);

    assertTrue(e.getMessage().contains("1 task(s) still scheduled"), e.getMessage());
    assertTrue(e.getMessage().contains("renew-timer due in PT2M"), e.getMessage());
  }

  @Test
  void cancelledAndRunTasksAreNotLeft() {
    Cancellable cancelled = scheduler.schedule(() -> {}, Duration.ofSeconds(5).toNanos());
    scheduler.schedule(() -> {}, Duration.ofSeconds(1).toNanos());
    cancelled.cancel();
    scheduler.advance(Duration.ofSeconds(2));

    scheduler.assertNoMoreTasks();
    assertEquals(0, scheduler.pendingTasks());
  }
}
