/**
 * One candidate's election as a pure state machine: {@link
 * dev.elector.internal.candidate.Candidate#next Candidate.next} takes the {@link
 * dev.elector.internal.candidate.State}, an {@link dev.elector.internal.candidate.Event} and the
 * instant, and returns the next state with the {@link dev.elector.internal.candidate.Effect}s to
 * run, as data. Nothing here reads a clock, schedules, calls the lock, logs or runs a callback: the
 * election in {@code dev.elector} is the one driver that does, and feeds what happened back as
 * events.
 */
@NullMarked
package dev.elector.internal.candidate;

import org.jspecify.annotations.NullMarked;
