/**
 * Spring Boot auto-configuration of one leader elector: {@link
 * dev.elector.spring.autoconfigure.ElectorProperties} ({@code elector.*}), the lock on the
 * application's Kubernetes client, a lifecycle that starts the candidacy once the application is
 * ready and closes it before the web server's graceful shutdown, leadership events,
 * {@code @LeaderOnly}, and Actuator health, info and metrics.
 *
 * <p>A bad configuration fails start-up with {@link
 * dev.elector.spring.autoconfigure.ElectorPropertiesException}, which lists every problem, each
 * naming the property, the value and the fix.
 */
@NullMarked
package dev.elector.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
