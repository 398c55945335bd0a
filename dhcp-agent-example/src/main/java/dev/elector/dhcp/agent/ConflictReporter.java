package dev.elector.dhcp.agent;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolList;
import dev.elector.ippool.IPPoolRef;
import dev.elector.ippool.NetworkApis;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
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
 * Tells the IPPool controller that a client declined an address (RFC 2131 4.3.3: it found the
 * address in use), with one annotation on the pool, {@code declined.network.harvesterhci.io/<IP>:
 * <MAC>}, written as a JSON merge patch (other annotations are left alone). The controller marks
 * the address CONFLICT in the pool's status, gives the MAC another one and removes the annotation.
 * Sent on a thread of its own, off the DHCP server's; at most 64 wait.
 */
final class ConflictReporter implements AutoCloseable {
  /** The annotation prefix the controller reads (see controller-example's PoolReconciler). */
  static final String DECLINED_PREFIX = "declined.network.harvesterhci.io/";

  private static final Logger log = LoggerFactory.getLogger(ConflictReporter.class);

  private final IPPoolRef pool;
  private final GenericKubernetesApi<IPPool, IPPoolList> pools;
  private final AgentEvents events;
  private final ExecutorService sender =
      new ThreadPoolExecutor(
          1,
          1,
          0,
          TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(64),
          r -> {
            Thread t = new Thread(r, "dhcp-agent-conflicts");
            t.setDaemon(true);
            return t;
          },
          new ThreadPoolExecutor.DiscardPolicy());

  ConflictReporter(IPPoolRef pool, ApiClient client, AgentEvents events) {
    this.pool = pool;
    this.pools = NetworkApis.ipPools(client);
    this.events = events;
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
