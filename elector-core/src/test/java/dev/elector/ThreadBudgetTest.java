package dev.elector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.lock.InMemoryLockStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Threads are a budget: electors share the default threads, and close() leaves none behind. */
class ThreadBudgetTest {

  @Test
  void thousandElectorsShareTwoSchedulerThreadsAndCloseLeavesNoThread() throws Exception {
    Set<String> before = electorThreads();
    int count = 1000;
    CountDownLatch leading = new CountDownLatch(count);
    CountDownLatch stopped = new CountDownLatch(count);
    List<LeaderElector> electors = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      InMemoryLockStore store = InMemoryLockStore.create("lock-" + i);
      electors.add(LeaderElector.start(ElectorConfig.newBuilder()
          .lock(store.lockFor("candidate-" + i))
          .callbacks(LeaderCallbacks.of(term -> leading.countDown(),
              (term, reason) -> stopped.countDown()))
          .build()));
    }
    assertTrue(leading.await(60, TimeUnit.SECONDS), "all 1000 lead their own lock");
    long schedulerThreads = electorThreads().stream()
        .filter(name -> name.startsWith("elector-scheduler")).count();
    assertEquals(2, schedulerThreads, "1000 electors run on the two shared scheduler threads");

    for (LeaderElector elector : electors) {
      elector.close();
    }
    assertTrue(stopped.await(10, TimeUnit.SECONDS), "stop delivered to every leader");
    assertEquals(0, stopped.getCount());
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
