package dev.elector.controller;

import java.util.Optional;

/**
 * An IPv4 subnet: its network address (host bits cleared) and prefix length.
 *
 * @param network the first address of the subnet
 * @param prefix the prefix length, 0 to 32
 */
record Cidr(long network, int prefix) {

  /** The subnet of {@code text} such as 192.168.0.0/24; host bits, if set, are cleared. */
  static Optional<Cidr> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    String trimmed = text.trim();
    int slash = trimmed.indexOf('/');
    if (slash < 0) {
      return Optional.empty();
    }
    String bits = trimmed.substring(slash + 1);
    if (bits.isEmpty() || bits.length() > 2 || !bits.chars().allMatch(Character::isDigit)) {
      return Optional.empty();
    }
    int prefix = Integer.parseInt(bits);
    if (prefix > 32) {
      return Optional.empty();
    }
    return Ipv4.parse(trimmed.substring(0, slash))
        .map(address -> new Cidr(address & mask(prefix), prefix));
  }

  /** The last address of the subnet (its broadcast address). */
  long last() {
    return network | (~mask(prefix) & 0xffffffffL);
  }

  boolean contains(long address) {
    return address >= network && address <= last();
  }

  /** True when the two subnets share an address. */
  boolean overlaps(Cidr other) {
    return network <= other.last() && other.network <= last();
  }

  private static long mask(int prefix) {
    return prefix == 0 ? 0 : (0xffffffffL << (32 - prefix)) & 0xffffffffL;
  }

  @Override
  public String toString() {
    return Ipv4.format(network) + "/" + prefix;
  }
}
