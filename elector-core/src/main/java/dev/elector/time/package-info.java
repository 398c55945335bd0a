/**
 * Time and scheduling seams, and the pacing rules on them. Durations are judged only on a {@link
 * dev.elector.time.MonotonicClock}; waits are tasks on a {@link dev.elector.time.Scheduler}. Both
 * are injectable so that elections run deterministically in virtual time.
 *
 * <p>Every Elector module that limits a rate or backs off does it with {@link
 * dev.elector.time.TokenBucket} and {@link dev.elector.time.ExponentialBackoff}. They take readings
 * of the caller's clock rather than reading one themselves, so they are as deterministic as the
 * clock they are given. They are public so that applications (the examples among them) pace with
 * the same rules without reaching into internals; they guarantee the bounds their Javadoc states
 * and nothing about fairness between callers.
 */
@NullMarked
package dev.elector.time;

import org.jspecify.annotations.NullMarked;
