package dev.elector.reliability.fuzz;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.server.Ipv4Cidr;
import dev.elector.dhcp.server.LeaseSource;
import dev.elector.dhcp.server.PoolOptions;
import dev.elector.dhcp.server.StaticLeaseSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The fixed pool the engine is fuzzed against: who owns which address. The first MAC is the one in
 * the udhcpc seed packets, so seeds reach the OFFER and ACK paths.
 */
final class LeaseTable {
  static final Ipv4Address SERVER = Ipv4Address.parse("192.0.2.1");

  private final Map<MacAddress, Ipv4Address> leases;
  private final PoolOptions pool;

  private LeaseTable(Map<MacAddress, Ipv4Address> leases, PoolOptions pool) {
    this.leases = leases;
    this.pool = pool;
  }

  /** Three clients of 192.0.2.0/24, with every pool option set. */
  static LeaseTable standard() {
    Map<MacAddress, Ipv4Address> leases = new LinkedHashMap<>();
    leases.put(MacAddress.parse("02:00:00:00:00:01"), Ipv4Address.parse("192.0.2.10"));
    leases.put(MacAddress.parse("02:00:00:00:00:02"), Ipv4Address.parse("192.0.2.11"));
    leases.put(MacAddress.parse("52:54:00:ab:cd:ef"), Ipv4Address.parse("192.0.2.12"));
    PoolOptions pool =
        PoolOptions.builder()
            .serverIp(SERVER)
            .cidr(Ipv4Cidr.parse("192.0.2.0/24"))
            .router(Ipv4Address.parse("192.0.2.254"))
            .dns(List.of(Ipv4Address.parse("192.0.2.53"), Ipv4Address.parse("192.0.2.54")))
            .domainName("example.test")
            .domainSearch(List.of("example.test", "lab.example.test"))
            .ntp(List.of(Ipv4Address.parse("192.0.2.123")))
            .leaseTime(Duration.ofHours(1))
            .build();
    return new LeaseTable(Map.copyOf(leases), pool);
  }

  /** Returns a lease source serving this table. */
  StaticLeaseSource source() {
    return StaticLeaseSource.of(pool, leases);
  }

  /** Returns the address the table gives {@code mac}, if it knows the MAC. */
  Optional<Ipv4Address> ipOf(MacAddress mac) {
    return Optional.ofNullable(leases.get(mac));
  }

  PoolOptions pool() {
    return pool;
  }

  /**
   * Returns everything {@code source} answers about this table's clients and pool, as text to
   * compare.
   */
  List<String> snapshot(LeaseSource source) {
    List<String> lines = new ArrayList<>();
    leases.keySet().stream()
        .sorted((a, b) -> Long.compare(a.value(), b.value()))
        .forEach(mac -> lines.add(mac + " -> " + source.leaseFor(mac)));
    lines.add("pool " + source.options());
    return List.copyOf(lines);
  }
}
