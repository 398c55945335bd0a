package dev.elector.k8s;

import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The default executor for blocking requests: daemon threads that end after 5 s idle. */
final class KubeThreads {
  private static final ThreadPoolExecutor SHARED = new ThreadPoolExecutor(0, Integer.MAX_VALUE,
      5, TimeUnit.SECONDS, new SynchronousQueue<>(), daemonThreads("elector-kube-"));

  private KubeThreads() {}

  static Executor shared() {
    return SHARED;
  }

  static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
