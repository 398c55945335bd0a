package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.DhcpOptions;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.codec.MessageType;
import dev.elector.dhcp.codec.OptionCode;
import dev.elector.dhcp.server.Outcome.IgnoreReason;
import dev.elector.dhcp.server.Outcome.Kind;
import java.util.Objects;
import java.util.Optional;

/**
 * The DHCPv4 server logic of RFC 2131, without sockets: one decoded request in, at most one reply
 * out, with its destination.
 *
 * <ul>
 *   <li>DISCOVER gets an OFFER of the MAC's leased address.
 *   <li>REQUEST gets an ACK if it names the leased address, a NAK if it names another; in SELECTING
 *       state it is ignored when its server identifier is not ours.
 *   <li>INFORM gets an ACK with configuration but no lease time and no yiaddr.
 *   <li>RELEASE and DECLINE get no reply and are only reported; leases never change.
 *   <li>A MAC the lease source does not know gets no reply at all.
 * </ul>
 *
 * <p>The engine holds no mutable state and takes no locks, so any number of threads may call {@link
 * #handle} at once; it reads the lease source once per request.
 */
public final class DhcpEngine {
  private final LeaseSource leases;

  /** Returns an engine answering from {@code leases}. */
  public DhcpEngine(LeaseSource leases) {
    this.leases = Objects.requireNonNull(leases, "leases");
  }

  /** Returns what to do with {@code request}, received as {@code context} describes. */
  public Outcome handle(DhcpMessage request, ReceiveContext context) {
    if (request.op() != DhcpMessage.BOOTREQUEST) {
      return Outcome.ignored(IgnoreReason.NOT_A_REQUEST, request.mac().orElse(null), null);
    }
    Optional<MessageType> type = request.options().messageType();
    if (!request.options().contains(OptionCode.MESSAGE_TYPE)) {
      return Outcome.ignored(IgnoreReason.NOT_DHCP, request.mac().orElse(null), null);
    }
    Optional<MacAddress> mac = request.mac();
    if (mac.isEmpty()) {
      return Outcome.ignored(IgnoreReason.NOT_ETHERNET, null, null);
    }
    if (type.isEmpty()) {
      return Outcome.ignored(IgnoreReason.UNSUPPORTED_TYPE, mac.get(), null);
    }
    return switch (type.get()) {
      case DISCOVER -> discover(request, mac.get());
      case REQUEST -> request(request, mac.get(), context);
      case INFORM -> inform(request, mac.get());
      case RELEASE -> report(Kind.RELEASED, request, mac.get(), request.ciaddr());
      case DECLINE ->
          report(
              Kind.DECLINED,
              request,
              mac.get(),
              request.options().requestedIp().orElse(Ipv4Address.ANY));
      default -> Outcome.ignored(IgnoreReason.UNSUPPORTED_TYPE, mac.get(), null);
    };
  }

  private Outcome discover(DhcpMessage request, MacAddress mac) {
    Optional<Lease> lease = leases.leaseFor(mac);
    if (lease.isEmpty()) {
      return Outcome.ignored(IgnoreReason.UNKNOWN_CLIENT, mac, null);
    }
    PoolOptions pool = leases.options();
    Ipv4Address ip = lease.get().ip();
    return configured(
        Kind.OFFERED, MessageType.OFFER, request, mac, ip, ip, Ipv4Address.ANY, null, pool, true);
  }

  private Outcome request(DhcpMessage request, MacAddress mac, ReceiveContext context) {
    DhcpOptions options = request.options();
    PoolOptions pool = leases.options();
    RequestState state;
    Optional<Ipv4Address> asked;
    if (options.serverId().isPresent()) {
      state = RequestState.SELECTING;
      if (!options.serverId().get().equals(pool.serverIp())) {
        return Outcome.ignored(IgnoreReason.OTHER_SERVER, mac, state);
      }
      asked = options.requestedIp();
    } else if (!request.ciaddr().isAny()) {
      state = context.arrivedAsBroadcast() ? RequestState.REBINDING : RequestState.RENEWING;
      asked = Optional.of(request.ciaddr());
    } else {
      state = RequestState.INIT_REBOOT;
      asked = options.requestedIp();
    }
    if (asked.isEmpty()) {
      return Outcome.ignored(IgnoreReason.INCOMPLETE_REQUEST, mac, state);
    }
    Optional<Lease> lease = leases.leaseFor(mac);
    if (lease.isEmpty()) {
      return Outcome.ignored(IgnoreReason.UNKNOWN_CLIENT, mac, state);
    }
    Ipv4Address ip = lease.get().ip();
    if (!asked.get().equals(ip)) {
      DhcpMessage nak =
          ReplyFactory.nak(request, pool, "requested address " + asked.get() + " is not yours");
      if (nak.encodedLength() > ReplyFactory.payloadLimit(request)) {
        nak = ReplyFactory.nak(request, pool, null); // the message is optional; the NAK is not
      }
      if (nak.encodedLength() > ReplyFactory.payloadLimit(request)) {
        return Outcome.ignored(IgnoreReason.REPLY_TOO_LARGE, mac, state);
      }
      Destination to =
          request.giaddr().isAny() ? Destination.broadcast() : Destination.relay(request.giaddr());
      return Outcome.replied(Kind.NAKED, mac, asked.get(), state, new Reply(nak, to));
    }
    return configured(
        Kind.ACKED, MessageType.ACK, request, mac, ip, ip, request.ciaddr(), state, pool, true);
  }

  private Outcome inform(DhcpMessage request, MacAddress mac) {
    if (leases.leaseFor(mac).isEmpty()) {
      return Outcome.ignored(IgnoreReason.UNKNOWN_CLIENT, mac, null);
    }
    PoolOptions pool = leases.options();
    return configured(
        Kind.INFORMED,
        MessageType.ACK,
        request,
        mac,
        request.ciaddr(),
        Ipv4Address.ANY,
        request.ciaddr(),
        null,
        pool,
        false);
  }

  private Outcome report(Kind kind, DhcpMessage request, MacAddress mac, Ipv4Address address) {
    Optional<Ipv4Address> serverId = request.options().serverId();
    if (serverId.isPresent() && !serverId.get().equals(leases.options().serverIp())) {
      return Outcome.ignored(IgnoreReason.OTHER_SERVER, mac, null);
    }
    if (leases.leaseFor(mac).isEmpty()) {
      return Outcome.ignored(IgnoreReason.UNKNOWN_CLIENT, mac, null);
    }
    return Outcome.reported(kind, mac, address);
  }

  private static Outcome configured(
      Kind kind,
      MessageType type,
      DhcpMessage request,
      MacAddress mac,
      Ipv4Address reported,
      Ipv4Address yiaddr,
      Ipv4Address ciaddr,
      RequestState state,
      PoolOptions pool,
      boolean withLease) {
    Optional<DhcpMessage> reply =
        ReplyFactory.configuration(request, type, yiaddr, ciaddr, pool, withLease);
    if (reply.isEmpty()) {
      return Outcome.ignored(IgnoreReason.REPLY_TOO_LARGE, mac, state);
    }
    return Outcome.replied(
        kind, mac, reported, state, new Reply(reply.get(), destinationOf(request)));
  }

  /** RFC 2131 section 4.1: relay first, then the client's own address, else broadcast. */
  private static Destination destinationOf(DhcpMessage request) {
    if (!request.giaddr().isAny()) {
      return Destination.relay(request.giaddr());
    }
    if (!request.ciaddr().isAny()) {
      return Destination.client(request.ciaddr());
    }
    return Destination.broadcast();
  }
}
