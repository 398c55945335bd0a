package dev.elector.dhcp.codec;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * An IPv4 address as an immutable 32-bit value, parsed without any name lookup.
 *
 * @param value the address in network order packed into an int (first octet in the high byte)
 */
public record Ipv4Address(int value) implements Comparable<Ipv4Address> {

  /** 0.0.0.0, the "no address" value of BOOTP address fields. */
  public static final Ipv4Address ANY = new Ipv4Address(0);

  /** 255.255.255.255, the limited broadcast address. */
  public static final Ipv4Address BROADCAST = new Ipv4Address(-1);

  /**
   * Parses strict dotted-quad notation such as {@code 192.0.2.1}.
   *
   * @throws IllegalArgumentException if {@code text} is not four decimal octets 0-255
   */
  public static Ipv4Address parse(String text) {
    String[] parts = text.split("\\.", -1);
    if (parts.length != 4) {
      throw new IllegalArgumentException("IPv4 address '" + text + "' must be four dotted octets");
    }
    int value = 0;
    for (String part : parts) {
      if (part.isEmpty()
          || part.length() > 3
          || !part.chars().allMatch(c -> c >= '0' && c <= '9')) {
        throw new IllegalArgumentException(
            "IPv4 address '" + text + "' has a bad octet '" + part + "'");
      }
      int octet = Integer.parseInt(part);
      if (octet > 255) {
        throw new IllegalArgumentException(
            "IPv4 address '" + text + "' has octet " + octet + " > 255");
      }
      value = (value << 8) | octet;
    }
    return new Ipv4Address(value);
  }

  /**
   * Returns the address held in four bytes in network order.
   *
   * @throws IllegalArgumentException if {@code bytes} is not exactly four bytes long
   */
  public static Ipv4Address of(byte[] bytes) {
    if (bytes.length != 4) {
      throw new IllegalArgumentException("IPv4 address needs 4 bytes, got " + bytes.length);
    }
    return new Ipv4Address(readInt(bytes, 0));
  }

  /**
   * Returns the address of an {@link InetAddress}.
   *
   * @throws IllegalArgumentException if {@code address} is not IPv4
   */
  public static Ipv4Address of(InetAddress address) {
    if (!(address instanceof Inet4Address)) {
      throw new IllegalArgumentException("not an IPv4 address: " + address);
    }
    return of(address.getAddress());
  }

  static int readInt(byte[] bytes, int offset) {
    return ((bytes[offset] & 0xff) << 24)
        | ((bytes[offset + 1] & 0xff) << 16)
        | ((bytes[offset + 2] & 0xff) << 8)
        | (bytes[offset + 3] & 0xff);
  }

  /** Returns the four bytes in network order. */
  public byte[] toBytes() {
    return new byte[] {
      (byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value
    };
  }

  /** Returns this address as an {@link Inet4Address}; never performs a lookup. */
  public Inet4Address toInetAddress() {
    try {
      return (Inet4Address) InetAddress.getByAddress(toBytes());
    } catch (UnknownHostException impossible) {
      throw new AssertionError("four bytes are always a valid address", impossible);
    }
  }

  /** Returns true for 0.0.0.0. */
  public boolean isAny() {
    return value == 0;
  }

  @Override
  public int compareTo(Ipv4Address other) {
    return Integer.compareUnsigned(value, other.value);
  }

  @Override
  public String toString() {
    return (value >>> 24)
        + "."
        + ((value >>> 16) & 0xff)
        + "."
        + ((value >>> 8) & 0xff)
        + "."
        + (value & 0xff);
  }
}
