package dev.elector.dhcp.codec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/** Test helper: hex text to bytes, whitespace ignored. */
public final class Hex {
  private Hex() {}

  /** Concatenates the hex parts into bytes. */
  public static byte[] bytes(String... parts) {
    return HexFormat.of().parseHex(String.join("", parts).replaceAll("\\s+", ""));
  }

  /** Returns {@code count} zero bytes as hex. */
  public static String zeros(int count) {
    return "00".repeat(count);
  }

  /** Returns the bytes of a hex text resource next to {@code owner}. */
  public static byte[] resource(Class<?> owner, String name) {
    try (InputStream in = owner.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalArgumentException("no resource " + name);
      }
      return bytes(new String(in.readAllBytes(), StandardCharsets.US_ASCII));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Returns bytes as hex, for assertion messages. */
  public static String of(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }
}
