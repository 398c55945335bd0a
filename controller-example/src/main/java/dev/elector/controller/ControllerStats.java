package dev.elector.controller;

import java.util.concurrent.atomic.AtomicLong;

/** Counters of one controller instance, over all its terms. Thread-safe. */
final class ControllerStats {
  final AtomicLong reconciles = new AtomicLong();
  final AtomicLong requeues = new AtomicLong();
  final AtomicLong poolStatusWrites = new AtomicLong();
  final AtomicLong allocationWrites = new AtomicLong();
  final AtomicLong conflictsRetried = new AtomicLong();
  final AtomicLong addressesAllocated = new AtomicLong();
  final AtomicLong addressesReleased = new AtomicLong();
  final AtomicLong deploymentWrites = new AtomicLong();
  final AtomicLong termsLed = new AtomicLong();

  @Override
  public String toString() {
    return "reconciles="
        + reconciles
        + " requeues="
        + requeues
        + " poolStatusWrites="
        + poolStatusWrites
        + " allocationWrites="
        + allocationWrites
        + " conflictsRetried="
        + conflictsRetried
        + " allocated="
        + addressesAllocated
        + " released="
        + addressesReleased
        + " deploymentWrites="
        + deploymentWrites
        + " terms="
        + termsLed;
  }
}
