/**
 * The extension's beans and how the settings become an elector. Not API: public only so that the
 * extension's deployment module can register them; they change without notice.
 */
@NullMarked
package dev.elector.quarkus.internal;

import org.jspecify.annotations.NullMarked;
