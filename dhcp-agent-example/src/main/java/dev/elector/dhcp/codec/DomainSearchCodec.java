package dev.elector.dhcp.codec;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The domain search list of option 119 (RFC 3397): DNS names in RFC 1035 wire form, with
 * compression pointers whose offsets count from the start of the (concatenated) option value.
 */
final class DomainSearchCodec {
  private static final int MAX_NAME_OCTETS = 255;
  private static final int MAX_LABEL = 63;
  private static final int MAX_POINTER = 0x3fff;
  private static final int MAX_DECODED_CHARS = 65_535;

  private DomainSearchCodec() {}

  /**
   * Encodes {@code names}, replacing each name's longest suffix already written with a pointer.
   *
   * @throws IllegalArgumentException if a name is not a valid DNS name
   */
  static byte[] encode(List<String> names) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Map<String, Integer> written = new HashMap<>();
    for (String name : names) {
      List<String> labels = labelsOf(name);
      for (int i = 0; i < labels.size(); i++) {
        String suffix = String.join(".", labels.subList(i, labels.size()));
        Integer at = written.get(suffix);
        if (at != null) {
          out.write(0xc0 | (at >>> 8));
          out.write(at & 0xff);
          break;
        }
        if (out.size() <= MAX_POINTER) {
          written.put(suffix, out.size());
        }
        byte[] label = labels.get(i).getBytes(StandardCharsets.US_ASCII);
        out.write(label.length);
        out.write(label, 0, label.length);
        if (i == labels.size() - 1) {
          out.write(0);
        }
      }
    }
    return out.toByteArray();
  }

  private static List<String> labelsOf(String name) {
    String trimmed = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    if (trimmed.isEmpty()) {
      throw new IllegalArgumentException("domain name '" + name + "' is empty");
    }
    List<String> labels = List.of(trimmed.split("\\.", -1));
    int octets = 1;
    for (String label : labels) {
      if (label.isEmpty() || label.length() > MAX_LABEL) {
        throw new IllegalArgumentException(
            "domain name '"
                + name
                + "' has a label of "
                + label.length()
                + " characters; labels need 1-63");
      }
      for (int i = 0; i < label.length(); i++) {
        if (!isLabelChar(label.charAt(i))) {
          throw new IllegalArgumentException(
              "domain name '" + name + "' has a character that is not printable ASCII");
        }
      }
      octets += label.length() + 1;
    }
    if (octets > MAX_NAME_OCTETS) {
      throw new IllegalArgumentException(
          "domain name '" + name + "' is " + octets + " octets; the limit is 255");
    }
    return labels;
  }

  private static boolean isLabelChar(int c) {
    return c > 0x20 && c < 0x7f && c != '.';
  }

  /**
   * Decodes a search list, following pointers only strictly backwards so that loops and forward
   * references fail instead of spinning.
   *
   * @param packetOffset where the option value starts in the packet, for error messages
   */
  static List<String> decode(byte[] data, int packetOffset) throws MalformedPacketException {
    List<String> names = new ArrayList<>();
    int decodedChars = 0;
    int pos = 0;
    while (pos < data.length) {
      StringBuilder name = new StringBuilder();
      int octets = 1;
      int cursor = pos;
      int next = -1;
      int lowestTarget = pos;
      while (true) {
        if (cursor >= data.length) {
          throw problem("name runs past the end of the value", packetOffset, cursor);
        }
        int len = data[cursor] & 0xff;
        if (len == 0) {
          if (next < 0) {
            next = cursor + 1;
          }
          break;
        }
        int kind = len & 0xc0;
        if (kind == 0xc0) {
          if (cursor + 1 >= data.length) {
            throw problem("compression pointer truncated", packetOffset, cursor);
          }
          int target = ((len & 0x3f) << 8) | (data[cursor + 1] & 0xff);
          if (target >= lowestTarget) {
            throw problem(
                "compression pointer to " + target + " does not point strictly backwards",
                packetOffset,
                cursor);
          }
          if (next < 0) {
            next = cursor + 2;
          }
          lowestTarget = target;
          cursor = target;
          continue;
        }
        if (kind != 0) {
          throw problem(
              "label type 0x" + Integer.toHexString(kind) + " is not supported",
              packetOffset,
              cursor);
        }
        if (cursor + 1 + len > data.length) {
          throw problem(
              "label of " + len + " octets runs past the end of the value", packetOffset, cursor);
        }
        octets += len + 1;
        if (octets > MAX_NAME_OCTETS) {
          throw problem("name is longer than 255 octets", packetOffset, cursor);
        }
        if (name.length() > 0) {
          name.append('.');
        }
        for (int i = cursor + 1; i <= cursor + len; i++) {
          int c = data[i] & 0xff;
          if (!isLabelChar(c)) {
            throw problem(
                "label byte 0x" + Integer.toHexString(c) + " is not printable ASCII",
                packetOffset,
                i);
          }
          name.append((char) c);
        }
        cursor += len + 1;
      }
      if (name.length() == 0) {
        throw problem("empty (root) name in the list", packetOffset, pos);
      }
      decodedChars += name.length();
      if (decodedChars > MAX_DECODED_CHARS) {
        throw problem(
            "list expands beyond " + MAX_DECODED_CHARS + " characters", packetOffset, pos);
      }
      names.add(name.toString());
      pos = next;
    }
    return List.copyOf(names);
  }

  private static MalformedPacketException problem(String what, int packetOffset, int valueOffset) {
    return new MalformedPacketException(
        "option 119 domain search: " + what + " (byte " + valueOffset + " of the value)",
        packetOffset);
  }
}
