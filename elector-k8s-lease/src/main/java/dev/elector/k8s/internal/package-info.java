/**
 * The client-java transport of the Kubernetes locks: raw JSON requests and watch streams through a
 * user's {@code ApiClient}, with Gson. Not API: it may change in any release.
 */
@NullMarked
package dev.elector.k8s.internal;

import org.jspecify.annotations.NullMarked;
