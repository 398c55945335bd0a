package dev.elector.fabric8;

import dev.elector.kube.ObjectKind;
import dev.elector.kube.internal.LockBuilder;
import dev.elector.kube.internal.LockOptions;
import dev.elector.kube.internal.ObjectLock;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The options every fabric8 lock shares; the same options, defaults and checks as the client-java
 * locks of elector-k8s-lease. Setters reject null at once; {@code build()} resolves namespace and
 * identity and reports every problem in one {@link IllegalStateException}.
 *
 * @param <B> the concrete builder
 */
public abstract class Fabric8LockBuilder<B extends Fabric8LockBuilder<B>> extends LockBuilder<B> {
  /**
   * Default timeout of one API request: 5 s, the elector's default callTimeout (see {@link
   * #requestTimeout}).
   */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = LockOptions.DEFAULT_REQUEST_TIMEOUT;

  private @Nullable KubernetesClient client;

  Fabric8LockBuilder() {}

  /**
   * The client to talk to the API server with (required); its credentials, TLS and HTTP client are
   * the lock's. The lock never closes it. fabric8's own request retries are not used: the elector
   * retries on its own schedule.
   */
  public B client(KubernetesClient client) {
    this.client = Objects.requireNonNull(client, "client");
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
        client,
        "client is missing; pass one, for example new KubernetesClientBuilder().build()",
        Fabric8Http::new);
  }
}
