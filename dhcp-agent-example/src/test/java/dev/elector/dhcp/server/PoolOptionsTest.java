package dev.elector.dhcp.server;

import static dev.elector.dhcp.server.Fixtures.ip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.dhcp.codec.MacAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PoolOptionsTest {
  @Test
  void derivesTheSubnetMaskFromTheCidr() {
    PoolOptions pool =
        PoolOptions.builder().serverIp(ip("10.1.0.1")).cidr(Ipv4Cidr.parse("10.1.0.0/20")).build();

    assertEquals(ip("255.255.240.0"), pool.subnetMask());
    assertEquals(Duration.ofDays(365), pool.leaseTime(), "the one default, IPv4Config's");
  }

  @Test
  void reportsEveryViolationAtOnceWithTheFix() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                PoolOptions.builder()
                    .serverIp(ip("192.0.3.1"))
                    .cidr(Ipv4Cidr.parse("192.0.2.0/24"))
                    .router(ip("10.0.0.1"))
                    .dns(List.of(ip("1.1.1.1"), ip("1.1.1.2"), ip("1.1.1.3"), ip("1.1.1.4")))
                    .ntp(
                        List.of(
                            ip("1.1.1.1"),
                            ip("1.1.1.2"),
                            ip("1.1.1.3"),
                            ip("1.1.1.4"),
                            ip("1.1.1.5")))
                    .leaseTime(Duration.ZERO)
                    .domainSearch(List.of("a..b"))
                    .build());

    String message = e.getMessage();
    assertTrue(
        message.contains(
            "serverIp 192.0.3.1 is outside cidr 192.0.2.0/24; pick an address inside it"),
        message);
    assertTrue(message.contains("router 10.0.0.1 is outside cidr"), message);
    assertTrue(message.contains("dns lists 4 servers; at most 3"), message);
    assertTrue(message.contains("ntp lists 5 servers; at most 4"), message);
    assertTrue(message.contains("leaseTime PT0S must be whole seconds"), message);
    assertTrue(message.contains("domain name 'a..b'"), message);
  }

  @Test
  void cidrRejectsHostBitsNamingTheNetwork() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Ipv4Cidr.parse("192.0.2.5/24"));

    assertTrue(e.getMessage().contains("use 192.0.2.0/24"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Ipv4Cidr.parse("192.0.2.0/33"));
    assertThrows(IllegalArgumentException.class, () -> Ipv4Cidr.parse("192.0.2.0"));
  }

  @Test
  void staticLeasesRejectAddressesOutsideThePoolSharedOrTheServersOwn() {
    MacAddress a = MacAddress.parse("02:00:00:00:00:01");
    MacAddress b = MacAddress.parse("02:00:00:00:00:02");
    MacAddress c = MacAddress.parse("02:00:00:00:00:03");

    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                StaticLeaseSource.of(
                    Fixtures.POOL,
                    Map.of(a, ip("192.0.2.20"), b, ip("192.0.2.20"), c, ip("10.0.0.1"))));
    assertTrue(e.getMessage().contains("192.0.2.20 is leased to both"), e.getMessage());
    assertTrue(e.getMessage().contains("10.0.0.1 is outside cidr"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> StaticLeaseSource.of(Fixtures.POOL, Map.of(a, Fixtures.SERVER)));
  }
}
