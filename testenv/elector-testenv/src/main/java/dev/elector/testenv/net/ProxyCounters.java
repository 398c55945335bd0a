package dev.elector.testenv.net;

import java.util.concurrent.atomic.AtomicLong;

/** Counters written by the loop thread and read by any thread. */
final class ProxyCounters {
  final AtomicLong accepted = new AtomicLong();
  final AtomicLong bytesToTarget = new AtomicLong();
  final AtomicLong bytesToClient = new AtomicLong();
  final AtomicLong resets = new AtomicLong();
  volatile int open;

  FaultProxy.Stats snapshot() {
    return new FaultProxy.Stats(
        accepted.get(), bytesToTarget.get(), bytesToClient.get(), resets.get(), open);
  }
}
