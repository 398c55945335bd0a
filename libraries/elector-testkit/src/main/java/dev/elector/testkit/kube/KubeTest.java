package dev.elector.testkit.kube;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against a real Kubernetes API server: shorthand for
 * {@code @ExtendWith(KubeClusterExtension.class)}, tagged {@code kube}. See {@link
 * KubeClusterExtension} for what it injects and how the cluster is chosen.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag("kube")
@ExtendWith(KubeClusterExtension.class)
public @interface KubeTest {}
