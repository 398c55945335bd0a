package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.DhcpMessage;
import java.util.Objects;

/**
 * A message for the server to send and where to send it.
 *
 * @param message the reply, fitting the client's maximum message size
 * @param destination where it goes
 */
public record Reply(DhcpMessage message, Destination destination) {

  /** Rejects nulls. */
  public Reply {
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(destination, "destination");
  }
}
