package dev.elector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.lock.InMemoryLockStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Threads are a budget: electors share the default threads, and close() leaves none behind. */
class ThreadBudgetTest {

  @Test
  void thousandElectorsShareTwoSchedulerThreadsAndCloseLeavesNoThread() throws Exception {
    Set<String> before = electorThreads();
    int count = 1000;
    CountDownLatch leading = new CountDownLatch(count);
    AtomicIntegerArray starts = new AtomicIntegerArray(count);
    AtomicIntegerArray stops = new AtomicIntegerArray(count);
    List<LeaderElector> electors = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      InMemoryLockStore store = InMemoryLockStore.create("lock-" + i);
      int index = i;
      electors.add(
          LeaderElector.start(
              ElectorConfig.newBuilder()
                  .lock(store.lockFor("candidate-" + i))
                  .callbacks(
                      LeaderCallbacks.of(
                          term -> {
                            starts.incrementAndGet(index);
                            leading.countDown();
                          },
                          (term, reason) -> stops.incrementAndGet(index)))
                  .build()));
    }
    assertTrue(leading.await(60, TimeUnit.SECONDS), "all 1000 lead their own lock");
    long schedulerThreads =
        electorThreads().stream().filter(name -> name.startsWith("elector-scheduler")).count();
    assertEquals(2, schedulerThreads, "1000 electors run on the two shared scheduler threads");

    for (LeaderElector elector : electors) {
      elector.close(); // returns once the stop callback has returned
    }
    List<String> wrong = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      if (starts.get(i) != 1 || stops.get(i) != 1) {
        wrong.add("candidate-" + i + ": " + starts.get(i) + " starts, " + stops.get(i) + " stops");
      }
    }
    assertEquals(
        0,
        wrong.size(),
        "every elector led once and got exactly one stop by close(); "
            + wrong.size()
            + " did not, such as "
            + wrong.subList(0, Math.min(3, wrong.size())));
    Set<String> left = electorThreads();
    left.removeAll(before);
    assertEquals(Set.of(), left, "no elector thread is left after close()");
  }

  private static Set<String> electorThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(name -> name.startsWith("elector-"))
        .collect(Collectors.toSet());
  }
}
