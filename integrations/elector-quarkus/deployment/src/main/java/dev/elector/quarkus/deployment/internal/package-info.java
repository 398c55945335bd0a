/**
 * The build steps of the elector-quarkus extension. Not API: nothing here is for an application to
 * use, and it changes without notice.
 */
@NullMarked
package dev.elector.quarkus.deployment.internal;

import org.jspecify.annotations.NullMarked;
