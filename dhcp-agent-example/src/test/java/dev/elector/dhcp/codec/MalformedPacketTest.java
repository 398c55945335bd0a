package dev.elector.dhcp.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Decoding untrusted bytes fails only with MalformedPacketException, naming the problem and offset.
 */
class MalformedPacketTest {

  @Test
  void everyTruncationOfAHandBuiltDiscoverFailsCleanly() {
    byte[] packet = Packets.discover();
    for (int length = 0; length < packet.length; length++) {
      byte[] prefix = Arrays.copyOf(packet, length);
      assertThrows(
          MalformedPacketException.class, () -> DhcpMessage.decode(prefix), "prefix of " + length);
    }
  }

  @Test
  void everyTruncationOfTheCapturedUdhcpcDiscoverBeforeItsEndOptionFailsCleanly() throws Exception {
    byte[] packet = Hex.resource(MalformedPacketTest.class, "udhcpc-1.35-discover.hex");
    int end = 240 + 49; // the end option of the capture, after 49 octets of options
    assertEquals((byte) 0xff, packet[end]);
    for (int length = 0; length <= end; length++) {
      byte[] prefix = Arrays.copyOf(packet, length);
      assertThrows(
          MalformedPacketException.class, () -> DhcpMessage.decode(prefix), "prefix of " + length);
    }
    DhcpMessage.decode(Arrays.copyOf(packet, end + 1));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "short header          | 0          | 10    | 10  | shorter than the 240-byte header",
        "op 3                  | 0          | 03    | 0   | op 3 is neither",
        "op 0                  | 0          | 00    | 0   | op 0 is neither",
        "hlen 17               | 2          | 11    | 2   | hlen 17 exceeds the 16-byte chaddr",
        "hlen 255              | 2          | ff    | 2   | hlen 255 exceeds",
        "bad magic cookie      | 236        | 63825364 | 236 | magic cookie 0x63825364 is not 0x63825363",
        "length past the end   | 244        | 7f    | 243 | option 55 length 127 runs past the end",
        "no end option         | 257        | 00    | 258 | without the end option",
      })
  void rejectsBrokenFramingNamingProblemAndOffset(
      String what, int at, String patch, int offset, String message) {
    byte[] packet = Packets.discover();
    byte[] bytes = Hex.bytes(patch);
    if (what.equals("short header")) {
      packet = Arrays.copyOf(packet, 10);
    } else {
      System.arraycopy(bytes, 0, packet, at, bytes.length);
    }
    byte[] input = packet;

    MalformedPacketException e =
        assertThrows(MalformedPacketException.class, () -> DhcpMessage.decode(input));

    assertTrue(e.getMessage().contains(message), e.getMessage());
    assertEquals(offset, e.offset(), e.getMessage());
    assertTrue(e.getMessage().endsWith(" at offset " + offset), e.getMessage());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "message type of 2 octets    | 350201 01          | option 53 has length 2; it needs exactly 1",
        "repeated message type       | 350101 350101      | option 53 has length 2",
        "requested IP of 3 octets    | 3203 c00002        | option 50 has length 3; it needs exactly 4",
        "router list of 5 octets     | 0305 c0000201 01   | option 3 has length 5; it needs a positive multiple of 4",
        "empty DNS list              | 0600               | option 6 has length 0",
        "max message size of 1 octet | 3901 02            | option 57 has length 1",
        "client id of 1 octet        | 3d01 01            | option 61 has length 1; it needs at least 2",
        "overload value 4            | 3401 04            | option 52 overload value 4",
        "option without length byte  | 35                 | option 53 has no length byte",
        "domain search loop          | 7702 c000          | option 119 domain search: compression pointer to 0",
        "domain search forward ptr   | 7705 c002 016100   | does not point strictly backwards",
      })
  void rejectsOptionsBreakingTheirRules(String what, String options, String message) {
    String tail = what.equals("option without length byte") ? "" : "ff";
    byte[] packet = Hex.bytes(Packets.REQUEST_HEADER, options, tail);

    MalformedPacketException e =
        assertThrows(MalformedPacketException.class, () -> DhcpMessage.decode(packet));

    assertTrue(e.getMessage().contains(message), e.getMessage());
    assertTrue(e.offset() >= 240 && e.offset() <= packet.length, e.getMessage());
  }

  @Test
  void rejectsOverloadNestedInsideAnOverloadedField() {
    byte[] packet = Hex.bytes(Packets.REQUEST_HEADER, "350101", "340101", "ff");
    System.arraycopy(Hex.bytes("340102 ff"), 0, packet, 108, 4);

    MalformedPacketException e =
        assertThrows(MalformedPacketException.class, () -> DhcpMessage.decode(packet));

    assertEquals(108, e.offset());
  }

  @Test
  void rejectsAnOverloadedFileFieldWhoseOptionRunsPastTheField() {
    byte[] packet = Hex.bytes(Packets.REQUEST_HEADER, "350101", "340101", "ff");
    System.arraycopy(
        Hex.bytes("0c7f"), 0, packet, 230, 2); // host name of 127 octets near the end of file

    MalformedPacketException e =
        assertThrows(MalformedPacketException.class, () -> DhcpMessage.decode(packet));

    assertTrue(e.getMessage().contains("runs past the end of its area"), e.getMessage());
  }

  @Test
  void randomGarbageAndRandomlyCorruptedPacketsOnlyEverFailWithTheOneException() {
    Random random = new Random(20240131L);
    byte[] valid = Hex.resource(MalformedPacketTest.class, "udhcpc-1.35-discover.hex");
    IntStream.range(0, 20_000)
        .forEach(
            i -> {
              byte[] input;
              if (i % 2 == 0) {
                input = new byte[random.nextInt(700)];
                random.nextBytes(input);
                if (input.length >= 240 && random.nextBoolean()) {
                  System.arraycopy(
                      Hex.bytes("63825363"), 0, input, 236, 4); // get past the cookie check
                }
              } else {
                input = valid.clone();
                int flips = 1 + random.nextInt(8);
                for (int f = 0; f < flips; f++) {
                  input[240 + random.nextInt(input.length - 240)] = (byte) random.nextInt(256);
                }
              }
              try {
                DhcpMessage decoded = DhcpMessage.decode(input);
                DhcpMessage.decode(decoded.encode());
              } catch (MalformedPacketException expected) {
                assertTrue(
                    expected.offset() >= 0 && expected.offset() <= input.length,
                    expected.getMessage());
              } catch (RuntimeException | Error e) {
                fail("input " + Hex.of(input) + " threw " + e, e);
              }
            });
  }
}
