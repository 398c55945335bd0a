/**
 * A real Kubernetes API server for integration tests: {@link dev.elector.testkit.kube.KubeTest} and
 * the {@link dev.elector.testkit.kube.KubeCluster} it injects. Needs client-java (and, for k3s,
 * testcontainers-k3s) on the test class path; both are optional dependencies of the test kit.
 */
@NullMarked
package dev.elector.testkit.kube;

import org.jspecify.annotations.NullMarked;
