package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPPoolStatus;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.IPv4Status;
import dev.elector.ippool.Pool;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfig;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AdmissionReviewsTest {
  private final List<IPPool> pools = new ArrayList<>();
  private final List<VirtualMachineNetworkConfig> configs = new ArrayList<>();
  private final java.util.Set<String> missingNetworks = new java.util.HashSet<>();

  /** The reviews as the controller answers them by default: upstream's fields immutable. */
  private AdmissionReviews reviews = reviews(false);

  private AdmissionReviews reviews(boolean renumbering) {
    return new AdmissionReviews(
        network ->
            pools.stream().filter(p -> p.getSpec().getNetworkName().equals(network)).toList(),
        network ->
            configs.stream()
                .filter(
                    c ->
                        c.getSpec().getNetworkConfigs().stream()
                            .anyMatch(n -> n.getNetworkName().equals(network)))
                .toList(),
        Cidr.parse("10.53.0.0/16").orElseThrow(),
        renumbering,
        network ->
            missingNetworks.contains(network)
                ? java.util.Optional.of(
                    "NetworkAttachmentDefinition " + network + " does not exist")
                : java.util.Optional.empty());
  }

  private static IPPool pool(IPPoolSpec spec) {
    return new IPPool().metadata(new V1ObjectMeta().namespace("ns").name("p")).spec(spec);
  }

  private static IPPool good() {
    return pool(PoolValidationTest.good());
  }

  private static String request(String kind, String operation, Object object, Object old) {
    JsonObject request = new JsonObject();
    request.addProperty("uid", "u-1");
    JsonObject k = new JsonObject();
    k.addProperty("group", "network.harvesterhci.io");
    k.addProperty("version", "v1alpha1");
    k.addProperty("kind", kind);
    request.add("kind", k);
    request.addProperty("operation", operation);
    request.addProperty("namespace", "ns");
    request.addProperty("name", "p");
    if (object != null) {
      request.add("object", JsonParser.parseString(JSON.serialize(object)));
    }
    if (old != null) {
      request.add("oldObject", JsonParser.parseString(JSON.serialize(old)));
    }
    JsonObject review = new JsonObject();
    review.addProperty("apiVersion", "admission.k8s.io/v1");
    review.addProperty("kind", "AdmissionReview");
    review.add("request", request);
    return review.toString();
  }

  private JsonObject validate(String kind, String operation, Object object, Object old) {
    JsonObject out =
        JsonParser.parseString(
                reviews.answer(AdmissionReviews.VALIDATE, request(kind, operation, object, old)))
            .getAsJsonObject();
    assertEquals("AdmissionReview", out.get("kind").getAsString());
    JsonObject response = out.getAsJsonObject("response");
    assertEquals("u-1", response.get("uid").getAsString());
    return response;
  }

  private void refused(JsonObject response, String... inMessage) {
    assertFalse(response.get("allowed").getAsBoolean(), response.toString());
    String message = response.getAsJsonObject("status").get("message").getAsString();
    for (String part : inMessage) {
      assertTrue(message.contains(part), "'" + part + "' missing from: " + message);
    }
  }

  @Test
  void aGoodPoolIsAllowed() {
    assertTrue(validate("IPPool", "CREATE", good(), null).get("allowed").getAsBoolean());
  }

  @Test
  void everyRuleOfThePoolIsAppliedAtCreateIncludingThoseAStoredPoolIsSpared() {
    refused(
        validate(
            "IPPool",
            "CREATE",
            pool(
                PoolValidationTest.spec(
                    "192.168.50.0/24",
                    "192.168.50.1",
                    "192.168.50.1",
                    "192.168.50.0",
                    "192.168.50.255")),
            null),
        "IPPool ns/p is refused: ",
        "serverIP 192.168.50.1 is the router's address",
        "includes the network address 192.168.50.0",
        "includes the broadcast address 192.168.50.255");
    refused(
        validate(
            "IPPool",
            "CREATE",
            pool(
                PoolValidationTest.spec(
                    "10.53.1.0/24", "10.53.1.2", null, "10.53.1.10", "10.53.1.20")),
            null),
        "overlaps the cluster's service CIDR 10.53.0.0/16");
  }

  @Test
  void anUpdateThatLeavesTheSpecAloneAlwaysPasses() {
    IPPool stored =
        pool(
            PoolValidationTest.spec(
                "192.168.50.0/24", "192.168.50.2", null, "192.168.50.0", "192.168.50.255"));
    IPPool withFinalizer = KubeObjects.copy(stored, IPPool.class);
    withFinalizer.getMetadata().finalizers(List.of("x"));
    assertTrue(validate("IPPool", "UPDATE", withFinalizer, stored).get("allowed").getAsBoolean());
  }

  @Test
  void upstreamsImmutableFieldsKeepTheirValuesOnUpdate() {
    IPPool stored = good();
    for (var change :
        List.<java.util.function.Consumer<IPPool>>of(
            p -> p.getSpec().getIpv4Config().cidr("192.168.0.0/23"),
            p -> p.getSpec().getIpv4Config().serverIP("192.168.0.3"),
            p -> p.getSpec().getIpv4Config().router("192.168.0.254"),
            p -> p.getSpec().getIpv4Config().router(null),
            p -> p.getSpec().getIpv4Config().getPool().start("192.168.0.11"),
            p -> p.getSpec().getIpv4Config().getPool().end("192.168.0.19"),
            p -> p.getSpec().getIpv4Config().getPool().exclude(List.of("192.168.0.16")),
            p -> p.getSpec().getIpv4Config().getPool().exclude(null))) {
      IPPool changed = KubeObjects.copy(stored, IPPool.class);
      change.accept(changed);
      refused(
          validate("IPPool", "UPDATE", changed, stored),
          "immutable, as in upstream's API",
          "--allow-pool-renumbering");
    }
    IPPool both = KubeObjects.copy(stored, IPPool.class);
    both.getSpec().getIpv4Config().serverIP("192.168.0.3").router(null);
    refused(
        validate("IPPool", "UPDATE", both, stored),
        "spec.ipv4Config serverIP (192.168.0.2, sent 192.168.0.3), router (192.168.0.1, sent"
            + " none) are immutable");

    // a router or exclusions may be added where there were none, and the rest may change
    IPPool bare =
        pool(
            PoolValidationTest.spec(
                "192.168.0.0/24", "192.168.0.2", null, "192.168.0.10", "192.168.0.20"));
    IPPool added = KubeObjects.copy(bare, IPPool.class);
    added
        .getSpec()
        .getIpv4Config()
        .router("192.168.0.1")
        .getPool()
        .exclude(List.of("192.168.0.15"));
    added.getSpec().paused(true).getIpv4Config().leaseTime(600).dns(List.of("192.168.0.53"));
    assertTrue(validate("IPPool", "UPDATE", added, bare).get("allowed").getAsBoolean());
  }

  @Test
  void withRenumberingAllowedAStoredPoolMayChangeItsAddresses() {
    reviews = reviews(true);
    IPPool stored = good();
    IPPool renumbered = KubeObjects.copy(stored, IPPool.class);
    renumbered.getSpec().getIpv4Config().cidr("192.168.0.0/23").serverIP("192.168.1.2");
    renumbered.getSpec().getIpv4Config().getPool().end("192.168.1.250").exclude(List.of());
    assertTrue(
        validate("IPPool", "UPDATE", renumbered, stored).get("allowed").getAsBoolean(),
        () -> validate("IPPool", "UPDATE", renumbered, stored).toString());
  }

  @Test
  void anUpdateMovingServerIPOntoAnAllocatedAddressIsRefused() {
    reviews = reviews(true);
    IPPool stored = good();
    stored.status(
        new IPPoolStatus()
            .ipv4(new IPv4Status().allocated(Map.of("192.168.0.11", "52:54:00:00:00:01"))));
    IPPool moved = KubeObjects.copy(stored, IPPool.class);
    moved.getSpec().getIpv4Config().serverIP("192.168.0.11");
    refused(
        validate("IPPool", "UPDATE", moved, stored),
        "spec.ipv4Config.serverIP 192.168.0.11 is allocated to MAC 52:54:00:00:00:01");
  }

  private static VirtualMachineNetworkConfig config(String network, String mac, String ip) {
    return new VirtualMachineNetworkConfig()
        .metadata(new V1ObjectMeta().namespace("ns").name("vm"))
        .spec(
            new VirtualMachineNetworkConfig.Spec()
                .vmName("vm")
                .networkConfigs(
                    List.of(
                        new NetworkConfig().networkName(network).macAddress(mac).ipAddress(ip))));
  }

  @Test
  void aPoolInUseCannotBeDeleted() {
    IPPool p = good();
    assertTrue(validate("IPPool", "DELETE", null, p).get("allowed").getAsBoolean());
    configs.add(config("default/vlan-100", "52:54:00:00:00:01", null));
    JsonObject response = validate("IPPool", "DELETE", null, p);
    refused(
        response,
        "IPPool ns/p is still used by VirtualMachineNetworkConfig(s) ns/vm on network"
            + " default/vlan-100",
        "delete them (or their VirtualMachines)");
    assertEquals(409, response.getAsJsonObject("status").get("code").getAsInt());
  }

  /** A stored pool {@code namespace/name} on default/vlan-100, created at {@code created}. */
  private static IPPool stored(String namespace, String name, String created) {
    IPPool p = pool(PoolValidationTest.good());
    p.getMetadata()
        .namespace(namespace)
        .name(name)
        .creationTimestamp(java.time.OffsetDateTime.parse(created));
    return p;
  }

  @Test
  void aSecondPoolOnAServedNetworkIsRefusedNamingThePoolThatServesIt() {
    pools.add(stored("tenant-b", "vlan100", "2026-01-01T00:00:00Z"));
    refused(
        validate("IPPool", "CREATE", good(), null),
        "IPPool ns/p is refused: ",
        "spec.networkName default/vlan-100 is already served by IPPool tenant-b/vlan100",
        "set spec.networkName to a network no IPPool serves");
  }

  @Test
  void aPoolMayNotMoveOntoAServedNetworkButTheServingPoolMayChange() {
    reviews = reviews(true);
    IPPool elsewhere = stored("ns", "p", "2026-02-01T00:00:00Z");
    elsewhere.getSpec().networkName("default/vlan-200");
    IPPool moved = stored("ns", "p", "2026-02-01T00:00:00Z");
    pools.add(stored("tenant-b", "vlan100", "2026-01-01T00:00:00Z"));
    refused(
        validate("IPPool", "UPDATE", moved, elsewhere),
        "is already served by IPPool tenant-b/vlan100");

    // the older pool is the one that serves: its own changes pass, even beside a duplicate
    pools.clear();
    IPPool serving = stored("ns", "p", "2025-12-01T00:00:00Z");
    pools.add(serving);
    pools.add(stored("tenant-b", "vlan100", "2026-01-01T00:00:00Z"));
    IPPool changed = stored("ns", "p", "2025-12-01T00:00:00Z");
    changed.getSpec().getIpv4Config().getPool().exclude(List.of("192.168.0.16"));
    assertTrue(
        validate("IPPool", "UPDATE", changed, serving).get("allowed").getAsBoolean(),
        "the pool that serves the network is not refused because of a newer one");
  }

  @Test
  void aDuplicateThatGotInIsDeletableAndTheNetworksConfigsGoToTheServingPool() {
    IPPool serving = stored("tenant-b", "vlan100", "2026-01-01T00:00:00Z");
    IPPool duplicate = stored("ns", "p", "2026-03-01T00:00:00Z");
    pools.add(duplicate);
    pools.add(serving);
    configs.add(config("default/vlan-100", "52:54:00:00:00:01", null));
    assertTrue(
        validate("IPPool", "DELETE", null, duplicate).get("allowed").getAsBoolean(),
        "the configs on the network are the serving pool's, not the duplicate's");
    refused(validate("IPPool", "DELETE", null, serving), "still used by");
    assertTrue(
        validate(
                "VirtualMachineNetworkConfig",
                "CREATE",
                config("default/vlan-100", "52:54:00:00:00:02", null),
                null)
            .get("allowed")
            .getAsBoolean(),
        "a new config on the network is served by the older pool");
  }

  @Test
  void aConfigNeedsAPoolOnEachNetworkAndWellFormedNics() {
    refused(
        validate(
            "VirtualMachineNetworkConfig",
            "CREATE",
            config("default/vlan-100", "52:54:00:00:00:01", null),
            null),
        "spec.networkConfigs[0].networkName 'default/vlan-100' is served by no IPPool");
    pools.add(good());
    assertTrue(
        validate(
                "VirtualMachineNetworkConfig",
                "CREATE",
                config("default/vlan-100", "52:54:00:00:00:01", null),
                null)
            .get("allowed")
            .getAsBoolean());
    refused(
        validate(
            "VirtualMachineNetworkConfig",
            "CREATE",
            config("default/vlan-100", "52:54:00:00:00", "10.0.0.300"),
            null),
        "spec.networkConfigs[0].macAddress '52:54:00:00:00' is not a MAC address",
        "spec.networkConfigs[0].ipAddress '10.0.0.300' is not an IPv4 address");
  }

  @Test
  void aNewPoolWithoutServerIPOrRangeGetsThemFilledIn() {
    IPPool bare =
        pool(
            new IPPoolSpec()
                .networkName("default/vlan-100")
                .ipv4Config(
                    new IPv4Config()
                        .cidr("192.168.7.0/24")
                        .router("192.168.7.1")
                        .pool(new Pool().exclude(List.of("192.168.7.2")))));
    JsonObject response =
        JsonParser.parseString(
                reviews.answer(AdmissionReviews.MUTATE, request("IPPool", "CREATE", bare, null)))
            .getAsJsonObject()
            .getAsJsonObject("response");
    assertTrue(response.get("allowed").getAsBoolean());
    assertEquals("JSONPatch", response.get("patchType").getAsString());
    JsonArray patch =
        JsonParser.parseString(
                new String(
                    Base64.getDecoder().decode(response.get("patch").getAsString()),
                    StandardCharsets.UTF_8))
            .getAsJsonArray();
    assertEquals(
        JsonParser.parseString(
            "[{\"op\":\"add\",\"path\":\"/spec/ipv4Config/pool\",\"value\":{\"start\":\"192.168.7.1\","
                + "\"end\":\"192.168.7.254\",\"exclude\":[\"192.168.7.2\"]}},"
                + "{\"op\":\"add\",\"path\":\"/spec/ipv4Config/serverIP\",\"value\":\"192.168.7.3\"}]"),
        patch);
    JsonObject complete =
        JsonParser.parseString(
                reviews.answer(AdmissionReviews.MUTATE, request("IPPool", "CREATE", good(), null)))
            .getAsJsonObject()
            .getAsJsonObject("response");
    assertFalse(complete.has("patch"), "nothing to fill in: " + complete);
  }

  @Test
  void aSlash31Or32PoolIsRefusedBeforeTheSchemaAsksForWhatCannotBeFilledIn() {
    for (String cidr : List.of("192.168.220.4/31", "192.168.220.5/32")) {
      IPPool bare =
          pool(
              new IPPoolSpec()
                  .networkName("default/vlan-100")
                  .ipv4Config(new IPv4Config().cidr(cidr)));
      JsonObject response =
          JsonParser.parseString(
                  reviews.answer(AdmissionReviews.MUTATE, request("IPPool", "CREATE", bare, null)))
              .getAsJsonObject()
              .getAsJsonObject("response");
      refused(
          response,
          "IPPool ns/p is refused: spec.ipv4Config.cidr 192.168.220.",
          "use a /30 or larger, for example 192.168.220.0/29");
      assertFalse(response.has("patch"), response.toString());
    }
  }

  @Test
  void aNewPoolNeedsItsNetworkAsUpstreamsWebhookSaysButAStoredOneIsNotAskedAgain() {
    missingNetworks.add("default/vlan-100");
    refused(
        validate("IPPool", "CREATE", good(), null),
        "NetworkAttachmentDefinition default/vlan-100 does not exist");
    IPPool stored = good();
    IPPool paused = good();
    paused.getSpec().paused(true);
    assertTrue(
        validate("IPPool", "UPDATE", paused, stored).get("allowed").getAsBoolean(),
        "the network of a stored pool is its NetworkReady condition's business");

    AdmissionReviews anyOrder =
        new AdmissionReviews(
            network -> List.of(),
            network -> List.of(),
            Cidr.parse("10.53.0.0/16").orElseThrow(),
            false,
            null);
    assertTrue(
        JsonParser.parseString(
                anyOrder.answer(
                    AdmissionReviews.VALIDATE, request("IPPool", "CREATE", good(), null)))
            .getAsJsonObject()
            .getAsJsonObject("response")
            .get("allowed")
            .getAsBoolean(),
        "--allow-pool-before-network admits it");
  }

  @Test
  void aBodyThatIsNoReviewOrAnUnknownPathIsABadRequest() {
    assertThrows(IllegalArgumentException.class, () -> reviews.answer("/validate", "{}"));
    assertThrows(
        IllegalArgumentException.class,
        () -> reviews.answer("/other", request("IPPool", "CREATE", good(), null)));
  }
}
