package dev.elector;

import java.util.List;

/** A change of phase: the next phase, and what to run, in order, once it is entered. */
record Transition(Phase next, List<Action> actions) {
  Transition {
    actions = List.copyOf(actions);
  }

  /** No change: the same phase, nothing to run. */
  static Transition stay(Phase phase) {
    return new Transition(phase, List.of());
  }

  static Transition to(Phase next, Action... actions) {
    return new Transition(next, List.of(actions));
  }
}
