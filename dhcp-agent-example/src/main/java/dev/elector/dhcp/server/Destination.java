package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.Ipv4Address;
import java.util.Objects;

/**
 * Where a reply goes, per RFC 2131 section 4.1.
 *
 * @param kind why this address was chosen
 * @param address the IP destination
 * @param port the UDP destination port
 */
public record Destination(Kind kind, Ipv4Address address, int port) {
  /** The BOOTP server port, on which relay agents listen too. */
  public static final int SERVER_PORT = 67;

  /** The BOOTP client port. */
  public static final int CLIENT_PORT = 68;

  /** Why a destination was chosen. */
  public enum Kind {
    /** giaddr was set: to the relay agent on the server port. */
    RELAY,
    /** ciaddr was set and the reply is not a NAK: to the client's own address. */
    CLIENT,
    /** Otherwise: to 255.255.255.255 on the client port. */
    BROADCAST
  }

  /** Rejects nulls and ports outside 1-65535. */
  public Destination {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(address, "address");
    if (port < 1 || port > 0xffff) {
      throw new IllegalArgumentException("port " + port + " must be within 1-65535");
    }
  }

  static Destination relay(Ipv4Address giaddr) {
    return new Destination(Kind.RELAY, giaddr, SERVER_PORT);
  }

  static Destination client(Ipv4Address ciaddr) {
    return new Destination(Kind.CLIENT, ciaddr, CLIENT_PORT);
  }

  static Destination broadcast() {
    return new Destination(Kind.BROADCAST, Ipv4Address.BROADCAST, CLIENT_PORT);
  }
}
