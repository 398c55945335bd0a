package dev.elector.dhcp.codec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

/**
 * An immutable DHCPv4 message (RFC 2131 section 2): the BOOTP fixed header and its options.
 *
 * <p>{@link #decode(byte[])} accepts untrusted bytes and fails only with {@link
 * MalformedPacketException}; it reads at most the given bytes and allocates no more than a small
 * multiple of them. {@link #encode()} writes options only in the options field (never overloading
 * {@code sname}/{@code file}), splits values longer than 255 octets into several instances (RFC
 * 3396), closes with the end option and pads to the 300-octet BOOTP minimum.
 */
public final class DhcpMessage {
  /** op value of a client message. */
  public static final int BOOTREQUEST = 1;

  /** op value of a server message. */
  public static final int BOOTREPLY = 2;

  /** The broadcast bit of {@link #flags()}. */
  public static final int BROADCAST_FLAG = 0x8000;

  /** htype of Ethernet. */
  public static final int HTYPE_ETHERNET = 1;

  static final int HEADER_LENGTH = 236;
  static final int MIN_LENGTH = 240;
  static final int BOOTP_MIN_LENGTH = 300;
  private static final int MAGIC_COOKIE = 0x63825363;
  private static final int CHADDR_LENGTH = 16;
  private static final int SNAME_LENGTH = 64;
  private static final int FILE_LENGTH = 128;

  private final int op;
  private final int htype;
  private final int hlen;
  private final int hops;
  private final int xid;
  private final int secs;
  private final int flags;
  private final Ipv4Address ciaddr;
  private final Ipv4Address yiaddr;
  private final Ipv4Address siaddr;
  private final Ipv4Address giaddr;
  private final byte[] chaddr;
  private final byte[] sname;
  private final byte[] file;
  private final DhcpOptions options;

  private DhcpMessage(Builder b) {
    this.op = b.op;
    this.htype = b.htype;
    this.hlen = b.hlen;
    this.hops = b.hops;
    this.xid = b.xid;
    this.secs = b.secs;
    this.flags = b.flags;
    this.ciaddr = b.ciaddr;
    this.yiaddr = b.yiaddr;
    this.siaddr = b.siaddr;
    this.giaddr = b.giaddr;
    this.chaddr = b.chaddr.clone();
    this.sname = b.sname.clone();
    this.file = b.file.clone();
    this.options = b.options;
  }

  /** Returns a builder with op BOOTREQUEST, Ethernet hardware, zero addresses and no options. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Decodes a whole UDP payload.
   *
   * @throws MalformedPacketException if the bytes are not a DHCP message; nothing else is thrown
   */
  public static DhcpMessage decode(byte[] packet) throws MalformedPacketException {
    if (packet.length < MIN_LENGTH) {
      throw new MalformedPacketException(
          "packet of "
              + packet.length
              + " bytes is shorter than the "
              + MIN_LENGTH
              + "-byte header and cookie",
          packet.length);
    }
    ByteBuffer in = ByteBuffer.wrap(packet);
    Builder b = new Builder();
    b.op = in.get(0) & 0xff;
    if (b.op != BOOTREQUEST && b.op != BOOTREPLY) {
      throw new MalformedPacketException(
          "op " + b.op + " is neither BOOTREQUEST (1) nor BOOTREPLY (2)", 0);
    }
    b.htype = in.get(1) & 0xff;
    b.hlen = in.get(2) & 0xff;
    if (b.hlen > CHADDR_LENGTH) {
      throw new MalformedPacketException("hlen " + b.hlen + " exceeds the 16-byte chaddr field", 2);
    }
    b.hops = in.get(3) & 0xff;
    b.xid = in.getInt(4);
    b.secs = in.getShort(8) & 0xffff;
    b.flags = in.getShort(10) & 0xffff;
    b.ciaddr = new Ipv4Address(in.getInt(12));
    b.yiaddr = new Ipv4Address(in.getInt(16));
    b.siaddr = new Ipv4Address(in.getInt(20));
    b.giaddr = new Ipv4Address(in.getInt(24));
    b.chaddr = Arrays.copyOfRange(packet, 28, 28 + CHADDR_LENGTH);
    if (in.getInt(HEADER_LENGTH) != MAGIC_COOKIE) {
      throw new MalformedPacketException(
          "magic cookie 0x" + Integer.toHexString(in.getInt(HEADER_LENGTH)) + " is not 0x63825363",
          HEADER_LENGTH);
    }
    OptionsParser.Parsed parsed = OptionsParser.parse(packet);
    b.sname =
        parsed.snameOverloaded()
            ? new byte[SNAME_LENGTH]
            : Arrays.copyOfRange(packet, OptionsParser.SNAME_OFFSET, OptionsParser.FILE_OFFSET);
    b.file =
        parsed.fileOverloaded()
            ? new byte[FILE_LENGTH]
            : Arrays.copyOfRange(packet, OptionsParser.FILE_OFFSET, HEADER_LENGTH);
    b.options = parsed.options();
    return new DhcpMessage(b);
  }

  /**
   * Decodes the remaining bytes of {@code buffer} without changing its position.
   *
   * @throws MalformedPacketException if the bytes are not a DHCP message; offsets count from the
   *     position
   */
  public static DhcpMessage decode(ByteBuffer buffer) throws MalformedPacketException {
    byte[] copy = new byte[buffer.remaining()];
    buffer.duplicate().get(copy);
    return decode(copy);
  }

  /** Returns the wire form: header, cookie, options, end, padded to 300 octets. */
  public byte[] encode() {
    ByteBuffer out = ByteBuffer.allocate(encodedLength());
    out.put((byte) op).put((byte) htype).put((byte) hlen).put((byte) hops);
    out.putInt(xid).putShort((short) secs).putShort((short) flags);
    out.putInt(ciaddr.value()).putInt(yiaddr.value()).putInt(siaddr.value()).putInt(giaddr.value());
    out.put(chaddr).put(sname).put(file).putInt(MAGIC_COOKIE);
    for (Map.Entry<Integer, byte[]> entry : options.rawValues().entrySet()) {
      byte[] value = entry.getValue();
      int pos = 0;
      do {
        int chunk = Math.min(255, value.length - pos);
        out.put((byte) (int) entry.getKey()).put((byte) chunk).put(value, pos, chunk);
        pos += chunk;
      } while (pos < value.length);
    }
    out.put((byte) OptionCode.END);
    return out.array();
  }

  /** Returns the length {@link #encode()} produces. */
  public int encodedLength() {
    return Math.max(BOOTP_MIN_LENGTH, MIN_LENGTH + options.encodedLength() + 1);
  }

  public int op() {
    return op;
  }

  public int htype() {
    return htype;
  }

  public int hlen() {
    return hlen;
  }

  public int hops() {
    return hops;
  }

  public int xid() {
    return xid;
  }

  public int secs() {
    return secs;
  }

  /** Returns the 16-bit flags field. */
  public int flags() {
    return flags;
  }

  /** Returns true if the client asked for broadcast replies (RFC 2131 section 4.1). */
  public boolean broadcast() {
    return (flags & BROADCAST_FLAG) != 0;
  }

  public Ipv4Address ciaddr() {
    return ciaddr;
  }

  public Ipv4Address yiaddr() {
    return yiaddr;
  }

  public Ipv4Address siaddr() {
    return siaddr;
  }

  public Ipv4Address giaddr() {
    return giaddr;
  }

  /** Returns a copy of the 16-byte chaddr field. */
  public byte[] chaddr() {
    return chaddr.clone();
  }

  /** Returns the client MAC if the hardware is Ethernet with a 6-byte address. */
  public Optional<MacAddress> mac() {
    return htype == HTYPE_ETHERNET && hlen == 6
        ? Optional.of(MacAddress.of(chaddr))
        : Optional.empty();
  }

  /** Returns sname up to its first NUL; empty if it was overloaded with options. */
  public String sname() {
    return nulTerminated(sname);
  }

  /** Returns file up to its first NUL; empty if it was overloaded with options. */
  public String file() {
    return nulTerminated(file);
  }

  public DhcpOptions options() {
    return options;
  }

  /** Returns a builder holding this message, to derive a changed one. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.op = op;
    b.htype = htype;
    b.hlen = hlen;
    b.hops = hops;
    b.xid = xid;
    b.secs = secs;
    b.flags = flags;
    b.ciaddr = ciaddr;
    b.yiaddr = yiaddr;
    b.siaddr = siaddr;
    b.giaddr = giaddr;
    b.chaddr = chaddr.clone();
    b.sname = sname.clone();
    b.file = file.clone();
    b.options = options;
    return b;
  }

  private static String nulTerminated(byte[] field) {
    int end = 0;
    while (end < field.length && field[end] != 0) {
      end++;
    }
    return new String(field, 0, end, StandardCharsets.ISO_8859_1);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof DhcpMessage that && Arrays.equals(encode(), that.encode());
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(encode());
  }

  @Override
  public String toString() {
    return "DhcpMessage{op="
        + op
        + ", xid=0x"
        + Integer.toHexString(xid)
        + ", flags=0x"
        + Integer.toHexString(flags)
        + ", ciaddr="
        + ciaddr
        + ", yiaddr="
        + yiaddr
        + ", siaddr="
        + siaddr
        + ", giaddr="
        + giaddr
        + ", chaddr="
        + HexFormatting.hex(Arrays.copyOf(chaddr, hlen))
        + ", options="
        + options
        + "}";
  }

  /** Sets the fields of a message; each setter checks its range. */
  public static final class Builder {
    private int op = BOOTREQUEST;
    private int htype = HTYPE_ETHERNET;
    private int hlen = 6;
    private int hops;
    private int xid;
    private int secs;
    private int flags;
    private Ipv4Address ciaddr = Ipv4Address.ANY;
    private Ipv4Address yiaddr = Ipv4Address.ANY;
    private Ipv4Address siaddr = Ipv4Address.ANY;
    private Ipv4Address giaddr = Ipv4Address.ANY;
    private byte[] chaddr = new byte[CHADDR_LENGTH];
    private byte[] sname = new byte[SNAME_LENGTH];
    private byte[] file = new byte[FILE_LENGTH];
    private DhcpOptions options = DhcpOptions.empty();

    private Builder() {}

    /** Sets op: {@link #BOOTREQUEST} or {@link #BOOTREPLY}. */
    public Builder op(int op) {
      if (op != BOOTREQUEST && op != BOOTREPLY) {
        throw new IllegalArgumentException(
            "op " + op + " must be BOOTREQUEST (1) or BOOTREPLY (2)");
      }
      this.op = op;
      return this;
    }

    public Builder htype(int htype) {
      this.htype = unsignedByte("htype", htype);
      return this;
    }

    /** Sets hlen, at most 16. */
    public Builder hlen(int hlen) {
      if (hlen < 0 || hlen > CHADDR_LENGTH) {
        throw new IllegalArgumentException("hlen " + hlen + " must be within 0-16");
      }
      this.hlen = hlen;
      return this;
    }

    public Builder hops(int hops) {
      this.hops = unsignedByte("hops", hops);
      return this;
    }

    public Builder xid(int xid) {
      this.xid = xid;
      return this;
    }

    /** Sets secs, 0-65535. */
    public Builder secs(int secs) {
      this.secs = unsignedShort("secs", secs);
      return this;
    }

    /** Sets the whole flags field, 0-65535. */
    public Builder flags(int flags) {
      this.flags = unsignedShort("flags", flags);
      return this;
    }

    /** Sets or clears the broadcast bit, leaving the other flag bits. */
    public Builder broadcast(boolean broadcast) {
      this.flags = broadcast ? flags | BROADCAST_FLAG : flags & ~BROADCAST_FLAG;
      return this;
    }

    public Builder ciaddr(Ipv4Address address) {
      this.ciaddr = address;
      return this;
    }

    public Builder yiaddr(Ipv4Address address) {
      this.yiaddr = address;
      return this;
    }

    public Builder siaddr(Ipv4Address address) {
      this.siaddr = address;
      return this;
    }

    public Builder giaddr(Ipv4Address address) {
      this.giaddr = address;
      return this;
    }

    /** Sets chaddr from up to 16 bytes, zero-padded; does not change hlen. */
    public Builder chaddr(byte[] address) {
      if (address.length > CHADDR_LENGTH) {
        throw new IllegalArgumentException("chaddr of " + address.length + " bytes exceeds 16");
      }
      this.chaddr = Arrays.copyOf(address, CHADDR_LENGTH);
      return this;
    }

    /** Sets an Ethernet client address: htype 1, hlen 6 and chaddr. */
    public Builder mac(MacAddress mac) {
      this.htype = HTYPE_ETHERNET;
      this.hlen = 6;
      return chaddr(mac.toBytes());
    }

    /** Sets sname from at most 63 ASCII characters. */
    public Builder sname(String name) {
      this.sname = field("sname", name, SNAME_LENGTH);
      return this;
    }

    /** Sets file from at most 127 ASCII characters. */
    public Builder file(String name) {
      this.file = field("file", name, FILE_LENGTH);
      return this;
    }

    public Builder options(DhcpOptions options) {
      this.options = options;
      return this;
    }

    public DhcpMessage build() {
      return new DhcpMessage(this);
    }

    private static byte[] field(String what, String text, int length) {
      byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
      if (bytes.length >= length || !StandardCharsets.US_ASCII.newEncoder().canEncode(text)) {
        throw new IllegalArgumentException(
            what + " '" + text + "' must be ASCII shorter than " + length + " bytes");
      }
      return Arrays.copyOf(bytes, length);
    }

    private static int unsignedByte(String what, int value) {
      if (value < 0 || value > 0xff) {
        throw new IllegalArgumentException(what + " " + value + " must be within 0-255");
      }
      return value;
    }

    private static int unsignedShort(String what, int value) {
      if (value < 0 || value > 0xffff) {
        throw new IllegalArgumentException(what + " " + value + " must be within 0-65535");
      }
      return value;
    }
  }
}
