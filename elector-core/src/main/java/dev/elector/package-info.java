/**
 * Leader election with an always-rerunning, rate-limited candidate loop.
 *
 * <p>Start a {@link dev.elector.LeaderElector} with an {@link dev.elector.ElectorConfig}. It never
 * gives up: after any loss it becomes a candidate again on its own. Expiry is judged on the local
 * monotonic clock from when a change was observed, never by comparing a remote timestamp with the
 * local wall clock, so wall-clock skew between candidates does not matter; a difference in clock
 * <em>rates</em> larger than the margin between leaseDuration and renewDeadline would.
 *
 * <p>What the fencing token does not do: Elector cannot stop a paused process from acting on a term
 * it has lost before it notices. Systems the leader writes to must check the token to be safe
 * against that.
 */
@NullMarked
package dev.elector;

import org.jspecify.annotations.NullMarked;
