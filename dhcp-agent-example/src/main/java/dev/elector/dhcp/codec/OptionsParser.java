package dev.elector.dhcp.codec;

import java.io.ByteArrayOutputStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the option areas of a packet: the options field, then (if option 52 says so) the {@code
 * file} and {@code sname} fields, concatenating repeated options per RFC 3396.
 *
 * <p>Every step moves forward through a bounded array, so parsing ends after at most one pass over
 * each area.
 */
final class OptionsParser {
  static final int SNAME_OFFSET = 44;
  static final int FILE_OFFSET = 108;
  static final int OPTIONS_OFFSET = 240;

  private final byte[] packet;
  private final Map<Integer, ByteArrayOutputStream> values = new LinkedHashMap<>();
  private final Map<Integer, Integer> firstOffsets = new LinkedHashMap<>();

  private OptionsParser(byte[] packet) {
    this.packet = packet;
  }

  /** The options, checked, and which of file/sname held options instead of names. */
  record Parsed(DhcpOptions options, boolean fileOverloaded, boolean snameOverloaded) {}

  static Parsed parse(byte[] packet) throws MalformedPacketException {
    OptionsParser parser = new OptionsParser(packet);
    parser.readArea(OPTIONS_OFFSET, packet.length, true);
    int overload = 0;
    ByteArrayOutputStream overloadValue = parser.values.remove(OptionCode.OVERLOAD);
    if (overloadValue != null) {
      int offset = parser.firstOffsets.remove(OptionCode.OVERLOAD);
      byte[] value = overloadValue.toByteArray();
      OptionRules.check(OptionCode.OVERLOAD, value, offset);
      overload = value[0];
    }
    boolean file = (overload & 1) != 0;
    boolean sname = (overload & 2) != 0;
    if (file) {
      parser.readArea(FILE_OFFSET, OPTIONS_OFFSET - 4, false);
    }
    if (sname) {
      parser.readArea(SNAME_OFFSET, FILE_OFFSET, false);
    }
    LinkedHashMap<Integer, byte[]> checked = new LinkedHashMap<>();
    for (Map.Entry<Integer, ByteArrayOutputStream> entry : parser.values.entrySet()) {
      byte[] value = entry.getValue().toByteArray();
      OptionRules.check(entry.getKey(), value, parser.firstOffsets.get(entry.getKey()));
      checked.put(entry.getKey(), value);
    }
    return new Parsed(DhcpOptions.ofChecked(checked), file, sname);
  }

  /** Reads options in [start, end); the options field must close with the end option. */
  private void readArea(int start, int end, boolean endRequired) throws MalformedPacketException {
    int pos = start;
    while (pos < end) {
      int code = packet[pos] & 0xff;
      if (code == OptionCode.PAD) {
        pos++;
        continue;
      }
      if (code == OptionCode.END) {
        return;
      }
      if (pos + 1 >= end) {
        throw new MalformedPacketException("option " + code + " has no length byte", pos);
      }
      int len = packet[pos + 1] & 0xff;
      if (pos + 2 + len > end) {
        throw new MalformedPacketException(
            "option "
                + code
                + " length "
                + len
                + " runs past the end of its area ("
                + (end - pos - 2)
                + " left)",
            pos);
      }
      if (code == OptionCode.OVERLOAD && start != OPTIONS_OFFSET) {
        throw new MalformedPacketException("option 52 overload inside an overloaded field", pos);
      }
      values.computeIfAbsent(code, c -> new ByteArrayOutputStream()).write(packet, pos + 2, len);
      firstOffsets.putIfAbsent(code, pos);
      pos += 2 + len;
    }
    if (endRequired) {
      throw new MalformedPacketException("options end without the end option (255)", end);
    }
  }
}
