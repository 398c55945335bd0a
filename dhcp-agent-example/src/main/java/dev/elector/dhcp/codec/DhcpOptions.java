package dev.elector.dhcp.codec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The options of a DHCP message: an immutable, ordered map from option code to value, with a typed
 * view of the options named in {@link OptionCode}.
 *
 * <p>Values are whole: an option split over several instances on the wire (RFC 3396) appears here
 * once, concatenated. Every typed option has passed its length and content rules, so the typed
 * accessors never fail; unknown options are kept raw. Pad, end and overload (52) are framing and
 * never appear here.
 */
public final class DhcpOptions {
  private static final DhcpOptions EMPTY = new DhcpOptions(new LinkedHashMap<>());

  private final Map<Integer, byte[]> values;

  private DhcpOptions(LinkedHashMap<Integer, byte[]> values) {
    this.values = Collections.unmodifiableMap(values);
  }

  /** Returns a set with no options. */
  public static DhcpOptions empty() {
    return EMPTY;
  }

  /** Returns a builder for a new option set. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds options from decoded values that have already passed {@link OptionRules}. */
  static DhcpOptions ofChecked(LinkedHashMap<Integer, byte[]> values) {
    return new DhcpOptions(values);
  }

  /** Returns the option codes in wire order. */
  public List<Integer> codes() {
    return List.copyOf(values.keySet());
  }

  /** Returns true if option {@code code} is present. */
  public boolean contains(int code) {
    return values.containsKey(code);
  }

  /** Returns a copy of the raw value of option {@code code}. */
  public Optional<byte[]> raw(int code) {
    byte[] value = values.get(code);
    return value == null ? Optional.empty() : Optional.of(value.clone());
  }

  /**
   * Returns option 53 as a type; empty if absent or of a type {@link MessageType} does not name.
   */
  public Optional<MessageType> messageType() {
    byte[] value = values.get(OptionCode.MESSAGE_TYPE);
    return value == null ? Optional.empty() : MessageType.of(value[0] & 0xff);
  }

  /** Returns option 1. */
  public Optional<Ipv4Address> subnetMask() {
    return address(OptionCode.SUBNET_MASK);
  }

  /** Returns option 3. */
  public List<Ipv4Address> routers() {
    return addresses(OptionCode.ROUTER);
  }

  /** Returns option 6. */
  public List<Ipv4Address> dns() {
    return addresses(OptionCode.DNS);
  }

  /** Returns option 12, without trailing NUL bytes. */
  public Optional<String> hostName() {
    return text(OptionCode.HOST_NAME);
  }

  /** Returns option 15, without trailing NUL bytes. */
  public Optional<String> domainName() {
    return text(OptionCode.DOMAIN_NAME);
  }

  /** Returns option 42. */
  public List<Ipv4Address> ntp() {
    return addresses(OptionCode.NTP);
  }

  /** Returns option 50. */
  public Optional<Ipv4Address> requestedIp() {
    return address(OptionCode.REQUESTED_IP);
  }

  /** Returns option 51 in seconds; 0xffffffff means infinite. */
  public OptionalLong leaseTime() {
    return seconds(OptionCode.LEASE_TIME);
  }

  /** Returns option 54. */
  public Optional<Ipv4Address> serverId() {
    return address(OptionCode.SERVER_ID);
  }

  /** Returns option 55 as option codes in the client's order; empty if absent. */
  public List<Integer> parameterRequestList() {
    byte[] value = values.get(OptionCode.PARAMETER_REQUEST_LIST);
    if (value == null) {
      return List.of();
    }
    List<Integer> codes = new ArrayList<>(value.length);
    for (byte b : value) {
      codes.add(b & 0xff);
    }
    return List.copyOf(codes);
  }

  /** Returns option 57 in octets, as sent (possibly below the RFC minimum of 576). */
  public OptionalInt maxMessageSize() {
    byte[] value = values.get(OptionCode.MAX_MESSAGE_SIZE);
    return value == null
        ? OptionalInt.empty()
        : OptionalInt.of(((value[0] & 0xff) << 8) | (value[1] & 0xff));
  }

  /** Returns option 58 (T1) in seconds. */
  public OptionalLong renewalTime() {
    return seconds(OptionCode.RENEWAL_TIME);
  }

  /** Returns option 59 (T2) in seconds. */
  public OptionalLong rebindingTime() {
    return seconds(OptionCode.REBINDING_TIME);
  }

  /** Returns a copy of option 61 (type byte followed by the identifier). */
  public Optional<byte[]> clientId() {
    return raw(OptionCode.CLIENT_ID);
  }

  /** Returns a copy of option 82, opaque (RFC 3046: servers echo it unchanged). */
  public Optional<byte[]> relayAgentInformation() {
    return raw(OptionCode.RELAY_AGENT_INFORMATION);
  }

  /** Returns option 119 as domain names without trailing dots; empty if absent. */
  public List<String> domainSearch() {
    byte[] value = values.get(OptionCode.DOMAIN_SEARCH);
    if (value == null) {
      return List.of();
    }
    try {
      return DomainSearchCodec.decode(value, 0);
    } catch (MalformedPacketException impossible) {
      throw new AssertionError("option 119 was checked when this set was made", impossible);
    }
  }

  /** Returns a builder holding these options, to derive a changed set. */
  public Builder toBuilder() {
    Builder builder = new Builder();
    values.forEach((code, value) -> builder.values.put(code, value));
    return builder;
  }

  /** Returns the number of octets these options take on the wire, without the end option. */
  int encodedLength() {
    int length = 0;
    for (byte[] value : values.values()) {
      int chunks = Math.max(1, (value.length + 254) / 255);
      length += 2 * chunks + value.length;
    }
    return length;
  }

  /** Returns the raw map, for the encoder. */
  Map<Integer, byte[]> rawValues() {
    return values;
  }

  private Optional<Ipv4Address> address(int code) {
    byte[] value = values.get(code);
    return value == null ? Optional.empty() : Optional.of(Ipv4Address.of(value));
  }

  private List<Ipv4Address> addresses(int code) {
    byte[] value = values.get(code);
    if (value == null) {
      return List.of();
    }
    List<Ipv4Address> addresses = new ArrayList<>(value.length / 4);
    for (int i = 0; i < value.length; i += 4) {
      addresses.add(new Ipv4Address(Ipv4Address.readInt(value, i)));
    }
    return List.copyOf(addresses);
  }

  private Optional<String> text(int code) {
    byte[] value = values.get(code);
    if (value == null) {
      return Optional.empty();
    }
    int end = value.length;
    while (end > 0 && value[end - 1] == 0) {
      end--;
    }
    return Optional.of(new String(value, 0, end, StandardCharsets.ISO_8859_1));
  }

  private OptionalLong seconds(int code) {
    byte[] value = values.get(code);
    return value == null
        ? OptionalLong.empty()
        : OptionalLong.of(Integer.toUnsignedLong(Ipv4Address.readInt(value, 0)));
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof DhcpOptions that) || !values.keySet().equals(that.values.keySet())) {
      return false;
    }
    for (Map.Entry<Integer, byte[]> entry : values.entrySet()) {
      if (!Arrays.equals(entry.getValue(), that.values.get(entry.getKey()))) {
        return false;
      }
    }
    return codes().equals(that.codes());
  }

  @Override
  public int hashCode() {
    int hash = 1;
    for (Map.Entry<Integer, byte[]> entry : values.entrySet()) {
      hash = 31 * hash + entry.getKey() * 17 + Arrays.hashCode(entry.getValue());
    }
    return hash;
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("{");
    values.forEach(
        (code, value) -> {
          if (text.length() > 1) {
            text.append(", ");
          }
          text.append(code).append('=').append(HexFormatting.hex(value));
        });
    return text.append('}').toString();
  }

  /** Collects options in insertion order; setting an option again replaces its value in place. */
  public static final class Builder {
    private final LinkedHashMap<Integer, byte[]> values = new LinkedHashMap<>();

    private Builder() {}

    /** Sets option 53. */
    public Builder messageType(MessageType type) {
      return put(OptionCode.MESSAGE_TYPE, new byte[] {(byte) type.code()});
    }

    /** Sets option 1. */
    public Builder subnetMask(Ipv4Address mask) {
      return put(OptionCode.SUBNET_MASK, mask.toBytes());
    }

    /** Sets option 3; rejects an empty list. */
    public Builder routers(List<Ipv4Address> routers) {
      return put(OptionCode.ROUTER, packed(routers));
    }

    /** Sets option 6; rejects an empty list. */
    public Builder dns(List<Ipv4Address> servers) {
      return put(OptionCode.DNS, packed(servers));
    }

    /** Sets option 12 as ASCII. */
    public Builder hostName(String name) {
      return put(OptionCode.HOST_NAME, ascii(name));
    }

    /** Sets option 15 as ASCII. */
    public Builder domainName(String name) {
      return put(OptionCode.DOMAIN_NAME, ascii(name));
    }

    /** Sets option 42; rejects an empty list. */
    public Builder ntp(List<Ipv4Address> servers) {
      return put(OptionCode.NTP, packed(servers));
    }

    /** Sets option 50. */
    public Builder requestedIp(Ipv4Address address) {
      return put(OptionCode.REQUESTED_IP, address.toBytes());
    }

    /** Sets option 51 in seconds (0 to 0xffffffff, the latter meaning infinite). */
    public Builder leaseTime(long seconds) {
      return put(OptionCode.LEASE_TIME, secondsValue("leaseTime", seconds));
    }

    /** Sets option 54. */
    public Builder serverId(Ipv4Address address) {
      return put(OptionCode.SERVER_ID, address.toBytes());
    }

    /** Sets option 55 from option codes 0-255; rejects an empty list. */
    public Builder parameterRequestList(List<Integer> codes) {
      byte[] value = new byte[codes.size()];
      for (int i = 0; i < value.length; i++) {
        value[i] = (byte) requireByte("parameter request list code", codes.get(i));
      }
      return put(OptionCode.PARAMETER_REQUEST_LIST, value);
    }

    /** Sets option 57 in octets (0-65535). */
    public Builder maxMessageSize(int octets) {
      if (octets < 0 || octets > 0xffff) {
        throw new IllegalArgumentException("maxMessageSize " + octets + " must be within 0-65535");
      }
      return put(OptionCode.MAX_MESSAGE_SIZE, new byte[] {(byte) (octets >>> 8), (byte) octets});
    }

    /** Sets option 58 (T1) in seconds. */
    public Builder renewalTime(long seconds) {
      return put(OptionCode.RENEWAL_TIME, secondsValue("renewalTime", seconds));
    }

    /** Sets option 59 (T2) in seconds. */
    public Builder rebindingTime(long seconds) {
      return put(OptionCode.REBINDING_TIME, secondsValue("rebindingTime", seconds));
    }

    /** Sets option 61 (type byte followed by the identifier; at least 2 bytes). */
    public Builder clientId(byte[] id) {
      return put(OptionCode.CLIENT_ID, id.clone());
    }

    /** Sets option 82, opaque. */
    public Builder relayAgentInformation(byte[] value) {
      return put(OptionCode.RELAY_AGENT_INFORMATION, value.clone());
    }

    /** Sets option 119 from domain names, compressed per RFC 3397; rejects an empty list. */
    public Builder domainSearch(List<String> names) {
      if (names.isEmpty()) {
        throw new IllegalArgumentException("domainSearch needs at least one name");
      }
      return put(OptionCode.DOMAIN_SEARCH, DomainSearchCodec.encode(names));
    }

    /**
     * Sets any option from its raw value, checked by the same rules as decoding.
     *
     * @throws IllegalArgumentException for pad, end or overload, or a value breaking the option's
     *     rules
     */
    public Builder raw(int code, byte[] value) {
      requireByte("option code", code);
      if (code == OptionCode.PAD || code == OptionCode.END || code == OptionCode.OVERLOAD) {
        throw new IllegalArgumentException(
            "option " + code + " is framing and is written by the encoder only");
      }
      return put(code, value.clone());
    }

    /** Removes option {@code code} if present. */
    public Builder remove(int code) {
      values.remove(code);
      return this;
    }

    /** Returns the immutable option set. */
    public DhcpOptions build() {
      return new DhcpOptions(new LinkedHashMap<>(values));
    }

    private Builder put(int code, byte[] value) {
      try {
        OptionRules.check(code, value, 0);
      } catch (MalformedPacketException e) {
        throw new IllegalArgumentException(e.getMessage().replace(" at offset 0", ""), e);
      }
      values.put(code, value);
      return this;
    }

    private static byte[] packed(List<Ipv4Address> addresses) {
      byte[] value = new byte[addresses.size() * 4];
      for (int i = 0; i < addresses.size(); i++) {
        System.arraycopy(addresses.get(i).toBytes(), 0, value, i * 4, 4);
      }
      return value;
    }

    private static byte[] ascii(String text) {
      for (int i = 0; i < text.length(); i++) {
        if (text.charAt(i) < 0x20 || text.charAt(i) >= 0x7f) {
          throw new IllegalArgumentException("'" + text + "' must be printable ASCII");
        }
      }
      return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] secondsValue(String name, long seconds) {
      if (seconds < 0 || seconds > 0xffffffffL) {
        throw new IllegalArgumentException(
            name + " " + seconds + "s must be within 0-4294967295 seconds");
      }
      return new Ipv4Address((int) seconds).toBytes();
    }

    private static int requireByte(String what, int value) {
      if (value < 0 || value > 255) {
        throw new IllegalArgumentException(what + " " + value + " must be within 0-255");
      }
      return value;
    }
  }
}
