/**
 * Elector for Quarkus: the application's {@link dev.elector.LeaderElector} as a CDI bean on the
 * Quarkus-managed fabric8 client, configured under {@code quarkus.elector.*} (see docs/quarkus.md),
 * with the CDI events {@link dev.elector.quarkus.LeadershipGranted} and {@link
 * dev.elector.quarkus.LeadershipRevoked}, a liveness check with SmallRye Health and client-go's
 * leader gauge with Micrometer.
 *
 * <p>Guarantees, those of the elector: a replica is granted leadership only after its own write won
 * the lock; every grant is followed by exactly one revocation; a leader that cannot renew stops
 * leading at {@code renew-deadline}, before any other replica can count its lease as expired; at
 * shutdown the revocation's observers return before the lock is released. Not guaranteed: that the
 * leader's writes elsewhere are exclusive (carry the term's fencing token for that), or that an
 * event is seen by an observer that is not a bean when it is fired.
 */
@NullMarked
package dev.elector.quarkus;

import org.jspecify.annotations.NullMarked;
