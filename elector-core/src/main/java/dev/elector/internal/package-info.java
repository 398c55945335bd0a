/**
 * Internal: forwarders to the public pacing types of {@code dev.elector.time} ({@link
 * dev.elector.time.TokenBucket}, {@link dev.elector.time.ExponentialBackoff}) under the names that
 * modules were built against. Not API: they may go in any release, and no public signature names
 * them.
 */
@NullMarked
package dev.elector.internal;

import org.jspecify.annotations.NullMarked;
