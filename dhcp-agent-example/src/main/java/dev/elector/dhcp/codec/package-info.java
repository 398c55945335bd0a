/**
 * A pure DHCPv4 packet codec (RFC 2131, 2132, 3046, 3396, 3397): {@link
 * dev.elector.dhcp.codec.DhcpMessage} with its {@link dev.elector.dhcp.codec.DhcpOptions}, and the
 * address values they use.
 *
 * <p>Guarantees: decoding untrusted bytes either yields a message whose typed options all passed
 * their rules, or throws {@link dev.elector.dhcp.codec.MalformedPacketException} naming the problem
 * and offset; it terminates in time linear in the input and allocates memory bounded by it. All
 * values are immutable and safe to share between threads. Not provided: sockets, DHCPv6, or
 * interpretation of relay sub-options (option 82 stays opaque).
 */
package dev.elector.dhcp.codec;
