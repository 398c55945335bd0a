package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.examples.CommandLines;
import picocli.CommandLine;

/** The DHCP mains' command lines: {@link CommandLines} plus IPv4 addresses and networks. */
public final class DhcpCommandLines {
  private DhcpCommandLines() {}

  /**
   * A command line for {@code command} that also reads {@link Ipv4Address} and {@link Ipv4Cidr}.
   */
  public static CommandLine create(Object command) {
    CommandLine cli = CommandLines.create(command);
    cli.registerConverter(
        Ipv4Address.class,
        text -> CommandLines.convert(text, Ipv4Address::parse, "an IPv4 address like 192.0.2.1"));
    cli.registerConverter(
        Ipv4Cidr.class,
        text -> CommandLines.convert(text, Ipv4Cidr::parse, "a network like 192.0.2.0/24"));
    return cli;
  }
}
