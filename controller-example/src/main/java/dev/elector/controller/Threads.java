package dev.elector.controller;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Named daemon threads, so nothing the controller starts keeps a JVM alive. */
final class Threads {
  private Threads() {}

  static ThreadFactory daemon(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
