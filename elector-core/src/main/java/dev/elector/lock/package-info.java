/**
 * The lock SPI ({@link dev.elector.lock.LeaderLock}), the record it stores, its outcomes ({@link
 * dev.elector.lock.LockRead}, {@link dev.elector.lock.LockWrite}, and {@link
 * dev.elector.lock.LockFailure}, which is either), and an in-memory lock with real optimistic
 * concurrency for tests and demos.
 */
@NullMarked
package dev.elector.lock;

import org.jspecify.annotations.NullMarked;
