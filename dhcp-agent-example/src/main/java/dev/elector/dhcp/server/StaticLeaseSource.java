package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** An immutable in-memory {@link LeaseSource}, for tests and the static server main. */
public final class StaticLeaseSource implements LeaseSource {
  private final PoolOptions options;
  private final Map<MacAddress, Lease> leases;

  private StaticLeaseSource(PoolOptions options, Map<MacAddress, Lease> leases) {
    this.options = options;
    this.leases = Map.copyOf(leases);
  }

  /**
   * Returns a source serving {@code leases} with {@code options}.
   *
   * @throws IllegalArgumentException listing every address outside the pool's CIDR, every address
   *     given to two clients, and the server's own address if leased
   */
  public static StaticLeaseSource of(PoolOptions options, Map<MacAddress, Ipv4Address> leases) {
    List<String> violations = new ArrayList<>();
    Map<Ipv4Address, MacAddress> owners = new HashMap<>();
    Map<MacAddress, Lease> byMac = new HashMap<>();
    leases.forEach(
        (mac, ip) -> {
          if (!options.cidr().contains(ip)) {
            violations.add(mac + " -> " + ip + " is outside cidr " + options.cidr());
          }
          if (ip.equals(options.serverIp())) {
            violations.add(mac + " -> " + ip + " is the server's own address");
          }
          MacAddress other = owners.putIfAbsent(ip, mac);
          if (other != null) {
            violations.add(ip + " is leased to both " + other + " and " + mac);
          }
          byMac.put(mac, new Lease(mac, ip));
        });
    if (!violations.isEmpty()) {
      throw new IllegalArgumentException("invalid leases: " + String.join("; ", violations));
    }
    return new StaticLeaseSource(options, byMac);
  }

  @Override
  public Optional<Lease> leaseFor(MacAddress mac) {
    return Optional.ofNullable(leases.get(mac));
  }

  @Override
  public PoolOptions options() {
    return options;
  }
}
