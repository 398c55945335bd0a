/**
 * What every Kubernetes lock backend of Elector shares, whichever client it uses: {@link
 * dev.elector.kube.KubeLock}, the view of a lock in one Kubernetes object, and its {@link
 * dev.elector.kube.KubeLock.Builder}, the options every backend's {@code newBuilder(client)} takes;
 * {@link dev.elector.kube.WatchMode}, how a lock watches its object while it follows; and {@link
 * dev.elector.kube.PodEnvironment}, where a lock finds its own namespace and default identity.
 *
 * <p>This module depends on elector-core, slf4j-api and the JSpecify annotations only, never on a
 * Kubernetes client or a JSON library, so that elector-k8s-lease (client-java) and elector-fabric8
 * (fabric8) can both build on it without forcing one client on the users of the other. The record
 * mapping, time formats, failure messages, option checks and the bounded list-then-watch loop live
 * in {@code dev.elector.kube.internal}, on plain {@code Map} and {@code String} values; that
 * package is not API and may change in any release.
 */
@NullMarked
package dev.elector.kube;

import org.jspecify.annotations.NullMarked;
