package dev.elector.testkit.kube;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against a real Kubernetes API server, tagged {@code kube}. Inject, into test
 * methods, constructors or lifecycle methods: {@link KubeCluster} (restricted identities, more
 * namespaces, outages of the local process), {@link io.kubernetes.client.openapi.ApiClient} (admin)
 * and {@link KubeNamespace} (a fresh namespace per test class, created on first use).
 *
 * <p>The cluster is chosen once per JVM, started lazily and stopped when the JUnit run ends (and by
 * a shutdown hook): the kubeconfig in {@code ELECTOR_TEST_KUBECONFIG}; else the local control plane
 * ({@code ELECTOR_APISERVER_BIN}, default {@code ~/.cache/elector/bin/elector-apiserver}, built by
 * {@code testenv/build.sh}); else k3s in Testcontainers when Docker is available. Without any,
 * every test of the class fails saying how to get one; only {@code ELECTOR_SKIP_CLUSTER_TESTS=true}
 * skips them instead.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag("kube")
@ExtendWith(KubeClusterExtension.class)
public @interface KubeTest {}
