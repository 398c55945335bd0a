/**
 * The ConfigMap lock backend, {@link dev.elector.configmap.ConfigMapLock}: the record as JSON in an
 * annotation, with the same guarantees as the Lease lock (see {@link dev.elector.k8s}).
 */
@NullMarked
package dev.elector.configmap;

import org.jspecify.annotations.NullMarked;
