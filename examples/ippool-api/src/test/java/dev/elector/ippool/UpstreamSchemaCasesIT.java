package dev.elector.ippool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.dynamic.Dynamics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The validation rules of upstream's CRDs (harvester/vm-dhcp-controller, {@code chart/crds}), one
 * case each, applied to this project's CRDs on a real API server: what upstream refuses is refused
 * here, what upstream accepts is accepted here, and the one rule that differs is a case of its own.
 * Upstream's CEL rules on {@code spec.ipv4Config} (cidr, serverIP, router, range and exclusions
 * immutable) and its {@code format: ipv4} fields are enforced here by the controller's webhook, so
 * that {@code --allow-pool-renumbering} can lift them; the controller's WebhookIT holds those
 * cases.
 */
@dev.elector.testkit.kube.KubeTest
class UpstreamSchemaCasesIT {
  private static final String POOL =
      "{networkName: %s, ipv4Config: {cidr: 10.1.0.0/24, serverIP: 10.1.0.2, %s"
          + " pool: {start: 10.1.0.10, end: 10.1.0.20, exclude: [10.1.0.15]},"
          + " dns: [10.1.0.1], ntp: [pool.ntp.org], leaseTime: 600}}";
  // JSON, which is YAML too, so that the same text serves creates and merge patches
  private static final String NIC =
      "{\"networkName\": \"default/net-48\", \"macAddress\": \"52:54:00:00:00:%02d\"}";

  private static DynamicKubernetesApi pools;
  private static DynamicKubernetesApi configs;
  private static int names;

  @BeforeAll
  static void install(KubeCluster cluster) throws Exception {
    NetworkCrds.install(cluster.admin(), Duration.ofSeconds(30));
    pools =
        new DynamicKubernetesApi(
            NetworkApis.GROUP, NetworkApis.VERSION, NetworkApis.IPPOOLS, cluster.admin());
    configs =
        new DynamicKubernetesApi(
            NetworkApis.GROUP,
            NetworkApis.VERSION,
            NetworkApis.VM_NETWORK_CONFIGS,
            cluster.admin());
  }

  /** A pool spec of upstream's shape; {@code router} is "router: 10.1.0.1," or "". */
  private static String pool(String network, String router) {
    return String.format(POOL, network, router);
  }

  private static String nics(int count) {
    List<String> nics = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      nics.add(String.format(NIC, i));
    }
    return "[" + String.join(", ", nics) + "]";
  }

  private static KubernetesApiResponse<DynamicKubernetesObject> create(
      DynamicKubernetesApi api, String kind, String namespace, String spec) {
    String name = "case-" + ++names;
    return api.create(
        Dynamics.newFromYaml(
            "apiVersion: "
                + NetworkApis.API_VERSION
                + "\nkind: "
                + kind
                + "\nmetadata: {namespace: "
                + namespace
                + ", name: "
                + name
                + "}\nspec: "
                + spec));
  }

  /** Creates the object, then merge-patches its spec with {@code patch} (JSON). */
  private static KubernetesApiResponse<DynamicKubernetesObject> update(
      DynamicKubernetesApi api, String kind, String namespace, String spec, String patch) {
    DynamicKubernetesObject created = create(api, kind, namespace, spec).getObject();
    assertTrue(created != null, kind + " " + spec + " was not stored");
    return api.patch(
        namespace,
        created.getMetadata().getName(),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        new V1Patch("{\"spec\": " + patch + "}"));
  }

  private static void refused(
      String upstreamRule, KubernetesApiResponse<DynamicKubernetesObject> response, String part) {
    assertEquals(422, response.getHttpStatusCode(), upstreamRule + ": " + response.getStatus());
    String message = response.getStatus().getMessage();
    assertTrue(message.contains(part), upstreamRule + ": '" + part + "' missing from " + message);
  }

  private static void accepted(
      String upstreamRule, KubernetesApiResponse<DynamicKubernetesObject> response) {
    assertTrue(response.isSuccess(), upstreamRule + ": " + response.getStatus());
  }

  @Test
  void ipPoolCasesOfUpstreamsSchema(KubeNamespace namespace) {
    String ns = namespace.name();
    String net = ns + "/net";
    String kind = IPPool.KIND;
    accepted("a pool of upstream's shape", create(pools, kind, ns, pool(net, "router: 10.1.0.1,")));
    refused(
        "networkName: self == oldSelf",
        update(pools, kind, ns, pool(net, ""), "{\"networkName\": \"" + ns + "/other\"}"),
        "networkName is immutable");
    refused(
        "networkName: maxLength 64",
        create(pools, kind, ns, pool(ns + "/" + "n".repeat(64 - ns.length()), "")),
        "spec.networkName");
    accepted(
        "networkName: 64 characters",
        create(pools, kind, ns, pool(ns + "/" + "n".repeat(63 - ns.length()), "")));
    refused(
        "dns: maxItems 3",
        update(
            pools,
            kind,
            ns,
            pool(net, ""),
            "{\"ipv4Config\": {\"dns\": [\"1.1.1.1\","
                + " \"1.0.0.1\", \"8.8.8.8\", \"9.9.9.9\"]}}"),
        "spec.ipv4Config.dns");
    refused(
        "ntp: maxItems 4",
        update(
            pools,
            kind,
            ns,
            pool(net, ""),
            "{\"ipv4Config\": {\"ntp\": [\"a\", \"b\", \"c\"," + " \"d\", \"e\"]}}"),
        "spec.ipv4Config.ntp");
    refused(
        "pool: required start and end",
        create(pools, kind, ns, pool(net, "").replace("start: 10.1.0.10, ", "")),
        "spec.ipv4Config.pool.start");
    refused(
        "spec: required networkName",
        create(
            pools,
            kind,
            ns,
            "{ipv4Config: {cidr: 10.1.0.0/24, pool: {start: 10.1.0.10, end:" + " 10.1.0.20}}}"),
        "spec.networkName");
    accepted(
        "router: may be added where there was none",
        update(pools, kind, ns, pool(net, ""), "{\"ipv4Config\": {\"router\": \"10.1.0.1\"}}"));
    accepted(
        "paused, dns, ntp, domainName, leaseTime: mutable",
        update(
            pools,
            kind,
            ns,
            pool(net, ""),
            "{\"paused\": true, \"ipv4Config\": {\"dns\":"
                + " [\"10.1.0.53\"], \"ntp\": [], \"domainName\": \"lab\", \"leaseTime\": 3600}}"));
    // The one difference of the schema (controller-example's parity table says why): upstream
    // has no minimum lease time; a pool stored below it can still be updated where the API
    // server ratchets unchanged fields (on by default since Kubernetes 1.33).
    refused(
        "leaseTime: no minimum upstream; 60 s here",
        create(pools, kind, ns, pool(net, "").replace("leaseTime: 600", "leaseTime: 30")),
        "spec.ipv4Config.leaseTime");
  }

  @Test
  void virtualMachineNetworkConfigCasesOfUpstreamsSchema(KubeNamespace namespace) {
    String ns = namespace.name();
    String kind = VirtualMachineNetworkConfig.KIND;
    accepted(
        "4 NICs: maxItems 4",
        create(configs, kind, ns, "{vmName: vm, networkConfigs: " + nics(4) + "}"));
    refused(
        "networkConfigs: maxItems 4",
        create(configs, kind, ns, "{vmName: vm, networkConfigs: " + nics(5) + "}"),
        "spec.networkConfigs");
    refused(
        "vmName: self == oldSelf",
        update(
            configs,
            kind,
            ns,
            "{vmName: vm, networkConfigs: " + nics(1) + "}",
            "{\"vmName\": \"other\"}"),
        "vmName is immutable");
    refused(
        "vmName: maxLength 64",
        create(
            configs, kind, ns, "{vmName: " + "v".repeat(65) + ", networkConfigs: " + nics(1) + "}"),
        "spec.vmName");
    refused(
        "spec: required vmName",
        create(configs, kind, ns, "{networkConfigs: " + nics(1) + "}"),
        "spec.vmName");
    refused(
        "macAddress: maxLength 17",
        create(
            configs,
            kind,
            ns,
            "{vmName: vm, networkConfigs: [{networkName: default/net-48,"
                + " macAddress: '52:54:00:00:00:001'}]}"),
        "macAddress");
    refused(
        "networkName: maxLength 64",
        create(
            configs,
            kind,
            ns,
            "{vmName: vm, networkConfigs: [{networkName: default/"
                + "n".repeat(57)
                + ", macAddress: '52:54:00:00:00:01'}]}"),
        "networkName");
    refused(
        "networkConfigs: required macAddress",
        create(configs, kind, ns, "{vmName: vm, networkConfigs: [{networkName: default/net-48}]}"),
        "macAddress");
    accepted(
        "paused and the NICs: mutable",
        update(
            configs,
            kind,
            ns,
            "{vmName: vm, networkConfigs: " + nics(1) + "}",
            "{\"paused\": true, \"networkConfigs\": " + nics(2) + "}"));
  }
}
