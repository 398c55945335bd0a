package dev.elector.dhcp.server;

/**
 * How a request reached the server.
 *
 * @param arrivedAsBroadcast true if the datagram was sent to a broadcast address rather than to the
 *     server's own address; only tells a RENEWING request (unicast) from a REBINDING one
 *     (broadcast), which are answered alike
 */
public record ReceiveContext(boolean arrivedAsBroadcast) {

  /** A request sent to the server's own address. */
  public static ReceiveContext unicast() {
    return new ReceiveContext(false);
  }

  /** A request sent to a broadcast address. */
  public static ReceiveContext broadcast() {
    return new ReceiveContext(true);
  }
}
