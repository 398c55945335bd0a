package dev.elector.reliability.fuzz;

import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.codec.MalformedPacketException;
import dev.elector.dhcp.server.Outcome;
import dev.elector.dhcp.server.Reply;
import java.util.Optional;

/**
 * What must hold for every request the engine handles, whatever the bytes: a reply goes only to a
 * MAC of the table, carries only that MAC's own address (or 0.0.0.0), is well formed, and fits the
 * client's maximum message size.
 */
final class EngineInvariants {
  /**
   * RFC 2132 9.10: the smallest maximum message size, which includes 28 bytes of IP and UDP
   * headers.
   */
  private static final int MIN_MESSAGE_SIZE = 576;

  private static final int IP_UDP_HEADERS = 28;

  private EngineInvariants() {}

  /**
   * Checks {@code outcome} of {@code request} against {@code table}.
   *
   * @throws AssertionError naming the broken rule
   */
  static void check(LeaseTable table, DhcpMessage request, Outcome outcome) {
    Optional<MacAddress> mac = request.mac();
    Optional<Ipv4Address> leased = mac.flatMap(table::ipOf);
    if (leased.isEmpty()) {
      require(
          outcome.kind() == Outcome.Kind.IGNORED,
          "a client the table does not know got " + outcome,
          request);
      return;
    }
    Ipv4Address own = leased.get();
    switch (outcome.kind()) {
      case OFFERED, ACKED ->
          require(
              outcome.address().equals(Optional.of(own)),
              outcome.kind() + " names " + outcome.address() + ", not the client's own " + own,
              request);
      default -> {}
    }
    if (outcome.reply().isEmpty()) {
      return;
    }
    Reply reply = outcome.reply().get();
    DhcpMessage answer = reply.message();
    require(answer.op() == DhcpMessage.BOOTREPLY, "the reply's op is " + answer.op(), request);
    require(answer.xid() == request.xid(), "the reply's xid differs from the request's", request);
    require(
        answer.mac().equals(mac),
        "the reply is addressed to " + answer.mac() + ", not " + mac.get(),
        request);
    require(
        answer.yiaddr().equals(own) || answer.yiaddr().isAny(),
        "the reply gives " + mac.get() + " yiaddr " + answer.yiaddr() + "; its lease is " + own,
        request);
    require(
        !(outcome.kind() == Outcome.Kind.OFFERED || outcome.kind() == Outcome.Kind.ACKED)
            || answer.yiaddr().equals(own),
        outcome.kind() + " without the leased address in yiaddr",
        request);
    int limit =
        Math.max(MIN_MESSAGE_SIZE, request.options().maxMessageSize().orElse(MIN_MESSAGE_SIZE))
            - IP_UDP_HEADERS;
    require(
        answer.encodedLength() <= limit,
        outcome.kind()
            + " reply of "
            + answer.encodedLength()
            + " bytes exceeds the client's limit of "
            + limit,
        request);
    try {
      require(
          DhcpMessage.decode(answer.encode()).equals(answer),
          "the reply does not decode to itself",
          request);
    } catch (MalformedPacketException e) {
      throw new AssertionError(
          "the reply does not decode: " + e.getMessage() + "; request: " + request, e);
    }
  }

  private static void require(boolean rule, String broken, DhcpMessage request) {
    if (!rule) {
      throw new AssertionError(broken + "; request: " + request);
    }
  }
}
