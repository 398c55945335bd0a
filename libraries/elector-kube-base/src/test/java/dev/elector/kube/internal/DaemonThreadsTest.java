package dev.elector.kube.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The bounded request pool: threads up to its maximum, then a queue; idle threads are reused. */
class DaemonThreadsTest {

  @Test
  void manyBlockedRequestsUseAtMostTheMaximumAndAllRunOnceThreadsFree() throws Exception {
    ThreadPoolExecutor pool = DaemonThreads.bounded(4, "test-bounded-");
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch fourRunning = new CountDownLatch(4);
    CountDownLatch done = new CountDownLatch(30);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    try {
      for (int i = 0; i < 30; i++) {
        pool.execute(
            () -> {
              most.accumulateAndGet(running.incrementAndGet(), Math::max);
              fourRunning.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              running.decrementAndGet();
              done.countDown();
            });
      }
      assertTrue(fourRunning.await(10, TimeUnit.SECONDS), "4 running");
      assertEquals(4, pool.getPoolSize(), "threads started");
      assertEquals(26, pool.getQueue().size(), "requests waiting");
      release.countDown();
      assertTrue(done.await(10, TimeUnit.SECONDS), "all ran");
      assertEquals(4, most.get(), "at most 4 at once");
      assertTrue(pool.getLargestPoolSize() <= 4, "largest " + pool.getLargestPoolSize());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void oneRequestAtATimeReusesTheIdleThread() throws Exception {
    ThreadPoolExecutor pool = DaemonThreads.bounded(8, "test-reuse-");
    Set<String> names = ConcurrentHashMap.newKeySet();
    try {
      for (int i = 0; i < 20; i++) {
        CountDownLatch ran = new CountDownLatch(1);
        pool.execute(
            () -> {
              names.add(Thread.currentThread().getName());
              ran.countDown();
            });
        assertTrue(ran.await(5, TimeUnit.SECONDS));
        // the next request comes when the worker waits on the queue again
        LinkedTransferQueue<Runnable> queue = (LinkedTransferQueue<Runnable>) pool.getQueue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!queue.hasWaitingConsumer() && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
      }
      assertEquals(1, names.size(), "sequential requests started threads " + names);
    } finally {
      pool.shutdownNow();
    }
  }
}
