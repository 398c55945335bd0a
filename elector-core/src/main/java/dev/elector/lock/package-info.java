/**
 * The lock SPI ({@link dev.elector.lock.LeaderLock}), the record it stores, its outcome types, and
 * an in-memory lock with real optimistic concurrency for tests and demos, and {@link
 * dev.elector.lock.ForwardingLock} and {@link dev.elector.lock.ForwardingWatchableLock}, bases for
 * decorators that change some calls of another lock.
 */
@NullMarked
package dev.elector.lock;

import org.jspecify.annotations.NullMarked;
