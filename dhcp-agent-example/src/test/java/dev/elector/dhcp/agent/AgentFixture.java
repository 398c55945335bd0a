package dev.elector.dhcp.agent;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPPoolStatus;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.IPv4Status;
import dev.elector.ippool.NetworkApis;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Pools and identities on a real API server, for the agent's integration tests. */
final class AgentFixture {
  static final Path SHIPPED_RBAC = Path.of("..", "deploy", "dhcp-agent", "rbac.yaml");
  private static final String SHIPPED_POOL = "net-48";
  private static final String SHIPPED_LOCK = "dhcp-agent.default.net-48";

  private final KubeCluster cluster;
  private final ApiClient admin;
  private final KubeNamespace namespace;

  AgentFixture(KubeCluster cluster, KubeNamespace namespace) {
    this.cluster = cluster;
    this.admin = cluster.admin();
    this.namespace = namespace;
  }

  /** Creates the pool and writes its allocation table; returns it as stored. */
  IPPool createPool(String name, IPv4Config config, Map<String, String> allocated)
      throws Exception {
    IPPool created =
        NetworkApis.ipPools(admin)
            .create(
                new IPPool()
                    .metadata(new V1ObjectMeta().namespace(namespace.name()).name(name))
                    .spec(
                        new IPPoolSpec()
                            .networkName(namespace.name() + "/" + name)
                            .ipv4Config(config)))
            .throwsApiException()
            .getObject();
    return writeAllocated(created, allocated);
  }

  /**
   * Replaces the pool's allocation table (status), as the controller does: on the pool as stored
   * now, again after a conflict (the agents' leader writes status.agentPodRef); returns the pool as
   * stored.
   */
  IPPool writeAllocated(IPPool pool, Map<String, String> allocated) throws Exception {
    Map<String, String> table = new LinkedHashMap<>(allocated);
    IPv4Config config = pool.getSpec().getIpv4Config();
    table.putIfAbsent(config.getServerIP(), IPv4Status.RESERVED);
    if (config.getRouter() != null) {
      table.putIfAbsent(config.getRouter(), IPv4Status.RESERVED);
    }
    for (int attempt = 1; ; attempt++) {
      IPPool current = read(pool.getMetadata().getName());
      IPPoolStatus status = current.getStatus() == null ? new IPPoolStatus() : current.getStatus();
      current.status(status.ipv4(new IPv4Status().allocated(table)));
      try {
        return NetworkApis.replaceStatus(admin, current);
      } catch (ApiException e) {
        if (e.getCode() != 409 || attempt == 10) {
          throw e;
        }
      }
    }
  }

  /** Re-reads the pool. */
  IPPool read(String name) throws Exception {
    return NetworkApis.ipPools(admin).get(namespace.name(), name).throwsApiException().getObject();
  }

  /**
   * A new identity bound to the shipped Role of {@code deploy/dhcp-agent/rbac.yaml}, written for
   * the pool default/net-48 and adapted here to {@code pool} as its comments tell users to.
   */
  KubeIdentity agentIdentity(String name, String pool) throws Exception {
    KubeIdentity identity = cluster.newIdentity(namespace, name + "-" + pool);
    cluster.grant(identity, namespace, shippedRulesFor(pool));
    return identity;
  }

  /** The shipped rules, minus the ones on {@code resource}. */
  KubeIdentity identityWithout(String name, String pool, String resource) throws Exception {
    KubeIdentity identity = cluster.newIdentity(namespace, name + "-" + pool);
    List<V1PolicyRule> rules = new ArrayList<>(shippedRulesFor(pool));
    rules.removeIf(rule -> rule.getResources().contains(resource));
    cluster.grant(identity, namespace, rules);
    return identity;
  }

  static String lockName(String namespace, String pool) {
    return "dhcp-agent." + namespace + "." + pool;
  }

  private List<V1PolicyRule> shippedRulesFor(String pool) throws Exception {
    List<V1PolicyRule> rules = new ArrayList<>();
    for (V1PolicyRule rule : KubeCluster.roleRules(SHIPPED_RBAC)) {
      if (rule.getResourceNames() != null) {
        rule.setResourceNames(
            rule.getResourceNames().stream()
                .map(
                    n ->
                        n.equals(SHIPPED_POOL)
                            ? pool
                            : n.equals(SHIPPED_LOCK) ? lockName(namespace.name(), pool) : n)
                .toList());
      }
      rules.add(rule);
    }
    return rules;
  }

  KubeNamespace namespace() {
    return namespace;
  }

  KubeCluster cluster() {
    return cluster;
  }
}
