/**
 * Not API: what the test kit's cluster extension runs on, public only so that Elector's own test
 * infrastructure can share it. It changes without notice.
 */
@NullMarked
package dev.elector.testkit.internal;

import org.jspecify.annotations.NullMarked;
