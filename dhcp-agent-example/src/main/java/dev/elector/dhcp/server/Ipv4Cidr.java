package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.Ipv4Address;

/**
 * An IPv4 network in CIDR notation.
 *
 * @param network the network address (host bits zero)
 * @param prefixLength the number of network bits, 0-32
 */
public record Ipv4Cidr(Ipv4Address network, int prefixLength) {

  /**
   * Validates the prefix and that no host bits are set.
   *
   * @throws IllegalArgumentException if the prefix is outside 0-32 or {@code network} has host bits
   */
  public Ipv4Cidr {
    if (prefixLength < 0 || prefixLength > 32) {
      throw new IllegalArgumentException("CIDR prefix /" + prefixLength + " must be within /0-/32");
    }
    if ((network.value() & ~maskBits(prefixLength)) != 0) {
      throw new IllegalArgumentException(
          "CIDR "
              + network
              + "/"
              + prefixLength
              + " has host bits set; use "
              + new Ipv4Address(network.value() & maskBits(prefixLength))
              + "/"
              + prefixLength);
    }
  }

  /**
   * Parses {@code a.b.c.d/n}.
   *
   * @throws IllegalArgumentException if {@code text} is not such a network
   */
  public static Ipv4Cidr parse(String text) {
    int slash = text.indexOf('/');
    if (slash < 0
        || slash == text.length() - 1
        || !text.substring(slash + 1).chars().allMatch(Character::isDigit)
        || text.length() - slash > 3) {
      throw new IllegalArgumentException("CIDR '" + text + "' must look like 192.0.2.0/24");
    }
    return new Ipv4Cidr(
        Ipv4Address.parse(text.substring(0, slash)), Integer.parseInt(text.substring(slash + 1)));
  }

  /** Returns the subnet mask, e.g. 255.255.255.0 for /24. */
  public Ipv4Address subnetMask() {
    return new Ipv4Address(maskBits(prefixLength));
  }

  /** Returns true if {@code address} lies in this network. */
  public boolean contains(Ipv4Address address) {
    return (address.value() & maskBits(prefixLength)) == network.value();
  }

  private static int maskBits(int prefixLength) {
    return prefixLength == 0 ? 0 : -1 << (32 - prefixLength);
  }

  @Override
  public String toString() {
    return network + "/" + prefixLength;
  }
}
