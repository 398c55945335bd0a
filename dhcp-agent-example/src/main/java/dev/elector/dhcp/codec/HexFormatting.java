package dev.elector.dhcp.codec;

import java.util.HexFormat;

/** Hex rendering for toString output. */
final class HexFormatting {
  private static final HexFormat HEX = HexFormat.of();

  private HexFormatting() {}

  static String hex(byte[] bytes) {
    return HEX.formatHex(bytes);
  }
}
