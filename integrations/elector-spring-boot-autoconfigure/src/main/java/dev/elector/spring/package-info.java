/**
 * What a Spring application uses of Elector's Spring Boot integration: {@link
 * dev.elector.spring.LeaderOnly} for methods that run only while this replica leads, {@link
 * dev.elector.spring.CurrentTerm} for the term of the call in progress, and the application events
 * {@link dev.elector.spring.LeadershipGrantedEvent} and {@link
 * dev.elector.spring.LeadershipRevokedEvent}.
 *
 * <p>Guarantees: a {@code @LeaderOnly} method starts only while a term is active, and the term it
 * is handed is that term; it is not stopped when the term ends (Java cannot stop a thread safely),
 * so long work checks {@link dev.elector.Term#isActive()} or reacts to {@link
 * dev.elector.Term#whenEnded()}, and hands the term's fencing token to the systems it writes to.
 */
@NullMarked
package dev.elector.spring;

import org.jspecify.annotations.NullMarked;
