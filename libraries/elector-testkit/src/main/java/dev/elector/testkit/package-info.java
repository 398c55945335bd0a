/**
 * Test support for electors: {@link dev.elector.testkit.VirtualTime} (a fake clock and a virtual
 * scheduler), {@link dev.elector.testkit.FaultyLock} (fault injection) and {@link
 * dev.elector.testkit.LeadershipTimeline} (the two-leader detector). Add this module in test scope.
 */
@NullMarked
package dev.elector.testkit;

import org.jspecify.annotations.NullMarked;
