package dev.elector.k8s;

import dev.elector.kube.ObjectKind;
import dev.elector.kube.internal.LockBuilder;
import dev.elector.kube.internal.LockOptions;
import dev.elector.kube.internal.ObjectLock;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The options of the client-java locks: those every Kubernetes lock shares, with the same defaults
 * and checks as the fabric8 locks, and the {@link ApiClient}. Setters reject null at once; {@code
 * build()} resolves namespace and identity and reports every problem in one {@link
 * IllegalStateException}.
 *
 * @param <B> the concrete builder
 */
public abstract class KubeLockBuilder<B extends KubeLockBuilder<B>> extends LockBuilder<B> {
  /**
   * Default timeout of one API request: 5 s, the elector's default callTimeout (see {@link
   * #requestTimeout}).
   */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = LockOptions.DEFAULT_REQUEST_TIMEOUT;

  /** The default reporting component of the lock's Events: {@value}. */
  public static final String DEFAULT_EVENT_COMPONENT = LockOptions.DEFAULT_EVENT_COMPONENT;

  private @Nullable ApiClient apiClient;

  /** For the lock builders of this module and of elector-configmap. */
  protected KubeLockBuilder() {}

  /** The client to talk to the API server with (required); its credentials are the lock's. */
  public B apiClient(ApiClient apiClient) {
    this.apiClient = Objects.requireNonNull(apiClient, "apiClient");
    return self();
  }

  /**
   * Settings after defaults and checks, with requests through the client.
   *
   * @throws IllegalStateException listing every missing or invalid option
   */
  ObjectLock.Settings resolve(ObjectKind kind) {
    return settings(
        kind,
        apiClient,
        "apiClient is missing; pass one, for example ClientBuilder.standard().build()",
        KubeHttp::new);
  }
}
