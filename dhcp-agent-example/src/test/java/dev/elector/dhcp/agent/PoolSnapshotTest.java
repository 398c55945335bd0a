package dev.elector.dhcp.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.server.Ipv4Cidr;
import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPv4Status;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PoolSnapshotTest {
  private static final MacAddress A = MacAddress.parse("52:54:00:00:00:0a");
  private static final MacAddress B = MacAddress.parse("52:54:00:00:00:0b");

  private static PoolSnapshot read(Map<String, String> allocated) throws Exception {
    return PoolSnapshot.of(Pools.pool("7", allocated), Optional.empty(), Optional.empty());
  }

  @Test
  void servesEveryMacOfTheAllocationTableAndSkipsTheMarkers() throws Exception {
    PoolSnapshot snapshot =
        read(
            Map.of(
                "192.0.2.10", A.toString(),
                "192.0.2.11", B.toString(),
                "192.0.2.1", IPv4Status.RESERVED,
                "192.0.2.254", IPv4Status.RESERVED,
                "192.0.2.20", IPv4Status.EXCLUDED));

    assertEquals(
        Map.of(A, Ipv4Address.parse("192.0.2.10"), B, Ipv4Address.parse("192.0.2.11")),
        snapshot.leases());
    assertEquals(List.of(), snapshot.problems());
    assertEquals("7", snapshot.resourceVersion());
  }

  @Test
  void handsOutThePoolsOptions() throws Exception {
    PoolSnapshot snapshot = read(Map.of());

    assertEquals(Ipv4Address.parse("192.0.2.1"), snapshot.options().serverIp());
    assertEquals(Ipv4Cidr.parse("192.0.2.0/24"), snapshot.options().cidr());
    assertEquals(Optional.of(Ipv4Address.parse("192.0.2.254")), snapshot.options().router());
    assertEquals(List.of(Ipv4Address.parse("192.0.2.53")), snapshot.options().dns());
    assertEquals(Optional.of("example.test"), snapshot.options().domainName());
    assertEquals(List.of("example.test"), snapshot.options().domainSearch());
    assertEquals(List.of(Ipv4Address.parse("192.0.2.123")), snapshot.options().ntp());
    assertEquals(Duration.ofSeconds(600), snapshot.options().leaseTime());
  }

  @Test
  void aPoolWithoutLeaseTimeHandsOutOneDay() throws Exception {
    PoolSnapshot snapshot =
        PoolSnapshot.of(
            Pools.pool("1", Pools.config().leaseTime(null), Map.of()),
            Optional.empty(),
            Optional.empty());

    assertEquals(Duration.ofDays(365), snapshot.options().leaseTime(), "upstream's default");
  }

  @Test
  void skipsAndNamesEveryBadAllocationEntryButServesTheRest() throws Exception {
    Map<String, String> allocated = new LinkedHashMap<>();
    allocated.put("192.0.2.10", A.toString());
    allocated.put("not-an-ip", B.toString());
    allocated.put("192.0.2.12", "zz:zz");
    allocated.put("198.51.100.7", B.toString());
    allocated.put("192.0.2.1", B.toString());

    PoolSnapshot snapshot = read(allocated);

    assertEquals(Map.of(A, Ipv4Address.parse("192.0.2.10")), snapshot.leases());
    assertEquals(4, snapshot.problems().size(), snapshot.problems().toString());
    String all = String.join("\n", snapshot.problems());
    assertTrue(all.contains("'not-an-ip' is not an IPv4 address"), all);
    assertTrue(all.contains("'zz:zz' is not a MAC address"), all);
    assertTrue(all.contains("198.51.100.7 -> " + B + " is outside cidr 192.0.2.0/24"), all);
    assertTrue(all.contains("192.0.2.1 -> " + B + " is the server's own address"), all);
  }

  @Test
  void aMacAllocatedTwiceGetsItsLowestAddressWhateverTheMapOrder() throws Exception {
    Map<String, String> forward = new LinkedHashMap<>();
    forward.put("192.0.2.10", A.toString());
    forward.put("192.0.2.30", A.toString());
    Map<String, String> backward = new LinkedHashMap<>();
    backward.put("192.0.2.30", A.toString());
    backward.put("192.0.2.10", A.toString());

    assertEquals(Ipv4Address.parse("192.0.2.10"), read(forward).leases().get(A));
    assertEquals(Ipv4Address.parse("192.0.2.10"), read(backward).leases().get(A));
    assertTrue(read(forward).problems().get(0).contains("allocated both"));
  }

  @Test
  void badOptionalSettingsAreLeftOutAndNamed() throws Exception {
    PoolSnapshot snapshot =
        PoolSnapshot.of(
            Pools.pool(
                "1",
                Pools.config()
                    .router("198.51.100.1")
                    .dns(List.of("192.0.2.53", "nine"))
                    .ntp(List.of("no such_host!"))
                    .domainName("bücher.test"),
                Map.of()),
            Optional.empty(),
            Optional.empty());

    assertEquals(Optional.empty(), snapshot.options().router());
    assertEquals(List.of(Ipv4Address.parse("192.0.2.53")), snapshot.options().dns());
    assertEquals(List.of(), snapshot.options().ntp());
    assertEquals(Optional.empty(), snapshot.options().domainName());
    assertEquals(List.of("example.test"), snapshot.options().domainSearch());
    assertEquals(4, snapshot.problems().size(), snapshot.problems().toString());
  }

  @Test
  void ntpHostNamesAreResolvedWhenThePoolIsReadAndOneThatDoesNotResolveIsNamed() throws Exception {
    Map<String, List<Ipv4Address>> dns =
        Map.of(
            "pool.ntp.org",
            List.of(
                Ipv4Address.parse("203.0.113.7"),
                Ipv4Address.parse("203.0.113.5"),
                Ipv4Address.parse("203.0.113.6")));
    PoolSnapshot.HostResolver hosts =
        host -> {
          if (!dns.containsKey(host)) {
            throw new java.net.UnknownHostException(host);
          }
          return dns.get(host);
        };
    PoolSnapshot resolved =
        PoolSnapshot.of(
            Pools.pool(
                "1",
                Pools.config().ntp(List.of("192.0.2.123", "pool.ntp.org", "203.0.113.5")),
                Map.of()),
            Optional.empty(),
            Optional.empty(),
            hosts);
    assertEquals(
        List.of(
            Ipv4Address.parse("192.0.2.123"),
            Ipv4Address.parse("203.0.113.5"),
            Ipv4Address.parse("203.0.113.6"),
            Ipv4Address.parse("203.0.113.7")),
        resolved.options().ntp(),
        "sorted, a duplicate once, at most 4");
    assertEquals(List.of(), resolved.problems());

    PoolSnapshot unresolved =
        PoolSnapshot.of(
            Pools.pool("1", Pools.config().ntp(List.of("ntp.invalid", "192.0.2.123")), Map.of()),
            Optional.empty(),
            Optional.empty(),
            hosts);
    assertEquals(List.of(Ipv4Address.parse("192.0.2.123")), unresolved.options().ntp());
    String problem = String.join("\n", unresolved.problems());
    assertTrue(
        problem.contains("ntp host name ntp.invalid does not resolve here")
            && problem.contains("write the servers' IPv4 addresses"),
        problem);
  }

  @Test
  void aPoolWithoutAUsableNetworkCannotBeServedAndSaysWhy() {
    PoolSnapshot.InvalidPoolException noCidr =
        assertThrows(
            PoolSnapshot.InvalidPoolException.class,
            () ->
                PoolSnapshot.of(
                    Pools.pool("1", Pools.config().cidr("192.0.2.0/33"), Map.of()),
                    Optional.empty(),
                    Optional.empty()));
    assertTrue(
        noCidr.getMessage().contains("spec.ipv4Config.cidr '192.0.2.0/33' is invalid"),
        noCidr.getMessage());

    PoolSnapshot.InvalidPoolException outside =
        assertThrows(
            PoolSnapshot.InvalidPoolException.class,
            () ->
                PoolSnapshot.of(
                    Pools.pool("1", Pools.config().serverIP("10.0.0.1"), Map.of()),
                    Optional.empty(),
                    Optional.empty()));
    assertTrue(
        outside.getMessage().contains("serverIP 10.0.0.1 is outside cidr 192.0.2.0/24"),
        outside.getMessage());

    PoolSnapshot.InvalidPoolException noSpec =
        assertThrows(
            PoolSnapshot.InvalidPoolException.class,
            () ->
                PoolSnapshot.of(
                    Pools.pool("1", Map.of()).spec(new IPPoolSpec()),
                    Optional.empty(),
                    Optional.empty()));
    assertTrue(noSpec.getMessage().contains("cidr is missing"), noSpec.getMessage());
    assertTrue(noSpec.getMessage().contains("serverIP is missing"), noSpec.getMessage());
  }

  @Test
  void theAgentsServerIpAndCidrTakePrecedence() throws Exception {
    PoolSnapshot snapshot =
        PoolSnapshot.of(
            Pools.pool("1", Map.of("10.1.0.5", A.toString())),
            Optional.of(Ipv4Address.parse("10.1.0.1")),
            Optional.of(Ipv4Cidr.parse("10.1.0.0/16")));

    assertEquals(Ipv4Address.parse("10.1.0.1"), snapshot.options().serverIp());
    assertEquals(Map.of(A, Ipv4Address.parse("10.1.0.5")), snapshot.leases());
  }

  @Test
  void reportsAPausedPool() throws Exception {
    PoolSnapshot snapshot =
        PoolSnapshot.of(
            Pools.pool("1", Map.of())
                .spec(
                    new IPPoolSpec()
                        .networkName("default/net-48")
                        .paused(true)
                        .ipv4Config(Pools.config())),
            Optional.empty(),
            Optional.empty());

    assertTrue(snapshot.paused());
    assertFalse(read(Map.of()).paused());
  }
}
