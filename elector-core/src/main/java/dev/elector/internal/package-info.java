/**
 * Internal: the pacing primitives every Elector module limits and backs off with, a token bucket
 * ({@link dev.elector.internal.TokenBucket}) and a doubling back-off ({@link
 * dev.elector.internal.Doubling}). Public only so that the backend modules share them; not API:
 * they may change in any release, and no public signature names them.
 */
@NullMarked
package dev.elector.internal;

import org.jspecify.annotations.NullMarked;
