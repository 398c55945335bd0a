package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.Pool;
import java.util.List;
import org.junit.jupiter.api.Test;

class PoolValidationTest {

  static IPPoolSpec spec(
      String cidr, String server, String router, String start, String end, String... exclude) {
    return new IPPoolSpec()
        .networkName("default/vlan-100")
        .ipv4Config(
            new IPv4Config()
                .cidr(cidr)
                .serverIP(server)
                .router(router)
                .pool(new Pool().start(start).end(end).exclude(List.of(exclude))));
  }

  static IPPoolSpec good() {
    return spec(
        "192.168.0.0/24",
        "192.168.0.2",
        "192.168.0.1",
        "192.168.0.10",
        "192.168.0.20",
        "192.168.0.15");
  }

  private static void rejects(IPPoolSpec spec, String reason, String... inMessage) {
    PoolValidation v = PoolValidation.validate(spec);
    assertFalse(v.isValid(), "should be invalid: " + spec);
    assertEquals(reason, v.reason(), v.message());
    for (String part : inMessage) {
      assertTrue(v.message().contains(part), "'" + part + "' missing from: " + v.message());
    }
  }

  @Test
  void aGoodSpecGivesItsNumericLayout() {
    PoolValidation v = PoolValidation.validate(good());
    assertTrue(v.isValid(), v.message());
    PoolLayout layout = v.layout();
    assertEquals("192.168.0.0/24", layout.cidr().toString());
    assertEquals(11, layout.rangeSize());
    assertEquals("192.168.0.10-192.168.0.20", layout.range());
    assertEquals(List.of(Ipv4.parse("192.168.0.15").orElseThrow()), List.copyOf(layout.excluded()));
  }

  @Test
  void aSlash31Or32HasNoRoomForAPoolAndSaysWhichSubnetWould() {
    rejects(
        spec("192.168.220.4/31", "192.168.220.4", null, "192.168.220.5", "192.168.220.5"),
        "CIDRTooSmall",
        "spec.ipv4Config.cidr 192.168.220.4/31 holds only its network and broadcast addresses",
        "use a /30 or larger, for example 192.168.220.0/29");
    rejects(
        spec("192.168.220.5/32", "192.168.220.5", null, "192.168.220.5", "192.168.220.5"),
        "CIDRTooSmall",
        "spec.ipv4Config.cidr 192.168.220.5/32 is a single address");
    PoolValidation v =
        PoolValidation.validate(
            spec("192.168.220.4/31", "192.168.220.4", null, "192.168.220.5", "192.168.220.5"));
    assertFalse(
        v.message().contains("between"), "no advice to use an address between: " + v.message());
    assertTrue(
        PoolValidation.validate(
                spec("192.168.220.4/30", "192.168.220.5", null, "192.168.220.6", "192.168.220.6"))
            .isValid(),
        "a /30 holds a server and one client");
  }

  @Test
  void theRouterIsOptional() {
    assertTrue(
        PoolValidation.validate(spec("10.0.0.0/8", "10.0.0.2", null, "10.0.1.0", "10.0.1.255"))
            .isValid());
  }

  @Test
  void anInvalidCidrIsReportedWithAnExample() {
    rejects(
        spec("192.168.0.0/33", "192.168.0.2", null, "192.168.0.10", "192.168.0.20"),
        "InvalidCIDR",
        "spec.ipv4Config.cidr '192.168.0.0/33'",
        "192.168.0.0/24");
    rejects(
        spec("192.168.0.0", "192.168.0.2", null, "192.168.0.10", "192.168.0.20"), "InvalidCIDR");
  }

  @Test
  void aServerIPOutsideTheCidrIsReported() {
    rejects(
        spec("192.168.0.0/24", "192.168.1.2", null, "192.168.0.10", "192.168.0.20"),
        "ServerIPOutsideCIDR",
        "serverIP 192.168.1.2 is outside spec.ipv4Config.cidr" + " 192.168.0.0/24");
  }

  @Test
  void aRouterOutsideTheCidrIsReported() {
    rejects(
        spec("192.168.0.0/24", "192.168.0.2", "10.0.0.1", "192.168.0.10", "192.168.0.20"),
        "RouterOutsideCIDR",
        "router 10.0.0.1");
  }

  @Test
  void aRangeOutsideTheCidrIsReported() {
    rejects(
        spec("192.168.0.0/24", "192.168.0.2", null, "192.168.0.10", "192.168.1.20"),
        "PoolRangeOutsideCIDR",
        "pool.end 192.168.1.20");
  }

  @Test
  void aReversedRangeIsReported() {
    rejects(
        spec("192.168.0.0/24", "192.168.0.2", null, "192.168.0.20", "192.168.0.10"),
        "PoolRangeReversed",
        "pool.start 192.168.0.20 is after pool.end 192.168.0.10; swap them");
  }

  @Test
  void anExclusionOutsideTheRangeIsReported() {
    rejects(
        spec("192.168.0.0/24", "192.168.0.2", null, "192.168.0.10", "192.168.0.20", "192.168.0.30"),
        "ExclusionOutsideRange",
        "exclude entry 192.168.0.30 is outside the pool" + " range 192.168.0.10-192.168.0.20");
  }

  @Test
  void malformedAddressesAreReportedByField() {
    rejects(
        spec("192.168.0.0/24", "192.168.0.300", null, "192.168.0.10", "192.168.0.20"),
        "InvalidServerIP",
        "serverIP '192.168.0.300' is not an IPv4 address");
    rejects(
        spec("192.168.0.0/24", "192.168.0.2", "gateway", "192.168.0.10", "192.168.0.20"),
        "InvalidRouter");
    rejects(
        spec("192.168.0.0/24", "192.168.0.2", null, "192.168.0.010", "192.168.0.20"),
        "InvalidPoolRange");
    rejects(
        spec("192.168.0.0/24", "192.168.0.2", null, "192.168.0.10", "192.168.0.20", "x"),
        "InvalidExclusion");
  }

  @Test
  void aNetworkNameMustBeNamespaceSlashName() {
    rejects(good().networkName("vlan-100"), "InvalidNetworkName", "NAMESPACE/NAME");
  }

  @Test
  void everyProblemIsListedAndTheFirstGivesTheReason() {
    PoolValidation v =
        PoolValidation.validate(
            spec("192.168.0.0/24", "10.0.0.2", "10.0.0.1", "192.168.0.20", "192.168.0.10"));
    assertEquals(
        List.of("ServerIPOutsideCIDR", "RouterOutsideCIDR", "PoolRangeReversed"),
        v.problems().stream().map(PoolValidation.Problem::reason).toList());
  }

  @Test
  void aRangeIncludingTheNetworkOrBroadcastAddressIsRefusedAtAdmissionButToleratedWhenStored() {
    PoolValidation v =
        PoolValidation.validate(
            spec(
                "192.168.50.0/24",
                "192.168.50.2",
                "192.168.50.1",
                "192.168.50.0",
                "192.168.50.255"));
    assertEquals(
        List.of("PoolRangeIncludesNetworkAddress", "PoolRangeIncludesBroadcastAddress"),
        v.problems().stream().map(PoolValidation.Problem::reason).toList());
    assertTrue(v.isValid(), "a stored pool stays usable: " + v.message());
    assertEquals(2, v.tolerated().size());
    assertTrue(
        v.message()
            .contains(
                "spec.ipv4Config.pool 192.168.50.0-192.168.50.255 includes the network address"
                    + " 192.168.50.0 of 192.168.50.0/24, which is never leased; set pool.start to"
                    + " 192.168.50.1 or later"),
        v.message());
    assertTrue(
        v.message().contains("the broadcast address 192.168.50.255")
            || v.message().contains("includes the broadcast address 192.168.50.255"),
        v.message());
    assertTrue(v.message().contains("set pool.end to 192.168.50.254 or earlier"), v.message());
  }

  @Test
  void aRangeOfOnlyTheNetworkAddressIsRefused() {
    rejects(
        spec("192.168.50.0/24", "192.168.50.2", null, "192.168.50.0", "192.168.50.0"),
        "PoolRangeEmpty",
        "holds only the network or broadcast address of 192.168.50.0/24; widen the range");
  }

  @Test
  void aServerIPOrRouterOnTheNetworkOrBroadcastAddressIsRefused() {
    rejects(
        spec("192.168.0.0/24", "192.168.0.0", null, "192.168.0.10", "192.168.0.20"),
        "ServerIPNotUsable",
        "spec.ipv4Config.serverIP 192.168.0.0 is the network address of 192.168.0.0/24; use an"
            + " address between 192.168.0.1 and 192.168.0.254");
    rejects(
        spec("192.168.0.0/24", "192.168.0.255", null, "192.168.0.10", "192.168.0.20"),
        "ServerIPNotUsable",
        "serverIP 192.168.0.255 is the broadcast address");
    rejects(
        spec("192.168.0.0/24", "192.168.0.2", "192.168.0.0", "192.168.0.10", "192.168.0.20"),
        "RouterNotUsable",
        "spec.ipv4Config.router 192.168.0.0 is the network address");
    rejects(
        spec("192.168.0.0/24", "192.168.0.2", "192.168.0.255", "192.168.0.10", "192.168.0.20"),
        "RouterNotUsable",
        "router 192.168.0.255 is the broadcast address");
  }

  @Test
  void aServerIPEqualToTheRouterIsRefused() {
    rejects(
        spec("192.168.0.0/24", "192.168.0.1", "192.168.0.1", "192.168.0.10", "192.168.0.20"),
        "ServerIPIsRouter",
        "spec.ipv4Config.serverIP 192.168.0.1 is the router's address",
        "give serverIP a free address of the subnet, or leave it out");
  }

  @Test
  void anExcludedServerIPIsRefused() {
    rejects(
        spec(
            "192.168.0.0/24",
            "192.168.0.12",
            "192.168.0.1",
            "192.168.0.10",
            "192.168.0.20",
            "192.168.0.12"),
        "ServerIPExcluded",
        "spec.ipv4Config.serverIP 192.168.0.12 is listed in spec.ipv4Config.pool.exclude");
  }

  @Test
  void aCidrOverlappingTheServiceCidrIsRefusedOnlyWhenOneIsConfigured() {
    IPPoolSpec overlapping = spec("10.53.8.0/24", "10.53.8.2", null, "10.53.8.10", "10.53.8.20");
    PoolValidation v =
        PoolValidation.validate(overlapping, Cidr.parse("10.53.0.0/16").orElseThrow());
    assertFalse(v.isValid());
    assertEquals("CIDROverlapsServiceCIDR", v.reason());
    assertTrue(
        v.message()
            .contains(
                "spec.ipv4Config.cidr 10.53.8.0/24 overlaps the cluster's service CIDR"
                    + " 10.53.0.0/16 (--service-cidr); choose a subnet outside it"),
        v.message());
    assertTrue(
        PoolValidation.validate(
                spec("10.52.0.0/16", "10.52.0.2", null, "10.52.0.10", "10.52.0.20"),
                Cidr.parse("10.53.0.0/16").orElseThrow())
            .isValid());
    assertTrue(PoolValidation.validate(overlapping).isValid());
  }
}
