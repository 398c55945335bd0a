package dev.elector.dhcp.server;

/** The client state a DHCPREQUEST comes from (RFC 2131 section 4.3.2). */
public enum RequestState {
  /** Answering an offer: server identifier and requested IP present, ciaddr zero. */
  SELECTING,
  /**
   * Rebooting with a remembered address: requested IP present, no server identifier, ciaddr zero.
   */
  INIT_REBOOT,
  /** Extending the lease by unicast to this server: ciaddr set. */
  RENEWING,
  /** Extending the lease by broadcast to any server: ciaddr set. */
  REBINDING
}
