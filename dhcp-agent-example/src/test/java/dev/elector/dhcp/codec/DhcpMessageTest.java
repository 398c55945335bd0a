package dev.elector.dhcp.codec;

import static dev.elector.dhcp.codec.Hex.zeros;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DhcpMessageTest {
  private static final MacAddress MAC = MacAddress.parse("52:54:00:ab:cd:ef");

  @Test
  void decodesEveryHeaderFieldOfAHandBuiltDiscover() throws Exception {
    DhcpMessage m = DhcpMessage.decode(Packets.discover());

    assertEquals(DhcpMessage.BOOTREQUEST, m.op());
    assertEquals(1, m.htype());
    assertEquals(6, m.hlen());
    assertEquals(0, m.hops());
    assertEquals(0x12345678, m.xid());
    assertEquals(3, m.secs());
    assertTrue(m.broadcast());
    assertEquals(Ipv4Address.ANY, m.ciaddr());
    assertEquals(Optional.of(MAC), m.mac());
    assertEquals("", m.sname());
    assertEquals(Optional.of(MessageType.DISCOVER), m.options().messageType());
    assertEquals(List.of(1, 3, 6), m.options().parameterRequestList());
    assertArrayEquals(Hex.bytes("01525400abcdef"), m.options().clientId().orElseThrow());
    assertEquals(List.of(53, 55, 61), m.options().codes());
  }

  @Test
  void encodesTheSameDiscoverByteForBytePaddedToTheBootpMinimum() {
    DhcpMessage m =
        DhcpMessage.builder()
            .mac(MAC)
            .xid(0x12345678)
            .secs(3)
            .broadcast(true)
            .options(
                DhcpOptions.builder()
                    .messageType(MessageType.DISCOVER)
                    .parameterRequestList(List.of(1, 3, 6))
                    .clientId(Hex.bytes("01525400abcdef"))
                    .build())
            .build();

    byte[] expected = Hex.bytes(Packets.DISCOVER, zeros(300 - 258));
    assertEquals(Hex.of(expected), Hex.of(m.encode()));
    assertEquals(300, m.encodedLength());
  }

  @Test
  void decodesADiscoverCapturedFromBusyboxUdhcpcAndReencodesItIdentically() throws Exception {
    byte[] captured = Hex.resource(DhcpMessageTest.class, "udhcpc-1.35-discover.hex");

    DhcpMessage m = DhcpMessage.decode(captured);

    assertEquals(300, captured.length);
    assertEquals(0xc7648709, m.xid());
    assertFalse(m.broadcast());
    assertEquals(Optional.of(MacAddress.parse("02:00:00:00:00:01")), m.mac());
    DhcpOptions o = m.options();
    assertEquals(Optional.of(MessageType.DISCOVER), o.messageType());
    assertEquals(576, o.maxMessageSize().orElseThrow());
    assertEquals(List.of(1, 3, 6, 12, 15, 28, 42, 119), o.parameterRequestList());
    assertEquals(Optional.of("client1"), o.hostName());
    assertArrayEquals("elector-test".getBytes(StandardCharsets.US_ASCII), o.raw(60).orElseThrow());
    assertArrayEquals(Hex.bytes("01020000000001"), o.clientId().orElseThrow());
    assertEquals(List.of(53, 57, 55, 12, 60, 61), o.codes());
    assertEquals(Hex.of(captured), Hex.of(m.encode()));
  }

  @Test
  void decodesAndReencodesARequestCapturedFromUdhcpc() throws Exception {
    byte[] captured = Hex.resource(DhcpMessageTest.class, "udhcpc-1.35-request.hex");

    DhcpMessage m = DhcpMessage.decode(captured);

    DhcpOptions o = m.options();
    assertEquals(Optional.of(MessageType.REQUEST), o.messageType());
    assertEquals(Optional.of(Ipv4Address.parse("192.0.2.10")), o.requestedIp());
    assertEquals(Optional.of(Ipv4Address.parse("192.0.2.1")), o.serverId());
    assertEquals(Ipv4Address.ANY, m.ciaddr());
    assertEquals(Hex.of(captured), Hex.of(m.encode()));
  }

  @Test
  void roundTripsAReplyWithEveryTypedOption() throws Exception {
    DhcpMessage reply =
        DhcpMessage.builder()
            .op(DhcpMessage.BOOTREPLY)
            .mac(MAC)
            .xid(-2)
            .flags(0x8000)
            .ciaddr(Ipv4Address.parse("192.0.2.10"))
            .yiaddr(Ipv4Address.parse("192.0.2.10"))
            .siaddr(Ipv4Address.parse("192.0.2.1"))
            .giaddr(Ipv4Address.parse("198.51.100.1"))
            .sname("boot")
            .file("pxelinux.0")
            .options(
                DhcpOptions.builder()
                    .messageType(MessageType.ACK)
                    .serverId(Ipv4Address.parse("192.0.2.1"))
                    .leaseTime(0xffffffffL)
                    .renewalTime(1800)
                    .rebindingTime(3150)
                    .subnetMask(Ipv4Address.parse("255.255.255.0"))
                    .routers(List.of(Ipv4Address.parse("192.0.2.254")))
                    .dns(
                        List.of(
                            Ipv4Address.parse("192.0.2.53"), Ipv4Address.parse("198.51.100.53")))
                    .hostName("vm-1")
                    .domainName("example.test")
                    .domainSearch(List.of("example.test", "lab.example.test"))
                    .ntp(List.of(Ipv4Address.parse("192.0.2.123")))
                    .requestedIp(Ipv4Address.parse("192.0.2.10"))
                    .maxMessageSize(1500)
                    .clientId(Hex.bytes("01525400abcdef"))
                    .relayAgentInformation(Hex.bytes("0104 00000001"))
                    .raw(224, Hex.bytes("cafe"))
                    .build())
            .build();

    DhcpMessage decoded = DhcpMessage.decode(reply.encode());

    assertEquals(reply, decoded);
    assertEquals("boot", decoded.sname());
    assertEquals("pxelinux.0", decoded.file());
    DhcpOptions o = decoded.options();
    assertEquals(0xffffffffL, o.leaseTime().orElseThrow());
    assertEquals(1800, o.renewalTime().orElseThrow());
    assertEquals(3150, o.rebindingTime().orElseThrow());
    assertEquals(List.of("example.test", "lab.example.test"), o.domainSearch());
    assertEquals(
        List.of(Ipv4Address.parse("192.0.2.53"), Ipv4Address.parse("198.51.100.53")), o.dns());
    assertEquals(Optional.of("example.test"), o.domainName());
    assertEquals(1500, o.maxMessageSize().orElseThrow());
    assertArrayEquals(Hex.bytes("010400000001"), o.relayAgentInformation().orElseThrow());
  }

  @Test
  void decodesFromTheRemainingBytesOfABufferWithoutMovingIt() throws Exception {
    byte[] packet = Packets.discover();
    ByteBuffer buffer = ByteBuffer.allocate(packet.length + 7);
    buffer.position(7);
    buffer.put(packet).position(7);

    DhcpMessage m = DhcpMessage.decode(buffer);

    assertEquals(0x12345678, m.xid());
    assertEquals(7, buffer.position());
  }

  @Test
  void splitsAnOptionLongerThan255OctetsIntoConsecutiveInstances() {
    byte[] value = new byte[300];
    Arrays.fill(value, (byte) 0x5a);
    DhcpMessage m =
        DhcpMessage.builder()
            .options(DhcpOptions.builder().messageType(MessageType.INFORM).raw(224, value).build())
            .build();

    byte[] wire = m.encode();

    String options = Hex.of(Arrays.copyOfRange(wire, 240, wire.length));
    String chunk1 = "e0ff" + "5a".repeat(255);
    String chunk2 = "e02d" + "5a".repeat(45);
    assertEquals("350108" + chunk1 + chunk2 + "ff", options);
  }

  @Test
  void concatenatesRepeatedInstancesOfAnOptionOnDecode() throws Exception {
    byte[] packet =
        Hex.bytes(
            Packets.REQUEST_HEADER,
            "350101",
            "0604 c0000235",
            "0304 c00002fe",
            "0604 c6336435",
            "ff");

    DhcpOptions o = DhcpMessage.decode(packet).options();

    assertEquals(
        List.of(Ipv4Address.parse("192.0.2.53"), Ipv4Address.parse("198.51.100.53")), o.dns());
    assertEquals(List.of(53, 6, 3), o.codes());
  }

  @Test
  void readsOptionsFromFileThenSnameWhenOverloadedAndBlanksThoseFields() throws Exception {
    byte[] base = Hex.bytes(Packets.REQUEST_HEADER);
    byte[] packet = Arrays.copyOf(base, base.length + 7);
    // options field: 53 REQUEST, 52 overload both, end
    System.arraycopy(Hex.bytes("350103", "340103", "ff"), 0, packet, 240, 7);
    // file field (offset 108): 50 requested IP, then end
    System.arraycopy(Hex.bytes("3204 c000020a", "ff"), 0, packet, 108, 7);
    // sname field (offset 44): 12 host name "vm" with no end option (field end closes it)
    System.arraycopy(Hex.bytes("0c02 766d"), 0, packet, 44, 4);

    DhcpMessage m = DhcpMessage.decode(packet);

    assertEquals(Optional.of(Ipv4Address.parse("192.0.2.10")), m.options().requestedIp());
    assertEquals(Optional.of("vm"), m.options().hostName());
    assertEquals(List.of(53, 50, 12), m.options().codes());
    assertEquals("", m.sname());
    assertEquals("", m.file());
    assertFalse(m.options().contains(OptionCode.OVERLOAD));
    assertEquals(m, DhcpMessage.decode(m.encode()));
  }

  @Test
  void keepsUnknownMessageTypesRawWithoutATypedValue() throws Exception {
    byte[] packet = Hex.bytes(Packets.REQUEST_HEADER, "35010d", "ff");

    DhcpOptions o = DhcpMessage.decode(packet).options();

    assertEquals(Optional.empty(), o.messageType());
    assertArrayEquals(Hex.bytes("0d"), o.raw(53).orElseThrow());
  }

  @Test
  void builderRejectsValuesTheDecoderWouldRejectAndNamesTheRule() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> DhcpOptions.builder().raw(OptionCode.SUBNET_MASK, Hex.bytes("ffffff")));
    assertEquals("option 1 has length 3; it needs exactly 4", e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> DhcpOptions.builder().raw(OptionCode.END, new byte[0]));
    assertThrows(IllegalArgumentException.class, () -> DhcpOptions.builder().dns(List.of()));
    assertThrows(IllegalArgumentException.class, () -> DhcpOptions.builder().leaseTime(-1));
    assertThrows(IllegalArgumentException.class, () -> DhcpMessage.builder().hlen(17));
    assertThrows(IllegalArgumentException.class, () -> DhcpMessage.builder().sname("x".repeat(64)));
  }

  @Test
  void addressesParseStrictlyWithoutLookups() {
    assertEquals("192.0.2.1", Ipv4Address.parse("192.0.2.1").toString());
    assertEquals("255.255.255.255", Ipv4Address.BROADCAST.toString());
    for (String bad :
        List.of(
            "192.0.2",
            "192.0.2.256",
            "a.b.c.d",
            "192.0.2.1.",
            "localhost",
            " 1.2.3.4",
            "1.2.3.+4")) {
      assertThrows(IllegalArgumentException.class, () -> Ipv4Address.parse(bad), bad);
    }
    assertEquals("52:54:00:ab:cd:ef", MacAddress.parse("52-54-00-AB-CD-EF").toString());
    assertThrows(IllegalArgumentException.class, () -> MacAddress.parse("52:54:00:ab:cd"));
    assertThrows(IllegalArgumentException.class, () -> MacAddress.parse("52:54:00:ab:cd:eg"));
  }
}
