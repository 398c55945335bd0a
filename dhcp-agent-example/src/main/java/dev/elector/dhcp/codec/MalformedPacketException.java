package dev.elector.dhcp.codec;

/**
 * Thrown when bytes cannot be decoded as a DHCPv4 message: the only exception decoding throws.
 *
 * <p>The message names what is wrong; {@link #offset()} is the byte offset in the packet where
 * decoding stopped.
 */
public final class MalformedPacketException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int offset;

  /** Creates an exception for a problem found at {@code offset} bytes into the packet. */
  public MalformedPacketException(String problem, int offset) {
    super(problem + " at offset " + offset);
    this.offset = offset;
  }

  /** Returns the byte offset in the packet where the problem was found. */
  public int offset() {
    return offset;
  }
}
