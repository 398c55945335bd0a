package dev.elector.examples;

import java.net.InetSocketAddress;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A listen address from a {@code HOST:PORT} flag. The host may be left out ({@code :8080} listens
 * on every interface) or be an IPv6 address in brackets ({@code [::1]:0}); port 0 picks a free
 * port.
 */
public record HostPort(String host, int port) {

  /**
   * Reads {@code text}.
   *
   * @throws TypeConversionException saying how to write the address
   */
  public static HostPort parse(String text) {
    int colon = text.lastIndexOf(':');
    String host = colon < 0 ? "" : text.substring(0, colon);
    String port = colon < 0 ? "" : text.substring(colon + 1);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (!port.matches("\\d{1,5}") || Integer.parseInt(port) > 65_535) {
      throw new TypeConversionException(
          "'"
              + text
              + "' is not HOST:PORT; write it like"
              + " 0.0.0.0:8080 or 127.0.0.1:0 (port 0 picks a free port)");
    }
    return new HostPort(host.isEmpty() ? "0.0.0.0" : host, Integer.parseInt(port));
  }

  /** The socket address to bind (resolving the host). */
  public InetSocketAddress toSocketAddress() {
    return new InetSocketAddress(host, port);
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }

  /** The picocli converter; registered for every {@code HostPort} option. */
  public static final class Converter implements ITypeConverter<HostPort> {
    @Override
    public HostPort convert(String text) {
      return parse(text);
    }
  }
}
