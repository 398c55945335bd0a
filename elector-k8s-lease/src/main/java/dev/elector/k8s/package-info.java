/**
 * Kubernetes lock backends: {@link dev.elector.k8s.LeaseLock} and the shared machinery of locks
 * kept in one Kubernetes object ({@link dev.elector.k8s.KubeObjectLock}), with their watches (by
 * default one per namespace and client shared by many locks, or one per lock where the identity may
 * not list the namespace's locks), and {@link dev.elector.k8s.KubeObjectWatch}, the same
 * list-then-watch loop for any one object a leader depends on.
 *
 * <p>Guarantees: writes are conditional on {@code metadata.resourceVersion}, so two candidates can
 * never both win the same version; a leader renews with one request; requests are bounded by
 * requestTimeout and run on daemon threads; API errors come back as failures naming the missing
 * Role rule. Not guaranteed: protection of the leader's own writes elsewhere (use the term's
 * fencing token), or anything about clocks beyond what the elector documents.
 */
@NullMarked
package dev.elector.k8s;

import org.jspecify.annotations.NullMarked;
