package dev.elector.ippool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The CRDs on a real API server: install, typed CRUD, status subresource, schema rules. */
@dev.elector.testkit.kube.KubeTest
class NetworkCrdsIT {

  @BeforeAll
  static void install(KubeCluster cluster) throws Exception {
    NetworkCrds.install(cluster.admin(), Duration.ofSeconds(30));
    NetworkCrds.install(cluster.admin(), Duration.ofSeconds(30)); // idempotent
  }

  private static IPPool pool(String namespace, String name) {
    return new IPPool()
        .metadata(new V1ObjectMeta().namespace(namespace).name(name))
        .spec(
            new IPPoolSpec()
                .networkName(namespace + "/" + name)
                .ipv4Config(
                    new IPv4Config()
                        .cidr("10.1.0.0/24")
                        .serverIP("10.1.0.2")
                        .router("10.1.0.1")
                        .pool(new Pool().start("10.1.0.10").end("10.1.0.20"))
                        .dns(List.of("10.1.0.1"))
                        .leaseTime(600)));
  }

  private static <T extends io.kubernetes.client.common.KubernetesType> T ok(
      KubernetesApiResponse<T> response) throws ApiException {
    return response.throwsApiException().getObject();
  }

  @Test
  void createsReadsAndUpdatesStatusThroughTheTypedApi(KubeCluster cluster, KubeNamespace namespace)
      throws Exception {
    GenericKubernetesApi<IPPool, IPPoolList> api = NetworkApis.ipPools(cluster.admin());
    IPPool created = ok(api.create(pool(namespace.name(), "crud")));
    assertEquals(pool(namespace.name(), "crud").getSpec(), created.getSpec());

    created.status(
        new IPPoolStatus()
            .ipv4(
                new IPv4Status()
                    .allocated(Map.of("10.1.0.2", IPv4Status.RESERVED))
                    .used(0)
                    .available(10)));
    IPPool withStatus = NetworkApis.replaceStatus(cluster.admin(), created);
    assertEquals(created.getStatus(), withStatus.getStatus());
    ApiException stale =
        assertThrows(ApiException.class, () -> NetworkApis.replaceStatus(cluster.admin(), created));
    assertEquals(409, stale.getCode());

    IPPool read = ok(api.get(namespace.name(), "crud"));
    assertEquals(Map.of("10.1.0.2", "RESERVED"), read.getStatus().getIpv4().getAllocated());
    assertTrue(
        ok(api.list(namespace.name())).getItems().stream()
            .anyMatch(p -> "crud".equals(p.getMetadata().getName())));
  }

  @Test
  void theSchemaRejectsAChangedNetworkNameAndTooManyDnsServers(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    GenericKubernetesApi<IPPool, IPPoolList> api = NetworkApis.ipPools(cluster.admin());
    IPPool created = ok(api.create(pool(namespace.name(), "rules")));

    created.getSpec().networkName("other/net");
    KubernetesApiResponse<IPPool> immutable = api.update(created);
    assertEquals(422, immutable.getHttpStatusCode());
    assertTrue(
        immutable.getStatus().getMessage().contains("networkName is immutable"),
        immutable.getStatus().getMessage());

    IPPool tooManyDns = pool(namespace.name(), "dns");
    tooManyDns.getSpec().getIpv4Config().dns(List.of("1.1.1.1", "1.0.0.1", "8.8.8.8", "9.9.9.9"));
    assertEquals(422, api.create(tooManyDns).getHttpStatusCode());
  }

  @Test
  void storesAVirtualMachineNetworkConfig(KubeCluster cluster, KubeNamespace namespace)
      throws Exception {
    var api = NetworkApis.vmNetworkConfigs(cluster.admin());
    VirtualMachineNetworkConfig config =
        new VirtualMachineNetworkConfig()
            .metadata(new V1ObjectMeta().namespace(namespace.name()).name("vm-1"))
            .spec(
                new VirtualMachineNetworkConfig.Spec()
                    .vmName("vm-1")
                    .networkConfigs(
                        List.of(
                            new VirtualMachineNetworkConfig.NetworkConfig()
                                .networkName("default/net")
                                .macAddress("52:54:00:00:00:01"))));
    VirtualMachineNetworkConfig created = ok(api.create(config));
    assertEquals(config.getSpec(), created.getSpec());
  }

  @Test
  void theUpstreamSpellingNetworkConfigIsAnAliasButNotBesideNetworkConfigs(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    var raw =
        new io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi(
            NetworkApis.GROUP,
            NetworkApis.VERSION,
            NetworkApis.VM_NETWORK_CONFIGS,
            cluster.admin());
    String nic = "[{macAddress: 'fa:cf:8e:50:82:fc', networkName: default/net-48}]";
    java.util.function.Function<String, String> config =
        spec ->
            "apiVersion: "
                + NetworkApis.API_VERSION
                + "\nkind: VirtualMachineNetworkConfig\nmetadata: {namespace: "
                + namespace.name()
                + ", name: c"
                + Math.abs(spec.hashCode())
                + "}\nspec: "
                + spec;
    var alias =
        raw.create(
            io.kubernetes.client.util.generic.dynamic.Dynamics.newFromYaml(
                config.apply("{vmName: a, networkConfig: " + nic + "}")));
    assertTrue(alias.isSuccess(), String.valueOf(alias.getStatus()));
    var both =
        raw.create(
            io.kubernetes.client.util.generic.dynamic.Dynamics.newFromYaml(
                config.apply(
                    "{vmName: b, networkConfig: " + nic + ", networkConfigs: " + nic + "}")));
    assertEquals(422, both.getHttpStatusCode());
    assertTrue(
        both.getStatus().getMessage().contains("write only one of them"),
        both.getStatus().getMessage());
    var neither =
        raw.create(
            io.kubernetes.client.util.generic.dynamic.Dynamics.newFromYaml(
                config.apply("{vmName: n}")));
    assertEquals(422, neither.getHttpStatusCode());
    assertTrue(
        neither.getStatus().getMessage().contains("spec.networkConfigs is required"),
        neither.getStatus().getMessage());
  }
}
