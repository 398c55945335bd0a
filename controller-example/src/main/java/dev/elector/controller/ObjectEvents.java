package dev.elector.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1EventSource;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes Events (core/v1, as {@code kubectl describe} shows them) about the IPPools and
 * VirtualMachineNetworkConfigs: allocations, releases, failed allocations and exhausted pools. They
 * are sent one at a time on a thread of their own, never on a reconcile's path; at most {@link
 * #QUEUE} wait, and the same event about the same object is sent at most once per {@link #REPEAT}.
 * Without {@code create} on events the controller warns once and carries on.
 */
final class ObjectEvents implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ObjectEvents.class);
  static final int QUEUE = 256;
  static final Duration REPEAT = Duration.ofMinutes(1);
  private static final int REMEMBERED = 4_096;

  private final CoreV1Api core;
  private final String component;
  private final String instance;
  private final Clock clock;
  private final ExecutorService sender;
  private final AtomicBoolean warned = new AtomicBoolean();

  /** When each (object, reason, message) was last queued; guarded by itself. */
  private final Map<String, Long> lastSent =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
          return size() > REMEMBERED;
        }
      };

  ObjectEvents(ApiClient client, String component, String instance, Clock clock) {
    this.core = new CoreV1Api(client);
    this.component = component;
    this.instance = instance;
    this.clock = clock;
    this.sender =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(QUEUE),
            Threads.daemon("ippool-events"),
            new ThreadPoolExecutor.DiscardPolicy());
  }

  void normal(KubernetesObject about, String reason, String message) {
    record(about, "Normal", reason, message);
  }

  void warning(KubernetesObject about, String reason, String message) {
    record(about, "Warning", reason, message);
  }

  private void record(KubernetesObject about, String type, String reason, String message) {
    V1ObjectMeta meta = about.getMetadata();
    if (meta == null || meta.getNamespace() == null || meta.getName() == null) {
      return;
    }
    String key = meta.getUid() + " " + reason + " " + message;
    long now = clock.millis();
    synchronized (lastSent) {
      Long last = lastSent.get(key);
      if (last != null && now - last < REPEAT.toMillis()) {
        return;
      }
      lastSent.put(key, now);
    }
    CoreV1Event event = event(about, type, reason, message);
    try {
      sender.execute(() -> send(event));
    } catch (RejectedExecutionException e) {
      log.debug("event not sent, the controller is stopping: {}", message);
    }
  }

  private CoreV1Event event(KubernetesObject about, String type, String reason, String message) {
    V1ObjectMeta meta = about.getMetadata();
    OffsetDateTime now = OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC);
    return new CoreV1Event()
        .metadata(
            new V1ObjectMeta()
                .namespace(meta.getNamespace())
                .name(meta.getName() + "." + UUID.randomUUID().toString().substring(0, 13)))
        .involvedObject(
            new V1ObjectReference()
                .apiVersion(about.getApiVersion())
                .kind(about.getKind())
                .namespace(meta.getNamespace())
                .name(meta.getName())
                .uid(meta.getUid())
                .resourceVersion(meta.getResourceVersion()))
        .type(type)
        .reason(reason)
        .message(message)
        .firstTimestamp(now)
        .lastTimestamp(now)
        .count(1)
        .source(new V1EventSource().component(component))
        .reportingComponent(component)
        .reportingInstance(instance);
  }

  private void send(CoreV1Event event) {
    try {
      core.createNamespacedEvent(event.getMetadata().getNamespace(), event).execute();
    } catch (ApiException e) {
      if (e.getCode() == 403 && warned.compareAndSet(false, true)) {
        log.warn(
            "cannot record Kubernetes Events about IPPools and VirtualMachineNetworkConfigs"
                + " (403); add {apiGroups: [\"\"], resources: [\"events\"], verbs: [\"create\"]}"
                + " to the controller's ClusterRole (see deploy/controller/rbac.yaml). The controller"
                + " carries on without them.");
      } else if (e.getCode() != 403) {
        log.debug("event {} not recorded: HTTP {}", event.getReason(), e.getCode());
      }
    }
  }

  @Override
  public void close() {
    sender.shutdown();
  }
}
