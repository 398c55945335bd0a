package dev.elector.dhcp.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DomainSearchCodecTest {
  /**
   * RFC 3397 section 3: "eng.apple.com." then "marketing.apple.com." with a pointer to offset 4.
   */
  private static final String RFC_EXAMPLE =
      "03 656e67 05 6170706c65 03 636f6d 00" + "09 6d61726b6574696e67 c004";

  @Test
  void encodesTheRfc3397ExampleWithCompressionToTheSameBytes() {
    byte[] encoded = DomainSearchCodec.encode(List.of("eng.apple.com", "marketing.apple.com"));

    assertEquals(Hex.of(Hex.bytes(RFC_EXAMPLE)), Hex.of(encoded));
  }

  @Test
  void decodesTheRfc3397ExampleSplitOverThreeOptionInstancesAsTheRfcShowsIt() throws Exception {
    String value = RFC_EXAMPLE.replace(" ", "");
    String split =
        "7709"
            + value.substring(0, 18)
            + "7709"
            + value.substring(18, 36)
            + "7709"
            + value.substring(36);

    DhcpMessage m = DhcpMessage.decode(Hex.bytes(Packets.REQUEST_HEADER, "350105", split, "ff"));

    assertEquals(List.of("eng.apple.com", "marketing.apple.com"), m.options().domainSearch());
  }

  @Test
  void pointsRepeatedAndSharedSuffixesBackToTheirFirstOccurrence() throws Exception {
    List<String> names =
        List.of("example.test", "lab.example.test", "example.test.", "LAB.Example.test");

    byte[] encoded = DomainSearchCodec.encode(names);

    assertEquals(
        Hex.of(
            Hex.bytes(
                "07 6578616d706c65 04 74657374 00", // example.test at 0
                "03 6c6162 c000", // lab + pointer to example.test
                "c000", // example.test again (trailing dot): a bare pointer
                "03 4c4142 07 4578616d706c65 c008")), // case differs: only "test" (at 8) is shared
        Hex.of(encoded));
    assertEquals(
        List.of("example.test", "lab.example.test", "example.test", "LAB.Example.test"),
        DomainSearchCodec.decode(encoded, 0));
  }

  @Test
  void roundTripsNamesWithoutCommonSuffixes() throws Exception {
    List<String> names = List.of("a.example", "b.test", "c.d.e.f");

    assertEquals(names, DomainSearchCodec.decode(DomainSearchCodec.encode(names), 0));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "pointer to itself                    | c000                         | does not point strictly backwards",
        "loop through an earlier label        | 0161 c000                    | does not point strictly backwards",
        "pointer to the start of its own name | 016100 0162 c003             | does not point strictly backwards",
        "forward pointer                      | c002 016100                  | does not point strictly backwards",
        "two pointers looping                 | 016100 0162 c006 0163 c004   | does not point strictly backwards",
        "truncated pointer                    | 016100 c0                    | compression pointer truncated",
        "label past the end                   | 05616263                     | runs past the end of the value",
        "no terminating zero                  | 03616263                     | runs past the end of the value",
        "extended label type 0x40             | 4161 00                      | label type 0x40 is not supported",
        "root name in the list                | 00                           | empty (root) name",
        "non-printable label byte             | 02610a 00                    | is not printable ASCII",
      })
  void rejectsMalformedListsWithAClearMessage(String what, String hex, String expected) {
    MalformedPacketException e =
        assertThrows(
            MalformedPacketException.class, () -> DomainSearchCodec.decode(Hex.bytes(hex), 300));

    assertTrue(e.getMessage().contains(expected), e.getMessage());
    assertTrue(e.getMessage().startsWith("option 119 domain search: "), e.getMessage());
    assertEquals(300, e.offset());
  }

  @Test
  void rejectsNamesLongerThan255Octets() {
    String label = "a".repeat(63);
    String tooLong = String.join(".", label, label, label, label); // 4 * 64 + 1 = 257 octets

    assertThrows(IllegalArgumentException.class, () -> DomainSearchCodec.encode(List.of(tooLong)));
    StringBuilder wire = new StringBuilder();
    for (int i = 0; i < 4; i++) {
      wire.append("3f").append("61".repeat(63));
    }
    MalformedPacketException e =
        assertThrows(
            MalformedPacketException.class,
            () -> DomainSearchCodec.decode(Hex.bytes(wire + "00"), 0));
    assertTrue(e.getMessage().contains("longer than 255 octets"), e.getMessage());
  }

  @Test
  void rejectsInvalidNamesOnEncode() {
    for (String bad : List.of("", ".", "a..b", "a b.test", "x".repeat(64) + ".test")) {
      assertThrows(
          IllegalArgumentException.class, () -> DomainSearchCodec.encode(List.of(bad)), bad);
    }
  }
}
