package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.DhcpOptions;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MessageType;
import dev.elector.dhcp.codec.OptionCode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Builds replies from scratch. From the request only xid, flags, hardware address, giaddr and
 * (where RFC 2131 table 3 says so) ciaddr are copied, plus the client identifier (RFC 6842) and
 * relay agent information (RFC 3046) options.
 */
final class ReplyFactory {
  /** Smallest maximum message size a client may announce (RFC 2132 section 9.10). */
  static final int MIN_MESSAGE_SIZE = 576;

  /** IP and UDP headers, which the maximum message size includes. */
  static final int IP_UDP_HEADERS = 28;

  /** The optional options this server can send, in the order sent when the client lists none. */
  static final List<Integer> OPTIONAL =
      List.of(
          OptionCode.ROUTER,
          OptionCode.DNS,
          OptionCode.DOMAIN_NAME,
          OptionCode.DOMAIN_SEARCH,
          OptionCode.NTP);

  private ReplyFactory() {}

  /** Builds an OFFER, ACK or INFORM-ACK; empty if the reply cannot fit the client's limit. */
  static Optional<DhcpMessage> configuration(
      DhcpMessage request,
      MessageType type,
      Ipv4Address yiaddr,
      Ipv4Address ciaddr,
      PoolOptions pool,
      boolean withLease) {
    DhcpOptions.Builder options = DhcpOptions.builder().messageType(type).serverId(pool.serverIp());
    if (withLease) {
      long lease = pool.leaseTime().getSeconds();
      options.leaseTime(lease).renewalTime(lease / 2).rebindingTime(lease * 7 / 8);
    }
    options.subnetMask(pool.subnetMask());
    echo(request, options);
    DhcpMessage.Builder reply = header(request).yiaddr(yiaddr).ciaddr(ciaddr);
    int limit = payloadLimit(request);
    if (withEchoLast(request, options, reply).encodedLength() > limit) {
      return Optional.empty();
    }
    for (int code : optionalOrder(request)) {
      Optional<Consumer<DhcpOptions.Builder>> setter = setter(code, pool);
      if (setter.isEmpty()) {
        continue;
      }
      setter.get().accept(options);
      if (withEchoLast(request, options, reply).encodedLength() > limit) {
        options.remove(code);
      }
    }
    return Optional.of(withEchoLast(request, options, reply));
  }

  /** Builds a NAK: message type, server identifier, message, and the echoed options. */
  static DhcpMessage nak(DhcpMessage request, PoolOptions pool, String why) {
    DhcpOptions.Builder options =
        DhcpOptions.builder().messageType(MessageType.NAK).serverId(pool.serverIp());
    if (why != null) {
      options.raw(OptionCode.MESSAGE, why.getBytes(StandardCharsets.US_ASCII));
    }
    echo(request, options);
    DhcpMessage.Builder reply = header(request);
    if (!request.giaddr().isAny()) {
      reply.broadcast(true);
    }
    return withEchoLast(request, options, reply);
  }

  /** Returns the largest UDP payload the client accepts. */
  static int payloadLimit(DhcpMessage request) {
    int announced = request.options().maxMessageSize().orElse(MIN_MESSAGE_SIZE);
    return Math.max(MIN_MESSAGE_SIZE, announced) - IP_UDP_HEADERS;
  }

  private static DhcpMessage.Builder header(DhcpMessage request) {
    return DhcpMessage.builder()
        .op(DhcpMessage.BOOTREPLY)
        .htype(request.htype())
        .hlen(request.hlen())
        .chaddr(request.chaddr())
        .xid(request.xid())
        .flags(request.flags())
        .giaddr(request.giaddr());
  }

  private static void echo(DhcpMessage request, DhcpOptions.Builder options) {
    request.options().clientId().ifPresent(options::clientId);
  }

  /** Relay agent information goes last, as relays expect (RFC 3046 section 2.2). */
  private static DhcpMessage withEchoLast(
      DhcpMessage request, DhcpOptions.Builder options, DhcpMessage.Builder reply) {
    DhcpOptions.Builder copy = options.build().toBuilder();
    request.options().relayAgentInformation().ifPresent(copy::relayAgentInformation);
    return reply.options(copy.build()).build();
  }

  /**
   * Returns the optional options to offer: those the client asked for in option 55, in its order,
   * or all of them when it sent no list.
   */
  private static List<Integer> optionalOrder(DhcpMessage request) {
    List<Integer> asked = request.options().parameterRequestList();
    if (!request.options().contains(OptionCode.PARAMETER_REQUEST_LIST)) {
      return OPTIONAL;
    }
    Set<Integer> order = new LinkedHashSet<>();
    for (int code : asked) {
      if (OPTIONAL.contains(code)) {
        order.add(code);
      }
    }
    return new ArrayList<>(order);
  }

  private static Optional<Consumer<DhcpOptions.Builder>> setter(int code, PoolOptions pool) {
    return switch (code) {
      case OptionCode.ROUTER -> pool.router().map(r -> o -> o.routers(List.of(r)));
      case OptionCode.DNS ->
          pool.dns().isEmpty() ? Optional.empty() : Optional.of(o -> o.dns(pool.dns()));
      case OptionCode.DOMAIN_NAME -> pool.domainName().map(d -> o -> o.domainName(d));
      case OptionCode.DOMAIN_SEARCH ->
          pool.domainSearch().isEmpty()
              ? Optional.empty()
              : Optional.of(o -> o.domainSearch(pool.domainSearch()));
      case OptionCode.NTP ->
          pool.ntp().isEmpty() ? Optional.empty() : Optional.of(o -> o.ntp(pool.ntp()));
      default -> Optional.empty();
    };
  }
}
