/**
 * Lock backends on fabric8's {@code KubernetesClient}: {@link dev.elector.fabric8.Fabric8LeaseLock}
 * and {@link dev.elector.fabric8.Fabric8ConfigMapLock}, for operators already built on fabric8
 * (such as those on the Java Operator SDK), without client-java or a second HTTP stack.
 *
 * <p>The lock itself is that of the client-java locks of elector-k8s-lease and elector-configmap:
 * their {@code newBuilder(client)} returns the same {@link dev.elector.kube.KubeLock.Builder}, and
 * the lock it builds is the one implementation of elector-kube-base (requests, records, option
 * checks, failure messages, watches), sending its requests through the given client's HTTP client.
 * Guarantees, the same as theirs: records in client-go's format, so Go, client-java and fabric8
 * candidates can share one object; writes conditional on {@code metadata.resourceVersion}, so two
 * candidates can never both win the same version; a leader renews with one JSON merge patch
 * (fabric8's own request retries are off for the lock's requests); each request is bounded by
 * requestTimeout and runs on the lock's executor (by default a pool of up to 8 daemon threads
 * shared by every Kubernetes lock of the process); a call the elector cancels (past its
 * callTimeout) is not sent, or stops being waited for and frees its thread (fabric8's HTTP client
 * cannot end an exchange before its answer, which is then dropped); API errors come back as
 * failures naming the missing Role rule; watches (by default one per namespace and client shared by
 * many locks, else one per lock) send at most 4 + T / 1 s list and watch requests in any interval
 * T. Not guaranteed: protection of the leader's own writes elsewhere (use the term's fencing
 * token), or anything about clocks beyond what the elector documents.
 */
@NullMarked
package dev.elector.fabric8;

import org.jspecify.annotations.NullMarked;
