package dev.elector.controller;

import dev.elector.ippool.IPv4Status;
import java.util.Collections;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The validated, numeric form of an IPPool's IPv4 configuration; see {@link PoolValidation}.
 *
 * @param cidr the subnet
 * @param serverIP the agent's own address (reserved)
 * @param router the gateway (reserved), or null when the pool sets none
 * @param start first address of the range handed out
 * @param end last address of the range handed out (inclusive)
 * @param excluded addresses inside the range that are never handed out
 */
record PoolLayout(
    Cidr cidr, long serverIP, Long router, long start, long end, SortedSet<Long> excluded) {

  PoolLayout {
    Objects.requireNonNull(cidr, "cidr");
    excluded = Collections.unmodifiableSortedSet(new TreeSet<>(excluded));
  }

  /** Number of addresses in [start, end]. */
  long rangeSize() {
    return end - start + 1;
  }

  /** Number of addresses in [start, end] that may be leased: all but network and broadcast. */
  long usableSize() {
    return rangeSize() - (inRange(cidr.network()) ? 1 : 0) - (inRange(cidr.last()) ? 1 : 0);
  }

  boolean inRange(long address) {
    return address >= start && address <= end;
  }

  /**
   * True when {@code address} may be leased: inside [start, end], and neither the subnet's network
   * nor its broadcast address (a pool stored before admission refused such ranges may include
   * them).
   */
  boolean usable(long address) {
    return inRange(address) && address != cidr.network() && address != cidr.last();
  }

  /** The marker an address carries in the allocation table, or null for an ordinary one. */
  String markerOf(long address) {
    if (address == serverIP || (router != null && address == router)) {
      return IPv4Status.RESERVED;
    }
    return excluded.contains(address) ? IPv4Status.EXCLUDED : null;
  }

  /** "start-end", for messages. */
  String range() {
    return Ipv4.format(start) + "-" + Ipv4.format(end);
  }
}
