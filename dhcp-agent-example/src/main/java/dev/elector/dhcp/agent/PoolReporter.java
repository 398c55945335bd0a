package dev.elector.dhcp.agent;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolList;
import dev.elector.ippool.IPPoolRef;
import dev.elector.ippool.NetworkApis;
import dev.elector.ippool.PodRef;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.util.PatchUtils;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's two writes to its pool, each a JSON merge patch sent on a thread of its own, off the
 * DHCP server's and the elector's (at most 64 wait):
 *
 * <ul>
 *   <li>a client declined an address (RFC 2131 4.3.3: it found the address in use): one annotation
 *       on the pool, {@code declined.network.harvesterhci.io/<IP>: <MAC>} (other annotations are
 *       left alone); the controller marks the address CONFLICT in the pool's status, gives the MAC
 *       another one and removes the annotation;
 *   <li>a term started: {@code status.agentPodRef}, upstream's field naming the agent pod that
 *       serves the pool, becomes this pod (namespace, name, uid, image).
 * </ul>
 */
final class PoolReporter implements AutoCloseable {
  /** The annotation prefix the controller reads (see controller-example's PoolReconciler). */
  static final String DECLINED_PREFIX = "declined.network.harvesterhci.io/";

  private static final Logger log = LoggerFactory.getLogger(PoolReporter.class);
  // with nulls, so that a field this pod lacks is removed by the merge patch, not kept
  private static final Gson GSON = new GsonBuilder().serializeNulls().create();

  private final IPPoolRef pool;
  private final GenericKubernetesApi<IPPool, IPPoolList> pools;
  private final ApiClient client;
  private final CustomObjectsApi custom;
  private final AgentEvents events;
  private final ExecutorService sender =
      new ThreadPoolExecutor(
          1,
          1,
          0,
          TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(64),
          r -> {
            Thread t = new Thread(r, "dhcp-agent-pool-reports");
            t.setDaemon(true);
            return t;
          },
          new ThreadPoolExecutor.DiscardPolicy());

  PoolReporter(IPPoolRef pool, ApiClient client, AgentEvents events) {
    this.pool = pool;
    this.pools = NetworkApis.ipPools(client);
    this.client = client;
    this.custom = new CustomObjectsApi(client);
    this.events = events;
  }

  /** Writes {@code pod} to the pool's status.agentPodRef; returns at once. */
  void leading(PodRef pod) {
    try {
      sender.execute(() -> sendPod(pod));
    } catch (RejectedExecutionException e) {
      log.debug("agentPodRef not written, the agent is stopping");
    }
  }

  private void sendPod(PodRef pod) {
    JsonObject status = new JsonObject();
    status.add("agentPodRef", GSON.toJsonTree(pod));
    JsonObject patch = new JsonObject();
    patch.add("status", status);
    try {
      PatchUtils.patch(
          Object.class,
          () ->
              custom
                  .patchNamespacedCustomObjectStatus(
                      NetworkApis.GROUP,
                      NetworkApis.VERSION,
                      pool.namespace(),
                      NetworkApis.IPPOOLS,
                      pool.name(),
                      new V1Patch(patch.toString()))
                  .buildCall(null),
          V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
          client);
      log.info("IPPool {}: status.agentPodRef is now {}", pool, pod);
      events.emit("agent-pod-ref", "pod", pod.getNamespace() + "/" + pod.getName());
    } catch (ApiException e) {
      log.warn(
          "IPPool {}: writing status.agentPodRef failed with HTTP {}{}; serving goes on",
          pool,
          e.getCode(),
          e.getCode() == 403
              ? " (grant patch on ippools/status of this IPPool by name: the IPPool controller's"
                  + " Role vm-dhcp-agent does, as does deploy/dhcp-agent/rbac.yaml)"
              : "");
    }
  }

  /** Reports that {@code mac} declined {@code ip}; returns at once. */
  void declined(MacAddress mac, Ipv4Address ip) {
    try {
      sender.execute(() -> send(mac, ip));
    } catch (RejectedExecutionException e) {
      log.debug("conflict on {} not reported, the agent is stopping", ip);
    }
  }

  private void send(MacAddress mac, Ipv4Address ip) {
    String patch =
        "{\"metadata\":{\"annotations\":{\"" + DECLINED_PREFIX + ip + "\":\"" + mac + "\"}}}";
    KubernetesApiResponse<IPPool> response =
        pools.patch(
            pool.namespace(),
            pool.name(),
            V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
            new V1Patch(patch));
    if (response.isSuccess()) {
      log.warn(
          "{} declined {} (in use on the network): reported to the controller on IPPool {}",
          mac,
          ip,
          pool);
      events.emit("conflict-reported", "mac", mac, "ip", ip);
    } else {
      log.warn(
          "{} declined {}, and the report to IPPool {} failed with HTTP {}{}; the address is"
              + " still not offered to it for a while",
          mac,
          ip,
          pool,
          response.getHttpStatusCode(),
          response.getHttpStatusCode() == 403
              ? " (grant patch on this IPPool by name: the IPPool controller's Role"
                  + " vm-dhcp-agent does, as does deploy/dhcp-agent/rbac.yaml)"
              : "");
    }
  }

  @Override
  public void close() {
    sender.shutdownNow();
  }
}
