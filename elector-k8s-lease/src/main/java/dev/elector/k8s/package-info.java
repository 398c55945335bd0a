/**
 * The Kubernetes locks on client-java: {@link dev.elector.k8s.LeaseLock#newBuilder} returns the
 * {@link dev.elector.kube.KubeLock.Builder} that every Kubernetes lock shares, bound to an {@code
 * ApiClient}; elector-configmap's {@code ConfigMapLock} does the same for ConfigMaps. The lock
 * itself is the one implementation of elector-kube-base, which the fabric8 locks use too; its
 * requests go through the given {@code ApiClient} (OkHttp), by {@code dev.elector.k8s.internal}.
 *
 * <p>Guarantees: writes are conditional on {@code metadata.resourceVersion}, so two candidates can
 * never both win the same version; a leader renews with one request; each request is bounded by
 * requestTimeout and runs on the lock's executor (by default a pool of up to 8 daemon threads
 * shared by every Kubernetes lock of the process); a call the elector cancels (past its
 * callTimeout) is not sent, or is aborted in flight, and frees its thread; API errors come back as
 * failures naming the missing Role rule; watches (by default one per namespace and client shared by
 * many locks, else one per lock) send at most 4 + T / 1 s list and watch requests in any interval
 * T. Not guaranteed: protection of the leader's own writes elsewhere (use the term's fencing
 * token), or anything about clocks beyond what the elector documents.
 */
@NullMarked
package dev.elector.k8s;

import org.jspecify.annotations.NullMarked;
