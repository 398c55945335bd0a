package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import java.util.Optional;

/**
 * What the engine made of one request: the kind of answer, the reply if any, and the facts worth
 * logging or counting (client, address, request state, why it was ignored).
 */
public final class Outcome {

  /** The kind of result. */
  public enum Kind {
    /** DISCOVER answered with an OFFER. */
    OFFERED,
    /** REQUEST answered with an ACK. */
    ACKED,
    /** REQUEST answered with a NAK. */
    NAKED,
    /** INFORM answered with an ACK carrying configuration only. */
    INFORMED,
    /** RELEASE from a known client; no reply, no change to any lease. */
    RELEASED,
    /**
     * DECLINE from a known client (the address is in use elsewhere); no reply, no change to any
     * lease.
     */
    DECLINED,
    /** No reply; see {@link #ignoredBecause()}. */
    IGNORED
  }

  /** Why a request got no reply. */
  public enum IgnoreReason {
    /** op was BOOTREPLY. */
    NOT_A_REQUEST,
    /** No option 53: plain BOOTP, which this server does not serve. */
    NOT_DHCP,
    /** A message type clients do not send, or one this server does not name. */
    UNSUPPORTED_TYPE,
    /** Not Ethernet with a 6-byte address, so there is no MAC to look up. */
    NOT_ETHERNET,
    /** The pool has no lease for this MAC. */
    UNKNOWN_CLIENT,
    /** The server identifier names another server. */
    OTHER_SERVER,
    /** A REQUEST matching no RFC 2131 state, e.g. without requested IP or ciaddr. */
    INCOMPLETE_REQUEST,
    /** Even the reply without optional options exceeds the client's maximum message size. */
    REPLY_TOO_LARGE
  }

  private final Kind kind;
  private final MacAddress mac;
  private final Ipv4Address address;
  private final RequestState state;
  private final IgnoreReason ignoredBecause;
  private final Reply reply;

  private Outcome(
      Kind kind,
      MacAddress mac,
      Ipv4Address address,
      RequestState state,
      IgnoreReason reason,
      Reply reply) {
    this.kind = kind;
    this.mac = mac;
    this.address = address;
    this.state = state;
    this.ignoredBecause = reason;
    this.reply = reply;
  }

  static Outcome replied(
      Kind kind, MacAddress mac, Ipv4Address address, RequestState state, Reply reply) {
    return new Outcome(kind, mac, address, state, null, reply);
  }

  static Outcome reported(Kind kind, MacAddress mac, Ipv4Address address) {
    return new Outcome(kind, mac, address, null, null, null);
  }

  static Outcome ignored(IgnoreReason reason, MacAddress mac, RequestState state) {
    return new Outcome(Kind.IGNORED, mac, null, state, reason, null);
  }

  public Kind kind() {
    return kind;
  }

  /** Returns the reply to send; empty for RELEASED, DECLINED and IGNORED. */
  public Optional<Reply> reply() {
    return Optional.ofNullable(reply);
  }

  /** Returns the client's MAC, when the request carried one. */
  public Optional<MacAddress> mac() {
    return Optional.ofNullable(mac);
  }

  /**
   * Returns the address concerned: offered or acknowledged, refused (NAK: the one the client asked
   * for), released (ciaddr) or declined (requested IP).
   */
  public Optional<Ipv4Address> address() {
    return Optional.ofNullable(address);
  }

  /** Returns the client state of a REQUEST. */
  public Optional<RequestState> state() {
    return Optional.ofNullable(state);
  }

  /** Returns why the request got no reply, for IGNORED. */
  public Optional<IgnoreReason> ignoredBecause() {
    return Optional.ofNullable(ignoredBecause);
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder(kind.name());
    mac().ifPresent(m -> text.append(" mac=").append(m));
    address().ifPresent(a -> text.append(" ip=").append(a));
    state().ifPresent(s -> text.append(" state=").append(s));
    ignoredBecause().ifPresent(r -> text.append(" because=").append(r));
    reply()
        .ifPresent(
            r ->
                text.append(" to=")
                    .append(r.destination().address())
                    .append(':')
                    .append(r.destination().port()));
    return text.toString();
  }
}
