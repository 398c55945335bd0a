package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.MalformedPacketException;
import java.net.InetSocketAddress;

/**
 * Hears what {@link DhcpServer} does, for logging and metrics. Called on the server's receive
 * thread; keep it quick. An exception thrown here is logged and does not stop the server.
 */
public interface DhcpListener {

  /** A listener that does nothing. */
  DhcpListener NONE = new DhcpListener() {};

  /** Called after the engine decided on {@code request}, before any reply is sent. */
  default void handled(InetSocketAddress from, DhcpMessage request, Outcome outcome) {}

  /** Called after the reply to {@code outcome} left the socket. */
  default void sent(Outcome outcome) {}

  /** Called when a datagram from {@code from} could not be decoded. */
  default void malformed(InetSocketAddress from, MalformedPacketException problem) {}
}
