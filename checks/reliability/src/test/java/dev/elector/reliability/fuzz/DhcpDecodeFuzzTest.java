package dev.elector.reliability.fuzz;

import com.code_intelligence.jazzer.junit.DictionaryFile;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.DhcpOptions;
import dev.elector.dhcp.codec.MalformedPacketException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;

/**
 * Any bytes either decode or fail with {@link MalformedPacketException}, nothing else; a decoded
 * message's typed options can all be read, and it re-encodes to bytes that decode to an equal
 * message and encode to the same bytes again.
 */
class DhcpDecodeFuzzTest {
  private static final FuzzStats STATS =
      new FuzzStats(DhcpDecodeFuzzTest.class, "decodesOrRejectsAsMalformedAndRoundTrips");

  @DictionaryFile(resourcePath = "dhcp.dict")
  @FuzzTest(maxDuration = "40s")
  void decodesOrRejectsAsMalformedAndRoundTrips(byte[] packet) {
    STATS.execution();
    ByteBuffer buffer = ByteBuffer.wrap(packet);
    DhcpMessage message;
    try {
      message = DhcpMessage.decode(buffer);
    } catch (MalformedPacketException expected) {
      return;
    }
    STATS.decoded();
    check(buffer.position() == 0, "decode moved the buffer's position", message);
    readEveryTypedOption(message.options());
    byte[] wire = message.encode();
    check(
        wire.length == message.encodedLength(),
        "encodedLength() differs from encode().length",
        message);
    DhcpMessage again;
    try {
      again = DhcpMessage.decode(wire);
    } catch (MalformedPacketException e) {
      throw new AssertionError(
          "the re-encoded message does not decode: " + e.getMessage() + "; " + message, e);
    }
    check(
        again.equals(message),
        "the re-encoded message decodes to a different one: " + again,
        message);
    check(
        again.options().equals(message.options()),
        "the options changed: " + again.options(),
        message);
    check(
        again.sname().equals(message.sname()) && again.file().equals(message.file()),
        "sname or file changed",
        message);
    check(Arrays.equals(again.encode(), wire), "encoding is not stable", message);
    STATS.event(message.options().messageType().map(Enum::name).orElse("no type"));
  }

  @AfterAll
  static void summary() {
    System.out.println(STATS.summary());
  }

  /** The typed accessors promise never to fail on a decoded message. */
  private static void readEveryTypedOption(DhcpOptions o) {
    o.messageType();
    o.subnetMask();
    o.routers();
    o.dns();
    o.hostName();
    o.domainName();
    o.ntp();
    o.requestedIp();
    o.leaseTime();
    o.serverId();
    o.parameterRequestList();
    o.maxMessageSize();
    o.renewalTime();
    o.rebindingTime();
    o.clientId();
    o.relayAgentInformation();
    o.domainSearch();
    o.toString();
  }

  private static void check(boolean rule, String broken, DhcpMessage message) {
    if (!rule) {
      throw new AssertionError(broken + "; message: " + message);
    }
  }
}
