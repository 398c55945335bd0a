package dev.elector.kube.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.testkit.VirtualTime;
import dev.elector.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where a loop's steps run, in virtual time: a stop ends the loop whether a step waits or not. */
class LoopStepsTest {
  private final VirtualTime time = VirtualTime.create();
  private final Scheduler scheduler = time.scheduler();
  private final List<String> log = new ArrayList<>();
  private final LoopSteps steps = new LoopSteps(scheduler, () -> log.add("ended"));

  @Test
  void aStopWhileTheNextStepWaitsEndsTheLoopAndTheStepNeverRuns() {
    assertTrue(steps.start("test-"));
    steps.schedule(() -> log.add("step"), Duration.ofSeconds(1).toNanos());

    steps.markStopped();
    steps.cancelPending();
    time.advance(Duration.ofSeconds(2));

    assertEquals(List.of("ended"), log);
    time.assertNoMoreTasks();
  }

  @Test
  void aStepScheduledAfterTheStopEndsTheLoopInstead() {
    assertTrue(steps.start("test-"));
    steps.markStopped();

    steps.schedule(() -> log.add("step"), 0);
    time.advance(Duration.ofSeconds(1));

    assertEquals(List.of("ended"), log);
  }

  @Test
  void startsOnce() {
    assertTrue(steps.start("test-"));
    assertFalse(steps.start("test-"));
  }
}
