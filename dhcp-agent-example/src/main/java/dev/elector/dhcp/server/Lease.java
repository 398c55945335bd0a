package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import java.util.Objects;

/**
 * The address allocated to one client, as the IPPool's {@code status.ipv4.allocated} records it.
 *
 * @param mac the client's hardware address
 * @param ip the address the client is to use
 */
public record Lease(MacAddress mac, Ipv4Address ip) {

  /** Rejects nulls. */
  public Lease {
    Objects.requireNonNull(mac, "mac");
    Objects.requireNonNull(ip, "ip");
  }
}
