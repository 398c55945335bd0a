/**
 * A Java Operator SDK (JOSDK) operator that runs only while its replica leads: {@link
 * dev.elector.josdk.TermScopedOperator} starts an Elector and, for each term, a fresh JOSDK {@code
 * Operator} with JOSDK's own leader election off.
 *
 * <p>Guarantees: a term's operator is started only while the term is active, and stopped (its
 * informers and event processing ended, reconciles in flight given {@code reconcileStopTimeout},
 * then interrupted) before {@code onStoppedLeading} returns, which Elector runs before it releases
 * the lock on {@code close()}. No retry, reschedule or cached object of one term reaches the next:
 * every term builds its operator from nothing. The shared client is never closed by JOSDK.
 *
 * <p>Not guaranteed: that a write a reconciler decided before the term's deadline reaches the API
 * server before another replica leads. Reconcilers check {@code term.isActive()} right before they
 * write, and pass {@code term.fencingToken()} to whoever can refuse writes of an older term.
 */
@NullMarked
package dev.elector.josdk;

import org.jspecify.annotations.NullMarked;
