package dev.elector.testkit.kube;

import io.kubernetes.client.openapi.ApiClient;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.opentest4j.TestAbortedException;

/**
 * The extension behind {@link KubeTest}, which describes what it injects and how it chooses the
 * cluster. JUnit creates it; tests name only the annotation.
 */
final class KubeClusterExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(KubeClusterExtension.class);

  /** The cluster, or why there is none; computed once per JVM run. */
  private static final class Obtained implements AutoCloseable {
    final @Nullable KubeCluster cluster;
    final @Nullable Exception failure;

    /** Exactly one of the two is given. */
    Obtained(@Nullable KubeCluster cluster, @Nullable Exception failure) {
      this.cluster = cluster;
      this.failure = failure;
    }

    @Override
    public void close() {
      if (cluster != null) {
        cluster.close();
      }
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == KubeCluster.class || type == ApiClient.class || type == KubeNamespace.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    KubeCluster cluster = cluster(context);
    if (type == KubeCluster.class) {
      return cluster;
    }
    if (type == ApiClient.class) {
      return cluster.admin();
    }
    Class<?> testClass = context.getRequiredTestClass();
    return context
        .getRoot()
        .getStore(STORE)
        .getOrComputeIfAbsent(
            "namespace:" + testClass.getName(),
            key -> {
              try {
                return cluster.createNamespace(testClass.getSimpleName().toLowerCase(Locale.ROOT));
              } catch (Exception e) {
                throw new ParameterResolutionException(
                    "cannot create a namespace for "
                        + testClass.getName()
                        + " on "
                        + cluster
                        + ": "
                        + e,
                    e);
              }
            },
            KubeNamespace.class);
  }

  /** The cluster of this JVM run; fails or aborts the calling test when there is none. */
  static KubeCluster cluster(ExtensionContext context) {
    ClusterChoice choice = ClusterChoice.fromEnvironment();
    if (choice.skipRequested()) {
      throw new TestAbortedException(
          ClusterChoice.SKIP + "=true: Kubernetes tests skipped on" + " request");
    }
    Obtained obtained =
        context
            .getRoot()
            .getStore(STORE)
            .getOrComputeIfAbsent(
                "cluster",
                key -> {
                  try {
                    return new Obtained(choice.obtain(), null);
                  } catch (Exception e) {
                    return new Obtained(null, e);
                  }
                },
                Obtained.class);
    if (obtained.cluster != null) {
      return obtained.cluster;
    }
    Exception failure = Objects.requireNonNull(obtained.failure, "neither cluster nor failure");
    throw new ExtensionConfigurationException(failure.getMessage(), failure);
  }
}
