package dev.elector.controller;

import dev.elector.ippool.IPv4Status;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A pool's allocation table (status.ipv4.allocated: IP -> MAC or marker) checked against the pool's
 * layout. Immutable: every change returns a new table.
 *
 * <p>Rules, applied when a table is read: serverIP and router are {@code RESERVED}; exclusions are
 * {@code EXCLUDED}; {@code CONFLICT} markers (declined addresses) inside [start, end] stay until
 * cleared; a marker wins over a MAC that held the same address (that MAC is evicted and gets a new
 * address); MAC entries outside [start, end] or with unparseable keys are dropped (evicted), as are
 * stale markers; a MAC listed twice keeps its lowest address.
 *
 * <p>The subnet's network and broadcast addresses are never allocated, even where the range
 * includes them (a pool stored before admission refused that); a MAC holding one is evicted.
 *
 * <p>Counts: {@code used} is the number of addresses allocated to MACs (all lie in [start, end]);
 * {@code available} is the number of addresses in [start, end] that are neither allocated to a MAC,
 * nor a marker, nor the network or broadcast address. So {@code used + available + markers inside
 * the range + network and broadcast inside the range = range size}.
 */
final class AllocationTable {
  /** What became of one NIC's request. */
  enum Kind {
    /** The MAC already had this address. */
    KEPT,
    /** The MAC got this address now. */
    ALLOCATED,
    /** No address: the message says why. */
    FAILED
  }

  /** The outcome of {@link #allocate}: the new table, the MAC's address (if any) and why. */
  record Allocation(AllocationTable table, Kind kind, String address, String message) {}

  private final PoolLayout layout;
  private final TreeMap<Long, String> entries;
  private final List<String> evicted;

  private AllocationTable(PoolLayout layout, TreeMap<Long, String> entries, List<String> evicted) {
    this.layout = layout;
    this.entries = entries;
    this.evicted = List.copyOf(evicted);
  }

  /** Reads {@code allocated} (may be empty) under {@code layout}; see the class comment. */
  static AllocationTable of(PoolLayout layout, Map<String, String> allocated) {
    TreeMap<Long, String> entries = new TreeMap<>();
    Set<String> macs = new HashSet<>();
    ArrayList<String> evicted = new ArrayList<>();
    TreeMap<Long, String> byAddress = new TreeMap<>();
    Set<Long> conflicts = new HashSet<>();
    for (Map.Entry<String, String> e : allocated.entrySet()) {
      Optional<Long> address = Ipv4.parse(e.getKey());
      Optional<String> mac = Macs.normalise(e.getValue());
      if (address.isPresent() && IPv4Status.CONFLICT.equals(e.getValue())) {
        conflicts.add(address.get());
      } else if (address.isPresent() && mac.isPresent()) {
        byAddress.put(address.get(), mac.get());
      } else if (mac.isPresent()) {
        evicted.add(mac.get());
      }
    }
    for (Map.Entry<Long, String> e : byAddress.entrySet()) {
      long address = e.getKey();
      String mac = e.getValue();
      if (!layout.usable(address)
          || layout.markerOf(address) != null
          || conflicts.contains(address)) {
        evicted.add(mac);
      } else if (macs.add(mac)) {
        entries.put(address, mac);
      }
    }
    entries.put(layout.serverIP(), IPv4Status.RESERVED);
    if (layout.router() != null) {
      entries.put(layout.router(), IPv4Status.RESERVED);
    }
    for (long excluded : layout.excluded()) {
      entries.putIfAbsent(excluded, IPv4Status.EXCLUDED);
    }
    for (long address : conflicts) {
      if (layout.usable(address) && layout.markerOf(address) == null) {
        entries.put(address, IPv4Status.CONFLICT);
      }
    }
    evicted.removeIf(macs::contains);
    return new AllocationTable(layout, entries, evicted);
  }

  /**
   * The table with {@code address} marked as in conflict (a client declined it): the MAC that held
   * it loses it (it gets another when its config is reconciled), and no one gets it until it is
   * cleared. An address outside [start, end], reserved or excluded is left as it is.
   */
  AllocationTable withConflict(long address) {
    if (!layout.usable(address) || layout.markerOf(address) != null) {
      return this;
    }
    TreeMap<Long, String> copy = new TreeMap<>(entries);
    copy.put(address, IPv4Status.CONFLICT);
    return new AllocationTable(layout, copy, evicted);
  }

  /** The table with {@code address} free again, when it is marked as in conflict. */
  AllocationTable withoutConflict(long address) {
    TreeMap<Long, String> copy = new TreeMap<>(entries);
    copy.remove(address, IPv4Status.CONFLICT);
    return new AllocationTable(layout, copy, evicted);
  }

  /** What {@code address} holds: a MAC, a marker, or nothing. */
  Optional<String> holder(long address) {
    return Optional.ofNullable(entries.get(address));
  }

  /** The addresses marked as in conflict. */
  List<String> conflicts() {
    List<String> out = new ArrayList<>();
    entries.forEach(
        (a, v) -> {
          if (IPv4Status.CONFLICT.equals(v)) {
            out.add(Ipv4.format(a));
          }
        });
    return out;
  }

  /** MACs that held an address the layout no longer allows; they need a new one. */
  List<String> evicted() {
    return evicted;
  }

  /** The address allocated to {@code mac}, if any. */
  Optional<String> addressOf(String mac) {
    return entries.entrySet().stream()
        .filter(e -> e.getValue().equals(mac))
        .findFirst()
        .map(e -> Ipv4.format(e.getKey()));
  }

  /**
   * Gives {@code mac} an address. A MAC that has one keeps it, unless it requests another: a free
   * requested address is honoured (the old one is released), a taken one fails and the MAC keeps
   * what it had. Without a request, the lowest free address in [start, end] is taken.
   *
   * @param mac a normalised MAC address
   * @param requested the address asked for, or null for any
   */
  Allocation allocate(String mac, String requested) {
    Optional<String> current = addressOf(mac);
    if (requested == null || requested.isBlank()) {
      if (current.isPresent()) {
        return new Allocation(this, Kind.KEPT, current.get(), null);
      }
      for (long address = layout.start(); address <= layout.end(); address++) {
        if (layout.usable(address) && !entries.containsKey(address)) {
          return new Allocation(with(address, mac), Kind.ALLOCATED, Ipv4.format(address), null);
        }
      }
      return new Allocation(
          this,
          Kind.FAILED,
          null,
          "the pool is full: all "
              + layout.usableSize()
              + " addresses of "
              + layout.range()
              + " are allocated, reserved or excluded ("
              + used()
              + " used); release an address or widen the range");
    }
    Optional<Long> wanted = Ipv4.parse(requested);
    if (wanted.isEmpty()) {
      return failed(
          current,
          "requested ipAddress '"
              + requested
              + "' is not an IPv4 address;"
              + " write it like 192.168.0.10 or leave it out");
    }
    long address = wanted.get();
    if (current.isPresent() && current.get().equals(Ipv4.format(address))) {
      return new Allocation(this, Kind.KEPT, current.get(), null);
    }
    if (!layout.inRange(address)) {
      return failed(
          current,
          "requested ipAddress "
              + requested
              + " is outside the pool range "
              + layout.range()
              + "; request an address inside it or leave ipAddress out");
    }
    if (!layout.usable(address)) {
      return failed(
          current,
          "requested ipAddress "
              + requested
              + " is the network or broadcast address of "
              + layout.cidr()
              + ", which is never leased; request another address or leave ipAddress out");
    }
    String holder = entries.get(address);
    if (holder != null) {
      String why =
          switch (holder) {
            case IPv4Status.RESERVED -> "is reserved (the pool's serverIP or router)";
            case IPv4Status.EXCLUDED -> "is excluded by the pool";
            case IPv4Status.CONFLICT ->
                "is in conflict (a client declined it: in use on the"
                    + " network) until an operator clears it";
            default -> "is allocated to MAC " + holder;
          };
      return failed(
          current,
          "requested ipAddress "
              + requested
              + " "
              + why
              + "; request a free address or leave ipAddress out");
    }
    AllocationTable released = current.isPresent() ? release(List.of(mac)) : this;
    return new Allocation(released.with(address, mac), Kind.ALLOCATED, Ipv4.format(address), null);
  }

  private Allocation failed(Optional<String> current, String message) {
    return new Allocation(this, Kind.FAILED, current.orElse(null), message);
  }

  /** The table without the addresses of {@code macs} (normalised). */
  AllocationTable release(Collection<String> macs) {
    TreeMap<Long, String> copy = new TreeMap<>(entries);
    copy.values().removeIf(macs::contains);
    return new AllocationTable(layout, copy, evicted);
  }

  private AllocationTable with(long address, String mac) {
    TreeMap<Long, String> copy = new TreeMap<>(entries);
    copy.put(address, mac);
    return new AllocationTable(layout, copy, evicted);
  }

  /** Addresses allocated to MACs. */
  int used() {
    return (int) entries.values().stream().filter(v -> !IPv4Status.isMarker(v)).count();
  }

  /** Addresses in [start, end] that are free (network and broadcast never are). */
  int available() {
    long taken =
        entries.subMap(layout.start(), true, layout.end(), true).keySet().stream()
            .filter(layout::usable)
            .count();
    return (int) (layout.usableSize() - taken);
  }

  /** The table as status.ipv4, in address order. */
  IPv4Status toStatus() {
    Map<String, String> allocated = new LinkedHashMap<>();
    entries.forEach((address, value) -> allocated.put(Ipv4.format(address), value));
    return new IPv4Status().allocated(allocated).used(used()).available(available());
  }
}
