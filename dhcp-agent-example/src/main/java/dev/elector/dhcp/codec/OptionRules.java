package dev.elector.dhcp.codec;

/** Length and content rules for the options this codec types, shared by decoding and building. */
final class OptionRules {
  private OptionRules() {}

  /**
   * Checks one (concatenated) option value.
   *
   * @param offset where the option starts in the packet, for the message
   */
  static void check(int code, byte[] value, int offset) throws MalformedPacketException {
    int len = value.length;
    switch (code) {
      case OptionCode.SUBNET_MASK,
          OptionCode.REQUESTED_IP,
          OptionCode.SERVER_ID,
          OptionCode.LEASE_TIME,
          OptionCode.RENEWAL_TIME,
          OptionCode.REBINDING_TIME ->
          requireLength(code, len, len == 4, "exactly 4", offset);
      case OptionCode.ROUTER, OptionCode.DNS, OptionCode.NTP ->
          requireLength(code, len, len >= 4 && len % 4 == 0, "a positive multiple of 4", offset);
      case OptionCode.HOST_NAME,
          OptionCode.DOMAIN_NAME,
          OptionCode.PARAMETER_REQUEST_LIST,
          OptionCode.MESSAGE ->
          requireLength(code, len, len >= 1, "at least 1", offset);
      case OptionCode.MESSAGE_TYPE -> requireLength(code, len, len == 1, "exactly 1", offset);
      case OptionCode.MAX_MESSAGE_SIZE -> requireLength(code, len, len == 2, "exactly 2", offset);
      case OptionCode.CLIENT_ID -> requireLength(code, len, len >= 2, "at least 2", offset);
      case OptionCode.OVERLOAD -> {
        requireLength(code, len, len == 1, "exactly 1", offset);
        if (value[0] < 1 || value[0] > 3) {
          throw new MalformedPacketException(
              "option 52 overload value " + value[0] + " is not 1, 2 or 3", offset);
        }
      }
      case OptionCode.DOMAIN_SEARCH -> DomainSearchCodec.decode(value, offset);
      default -> {}
    }
  }

  private static void requireLength(int code, int len, boolean ok, String rule, int offset)
      throws MalformedPacketException {
    if (!ok) {
      throw new MalformedPacketException(
          "option " + code + " has length " + len + "; it needs " + rule, offset);
    }
  }
}
