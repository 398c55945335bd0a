/**
 * Lock backends on fabric8's {@code KubernetesClient}: {@link dev.elector.fabric8.Fabric8LeaseLock}
 * and {@link dev.elector.fabric8.Fabric8ConfigMapLock}, for operators already built on fabric8
 * (such as those on the Java Operator SDK), without client-java or a second HTTP stack.
 *
 * <p>Guarantees, the same as the client-java locks of elector-k8s-lease and elector-configmap, with
 * which they share records, option checks, failure messages and the watch loop (module
 * elector-kube-base): records in client-go's format, so Go, client-java and fabric8 candidates can
 * share one object; writes conditional on {@code metadata.resourceVersion}, so two candidates can
 * never both win the same version; a leader renews with one JSON merge patch (fabric8's own request
 * retries are off for the lock's requests); requests bounded by requestTimeout and run on daemon
 * threads; API errors come back as failures naming the missing Role rule; watches (by default one
 * per namespace and client shared by many locks, else one per lock) send at most 4 + T / 1 s list
 * and watch requests in any interval T. Not guaranteed: protection of the leader's own writes
 * elsewhere (use the term's fencing token), or anything about clocks beyond what the elector
 * documents.
 */
@NullMarked
package dev.elector.fabric8;

import org.jspecify.annotations.NullMarked;
