package dev.elector.controller;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** Remembers which generation of an object was last warned about, so bad input warns once. */
final class WarnOnce {
  private final ConcurrentMap<String, Long> warned = new ConcurrentHashMap<>();

  /** True the first time it is asked about {@code key} at {@code generation}. */
  boolean first(String key, Long generation) {
    long value = generation == null ? -1 : generation;
    Long previous = warned.put(key, value);
    return previous == null || previous != value;
  }

  /** Forgets {@code key} (the object is gone or valid again). */
  void forget(String key) {
    warned.remove(key);
  }
}
