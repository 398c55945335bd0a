/**
 * Time and scheduling seams. Durations are judged only on a {@link
 * dev.elector.time.MonotonicClock}; waits are tasks on a {@link dev.elector.time.Scheduler}. Both
 * are injectable so that elections run deterministically in virtual time.
 */
@NullMarked
package dev.elector.time;

import org.jspecify.annotations.NullMarked;
