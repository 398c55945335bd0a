package dev.elector.dhcp.server;

/**
 * Counters of a {@link DhcpServer} since it was built.
 *
 * @param received datagrams read from the socket
 * @param malformed datagrams that did not decode
 * @param notServing datagrams dropped, or replies withheld, because serving was off
 * @param replied replies sent
 * @param unanswered decoded requests that called for no reply (ignored, released, declined)
 * @param failures send errors and unexpected failures while handling a datagram
 */
public record DhcpServerStats(
    long received, long malformed, long notServing, long replied, long unanswered, long failures) {}
