/** The build steps of the elector-quarkus extension. */
@NullMarked
package dev.elector.quarkus.deployment;

import org.jspecify.annotations.NullMarked;
