/**
 * Spring Boot auto-configuration of one leader elector: {@link
 * dev.elector.spring.autoconfigure.ElectorProperties} ({@code elector.*}), the lock on the
 * application's Kubernetes client, a lifecycle that starts the candidacy once the application is
 * ready and closes it before the web server's graceful shutdown, leadership events,
 * {@code @LeaderOnly}, and Actuator health, info and metrics.
 *
 * <p>A bad configuration fails start-up with Boot's failure report, which lists every problem, each
 * naming the property, the value and the fix.
 *
 * <p>The API here is the properties, which the configuration metadata describes ({@code lock-kind}
 * takes {@code dev.elector.kube.LockKind}, shared with the Quarkus extension); every type is
 * package-private. Boot binds {@code ElectorProperties} by reflection, reads the
 * auto-configurations' names from {@code
 * META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports} and creates
 * them by reflection, as it does the failure analyzer named in {@code META-INF/spring.factories}.
 */
@NullMarked
package dev.elector.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
