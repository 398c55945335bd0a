package dev.elector.dhcp.agent;

import com.google.gson.JsonObject;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolRef;
import dev.elector.ippool.NetworkApis;
import dev.elector.k8s.KubeObjectWatch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.JSON;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds a {@link PoolLeaseCache} from one IPPool through the library's {@link KubeObjectWatch}:
 * every list delivers the whole current state, so the cache is right after the first list whatever
 * events follow or do not follow. A 403 or 401 is logged at ERROR with the Role rule to add, other
 * failures at WARN, each once per streak; the watch reconnects by itself.
 */
public final class PoolWatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PoolWatcher.class);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  private final IPPoolRef ref;
  private final PoolLeaseCache cache;
  private final KubeObjectWatch watch;
  private volatile boolean failing;
  private final AtomicLong failures = new AtomicLong();

  /** A watcher of {@code cache.ref()} through {@code client}; call {@link #start()}. */
  public PoolWatcher(ApiClient client, PoolLeaseCache cache) {
    Objects.requireNonNull(client, "client");
    this.cache = Objects.requireNonNull(cache, "cache");
    this.ref = cache.ref();
    this.watch =
        KubeObjectWatch.newBuilder()
            .apiClient(client)
            .group(NetworkApis.GROUP)
            .version(NetworkApis.VERSION)
            .resource(NetworkApis.IPPOOLS)
            .namespace(ref.namespace())
            .name(ref.name())
            .identity("the agent")
            .requestTimeout(REQUEST_TIMEOUT)
            .listener(
                new KubeObjectWatch.Listener() {
                  @Override
                  public void state(Optional<JsonObject> object) {
                    onState(object);
                  }

                  @Override
                  public void failed(KubeObjectWatch.Failure failure, boolean firstInARow) {
                    onFailure(failure, firstInARow);
                  }
                })
            .build();
  }

  /** Starts watching. */
  public void start() {
    watch.start();
  }

  /** Stops watching and waits up to 5 s for the thread. Idempotent. */
  @Override
  public void close() {
    watch.close();
  }

  private void onState(Optional<JsonObject> object) {
    if (failing) {
      failing = false;
      log.info("IPPool {}: watching again", ref);
    }
    if (object.isEmpty()) {
      cache.absent();
      return;
    }
    IPPool pool;
    try {
      pool = JSON.deserialize(object.get().toString(), IPPool.class);
    } catch (RuntimeException e) {
      log.error(
          "IPPool {}: a version of the pool cannot be read ({}); ignoring it", ref, e.toString());
      return;
    }
    cache.apply(pool);
  }

  /** Failed attempts to list or watch the pool so far. */
  long failures() {
    return failures.get();
  }

  private void onFailure(KubeObjectWatch.Failure failure, boolean firstInARow) {
    failing = true;
    failures.incrementAndGet();
    if (!firstInARow) {
      log.debug("IPPool {}: still failing: {}", ref, failure.message());
    } else if (failure.kind().isConfigurationProblem()) {
      log.error(
          "IPPool {}: {}. The agent needs get, list and watch on"
              + " ippools.network.harvesterhci.io (see deploy/dhcp-agent/rbac.yaml); retrying with"
              + " back-off",
          ref,
          failure.message());
    } else {
      log.warn("IPPool {}: {}; retrying with back-off up to 30 s", ref, failure.message());
    }
  }
}
