/**
 * The lock SPI ({@link dev.elector.lock.LeaderLock}), the record it stores, its outcome types, and
 * an in-memory lock with real optimistic concurrency for tests and demos.
 */
package dev.elector.lock;
