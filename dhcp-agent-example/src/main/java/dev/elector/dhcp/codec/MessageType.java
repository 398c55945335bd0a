package dev.elector.dhcp.codec;

import java.util.Optional;

/** The DHCP message types of option 53 (RFC 2132 section 9.6). */
public enum MessageType {
  DISCOVER(1),
  OFFER(2),
  REQUEST(3),
  DECLINE(4),
  ACK(5),
  NAK(6),
  RELEASE(7),
  INFORM(8);

  private final int code;

  MessageType(int code) {
    this.code = code;
  }

  /** Returns the wire value of option 53. */
  public int code() {
    return code;
  }

  /** Returns the type with wire value {@code code}, or empty for types this codec does not name. */
  public static Optional<MessageType> of(int code) {
    for (MessageType type : values()) {
      if (type.code == code) {
        return Optional.of(type);
      }
    }
    return Optional.empty();
  }
}
