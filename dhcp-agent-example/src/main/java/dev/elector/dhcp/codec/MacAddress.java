package dev.elector.dhcp.codec;

import java.util.Locale;

/**
 * A 48-bit Ethernet MAC address as an immutable value.
 *
 * @param value the address in the low 48 bits, first octet highest
 */
public record MacAddress(long value) {

  /**
   * Validates that only the low 48 bits are used.
   *
   * @throws IllegalArgumentException if {@code value} has bits above bit 47
   */
  public MacAddress {
    if ((value >>> 48) != 0) {
      throw new IllegalArgumentException(
          "MAC address value " + Long.toHexString(value) + " exceeds 48 bits");
    }
  }

  /**
   * Parses six hex octets separated by ':' or '-', in either case, e.g. {@code 52:54:00:ab:cd:ef}.
   *
   * @throws IllegalArgumentException if {@code text} is not such an address
   */
  public static MacAddress parse(String text) {
    String[] parts = text.split("[:-]", -1);
    if (parts.length != 6) {
      throw new IllegalArgumentException(
          "MAC address '" + text + "' must be six octets separated by ':'");
    }
    long value = 0;
    for (String part : parts) {
      if (part.length() != 2
          || Character.digit(part.charAt(0), 16) < 0
          || Character.digit(part.charAt(1), 16) < 0) {
        throw new IllegalArgumentException(
            "MAC address '" + text + "' has a bad octet '" + part + "'");
      }
      value = (value << 8) | Integer.parseInt(part, 16);
    }
    return new MacAddress(value);
  }

  /**
   * Returns the address in the first six bytes of {@code bytes}.
   *
   * @throws IllegalArgumentException if {@code bytes} is shorter than six bytes
   */
  public static MacAddress of(byte[] bytes) {
    if (bytes.length < 6) {
      throw new IllegalArgumentException("MAC address needs 6 bytes, got " + bytes.length);
    }
    long value = 0;
    for (int i = 0; i < 6; i++) {
      value = (value << 8) | (bytes[i] & 0xff);
    }
    return new MacAddress(value);
  }

  /** Returns the six bytes, first octet first. */
  public byte[] toBytes() {
    byte[] bytes = new byte[6];
    for (int i = 0; i < 6; i++) {
      bytes[i] = (byte) (value >>> (40 - 8 * i));
    }
    return bytes;
  }

  /** Returns lower-case colon notation, e.g. {@code 52:54:00:ab:cd:ef}. */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder(17);
    for (byte b : toBytes()) {
      if (text.length() > 0) {
        text.append(':');
      }
      text.append(String.format(Locale.ROOT, "%02x", b & 0xff));
    }
    return text.toString();
  }
}
