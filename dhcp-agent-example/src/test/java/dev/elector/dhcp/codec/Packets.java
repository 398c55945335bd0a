package dev.elector.dhcp.codec;

import static dev.elector.dhcp.codec.Hex.zeros;

/** Hand-built wire packets shared by codec tests. */
final class Packets {
  private Packets() {}

  /**
   * The fixed BOOTP header of a request from 52:54:00:ab:cd:ef, xid 0x12345678, secs 3, broadcast
   * flag.
   */
  static final String REQUEST_HEADER =
      "01 01 06 00" // op BOOTREQUEST, htype Ethernet, hlen 6, hops 0
          + "12345678" // xid
          + "0003 8000" // secs 3, flags: broadcast
          + "00000000 00000000" // ciaddr, yiaddr
          + "00000000 00000000" // siaddr, giaddr
          + "525400abcdef"
          + zeros(10) // chaddr
          + zeros(64) // sname
          + zeros(128) // file
          + "63825363"; // magic cookie

  /** A DISCOVER ending exactly at its end option (no padding), 258 bytes. */
  static final String DISCOVER =
      REQUEST_HEADER
          + "3501 01" // 53 message type DISCOVER
          + "3703 010306" // 55 parameter request list: mask, router, dns
          + "3d07 01 525400abcdef" // 61 client id, type 1 + MAC
          + "ff"; // end

  static byte[] discover() {
    return Hex.bytes(DISCOVER);
  }
}
