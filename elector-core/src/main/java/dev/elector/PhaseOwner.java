package dev.elector;

/** Who holds a candidate's phase and enters the transitions asked of it: the {@link Election}. */
interface PhaseOwner {
  /** The current phase. */
  Phase phase();

  /** Enters the transition's phase, then runs its actions in order. */
  void apply(Transition transition);
}
