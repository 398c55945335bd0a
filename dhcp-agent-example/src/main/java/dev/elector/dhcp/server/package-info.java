/**
 * The DHCPv4 server: {@link dev.elector.dhcp.server.DhcpEngine} (pure RFC 2131 logic over a
 * read-only {@link dev.elector.dhcp.server.LeaseSource}) and {@link
 * dev.elector.dhcp.server.DhcpServer} (its UDP front end with an instant serving switch).
 *
 * <p>Guarantees: the engine is stateless and lock-free, never changes a lease, and answers only
 * MACs its lease source knows, with replies built from scratch within the client's maximum message
 * size. The server never stops its receive loop for a bad datagram. Not provided: address
 * allocation, lease expiry bookkeeping, unicast to a client without an address (such replies are
 * broadcast), or binding to a network device.
 */
package dev.elector.dhcp.server;
