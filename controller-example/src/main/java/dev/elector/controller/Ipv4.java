package dev.elector.controller;

import java.util.Optional;

/** IPv4 addresses as unsigned 32-bit values held in a {@code long}, and their dotted form. */
final class Ipv4 {
  private Ipv4() {}

  /** The address, if {@code text} is a dotted quad such as 10.0.0.1 (no leading zeros). */
  static Optional<Long> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    String[] parts = text.trim().split("\\.", -1);
    if (parts.length != 4) {
      return Optional.empty();
    }
    long value = 0;
    for (String part : parts) {
      if (part.isEmpty()
          || part.length() > 3
          || !part.chars().allMatch(Character::isDigit)
          || (part.length() > 1 && part.charAt(0) == '0')) {
        return Optional.empty();
      }
      int octet = Integer.parseInt(part);
      if (octet > 255) {
        return Optional.empty();
      }
      value = (value << 8) | octet;
    }
    return Optional.of(value);
  }

  /** The dotted form of {@code address}. */
  static String format(long address) {
    return ((address >> 24) & 0xff)
        + "."
        + ((address >> 16) & 0xff)
        + "."
        + ((address >> 8) & 0xff)
        + "."
        + (address & 0xff);
  }

  /** The canonical dotted form of {@code text}, or {@code text} itself when it is no address. */
  static String canonical(String text) {
    return parse(text).map(Ipv4::format).orElse(text);
  }
}
