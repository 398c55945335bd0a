package dev.elector.controller;

import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.Pool;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The rules of an IPPool spec, applied by the admission webhook ({@link AdmissionReviews}) and by
 * the controller at every reconcile: addresses parse; the CIDR does not overlap the cluster's
 * service CIDR; serverIP and router lie in the CIDR, are neither its network nor its broadcast
 * address, and differ from each other; serverIP is not excluded; the range lies in the CIDR and is
 * ordered; exclusions lie in the range. Every problem is reported, each with a CamelCase reason
 * (used as the Registered condition's reason) and a message that names the field, the value and the
 * fix.
 *
 * <p>A range that includes the network or broadcast address is refused at admission, but a pool
 * already stored with one is tolerated at reconcile ({@link Problem#tolerated()}): the allocator
 * never hands out either address ({@link PoolLayout#usable}), and the Registered message says so.
 */
final class PoolValidation {
  /**
   * One thing wrong with a spec.
   *
   * @param tolerated true when a stored pool stays usable despite it (admission still refuses it)
   */
  record Problem(String reason, String message, boolean tolerated) {
    Problem(String reason, String message) {
      this(reason, message, false);
    }
  }

  /** The service CIDR upstream's webhook assumes when none is configured (Harvester's). */
  static final String DEFAULT_SERVICE_CIDR = "10.53.0.0/16";

  private final PoolLayout layout;
  private final List<Problem> problems;

  private PoolValidation(PoolLayout layout, List<Problem> problems) {
    this.layout = layout;
    this.problems = List.copyOf(problems);
  }

  /** The rules without the service-CIDR check. */
  static PoolValidation validate(IPPoolSpec spec) {
    return validate(spec, null);
  }

  /**
   * The rules.
   *
   * @param serviceCidr the cluster's service CIDR, or null to skip the overlap check
   */
  static PoolValidation validate(IPPoolSpec spec, Cidr serviceCidr) {
    List<Problem> problems = new ArrayList<>();
    if (spec == null) {
      problems.add(
          new Problem(
              "MissingSpec",
              "the pool has no spec; set spec.networkName and" + " spec.ipv4Config"));
      return new PoolValidation(null, problems);
    }
    String network = spec.getNetworkName();
    if (network == null
        || !network.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]" + "([-a-z0-9.]*[a-z0-9])?")) {
      problems.add(
          new Problem(
              "InvalidNetworkName",
              "spec.networkName '"
                  + network
                  + "' is not of the form NAMESPACE/NAME of a NetworkAttachmentDefinition, for example"
                  + " default/vlan-100"));
    }
    IPv4Config config = spec.getIpv4Config();
    if (config == null) {
      problems.add(
          new Problem(
              "MissingIPv4Config", "spec.ipv4Config is missing; set cidr," + " serverIP and pool"));
      return new PoolValidation(null, problems);
    }
    Optional<Cidr> cidr = Cidr.parse(config.getCidr());
    if (cidr.isEmpty()) {
      problems.add(
          new Problem(
              "InvalidCIDR",
              "spec.ipv4Config.cidr '"
                  + config.getCidr()
                  + "' is not an IPv4 CIDR; write it like 192.168.0.0/24"));
    } else if (tooSmall(cidr.get()).isPresent()) {
      problems.add(new Problem("CIDRTooSmall", tooSmall(cidr.get()).get()));
      cidr = Optional.empty(); // no more to say about addresses in it
    }
    Optional<Long> server =
        address(problems, "InvalidServerIP", "spec.ipv4Config.serverIP", config.getServerIP());
    Optional<Long> router =
        config.getRouter() == null || config.getRouter().isBlank()
            ? Optional.empty()
            : address(problems, "InvalidRouter", "spec.ipv4Config.router", config.getRouter());
    Pool pool = config.getPool();
    Optional<Long> start =
        address(
            problems,
            "InvalidPoolRange",
            "spec.ipv4Config.pool.start",
            pool == null ? null : pool.getStart());
    Optional<Long> end =
        address(
            problems,
            "InvalidPoolRange",
            "spec.ipv4Config.pool.end",
            pool == null ? null : pool.getEnd());
    if (cidr.isPresent()) {
      Cidr subnet = cidr.get();
      outside(problems, subnet, server, "ServerIPOutsideCIDR", "spec.ipv4Config.serverIP");
      outside(problems, subnet, router, "RouterOutsideCIDR", "spec.ipv4Config.router");
      outside(problems, subnet, start, "PoolRangeOutsideCIDR", "spec.ipv4Config.pool.start");
      outside(problems, subnet, end, "PoolRangeOutsideCIDR", "spec.ipv4Config.pool.end");
      if (serviceCidr != null && subnet.overlaps(serviceCidr)) {
        problems.add(
            new Problem(
                "CIDROverlapsServiceCIDR",
                "spec.ipv4Config.cidr "
                    + subnet
                    + " overlaps the cluster's service CIDR "
                    + serviceCidr
                    + " (--service-cidr); choose a subnet outside it"));
      }
      notNetworkOrBroadcast(
          problems, subnet, server, "ServerIPNotUsable", "spec.ipv4Config.serverIP");
      notNetworkOrBroadcast(problems, subnet, router, "RouterNotUsable", "spec.ipv4Config.router");
      if (start.isPresent() && end.isPresent() && start.get() <= end.get()) {
        long s = start.get();
        long e = end.get();
        rangeIncludes(problems, subnet, s, e, subnet.network(), "network");
        rangeIncludes(problems, subnet, s, e, subnet.last(), "broadcast");
        long usable = e - s + 1 - (subnet.network() >= s ? 1 : 0) - (subnet.last() <= e ? 1 : 0);
        if (subnet.contains(s) && subnet.contains(e) && usable <= 0) {
          problems.add(
              new Problem(
                  "PoolRangeEmpty",
                  "spec.ipv4Config.pool "
                      + Ipv4.format(s)
                      + "-"
                      + Ipv4.format(e)
                      + " holds only the network or broadcast address of "
                      + subnet
                      + "; widen the range or choose a larger subnet"));
        }
      }
    }
    if (server.isPresent() && router.isPresent() && server.get().equals(router.get())) {
      problems.add(
          new Problem(
              "ServerIPIsRouter",
              "spec.ipv4Config.serverIP "
                  + Ipv4.format(server.get())
                  + " is the router's address; the leading agent would put the gateway's address"
                  + " on its own NIC; give serverIP a free address of the subnet, or leave it out"
                  + " to have one chosen"));
    }
    if (start.isPresent() && end.isPresent() && start.get() > end.get()) {
      problems.add(
          new Problem(
              "PoolRangeReversed",
              "spec.ipv4Config.pool.start "
                  + Ipv4.format(start.get())
                  + " is after pool.end "
                  + Ipv4.format(end.get())
                  + "; swap them"));
    }
    TreeSet<Long> excluded = new TreeSet<>();
    for (String text : pool == null ? List.<String>of() : pool.getExclude()) {
      Optional<Long> excludedAddress =
          address(problems, "InvalidExclusion", "spec.ipv4Config.pool.exclude entry", text);
      if (excludedAddress.isEmpty()) {
        continue;
      }
      long value = excludedAddress.get();
      if (start.isPresent() && end.isPresent() && (value < start.get() || value > end.get())) {
        problems.add(
            new Problem(
                "ExclusionOutsideRange",
                "spec.ipv4Config.pool.exclude entry "
                    + text
                    + " is outside the pool range "
                    + Ipv4.format(start.get())
                    + "-"
                    + Ipv4.format(end.get())
                    + "; remove it or widen the range"));
      }
      if (server.isPresent() && server.get() == value) {
        problems.add(
            new Problem(
                "ServerIPExcluded",
                "spec.ipv4Config.serverIP "
                    + text
                    + " is listed in spec.ipv4Config.pool.exclude; remove it from exclude or"
                    + " give serverIP another address"));
      }
      excluded.add(value);
    }
    if (problems.stream().anyMatch(p -> !p.tolerated())) {
      return new PoolValidation(null, problems);
    }
    return new PoolValidation(
        new PoolLayout(
            cidr.orElseThrow(),
            server.orElseThrow(),
            router.orElse(null),
            start.orElseThrow(),
            end.orElseThrow(),
            excluded),
        problems);
  }

  private static Optional<Long> address(
      List<Problem> problems, String reason, String field, String text) {
    Optional<Long> parsed = Ipv4.parse(text);
    if (parsed.isEmpty()) {
      problems.add(
          new Problem(
              reason,
              field + " '" + text + "' is not an IPv4 address; write it" + " like 192.168.0.10"));
    }
    return parsed;
  }

  /**
   * Why a /31 or /32 cannot hold a pool, naming a subnet that can; empty for a /30 or larger.
   * Without this, the range and serverIP checks would advise an address "between" the broadcast and
   * the network address.
   */
  static Optional<String> tooSmall(Cidr cidr) {
    if (cidr.prefix() < 31) {
      return Optional.empty();
    }
    return Optional.of(
        "spec.ipv4Config.cidr "
            + cidr
            + (cidr.prefix() == 32
                ? " is a single address"
                : " holds only its network and broadcast addresses")
            + ", none for the DHCP server and its clients; use a /30 or larger, for example "
            + Cidr.parse(Ipv4.format(cidr.network()) + "/29").orElseThrow());
  }

  private static void notNetworkOrBroadcast(
      List<Problem> problems, Cidr cidr, Optional<Long> address, String reason, String field) {
    if (address.isEmpty() || !cidr.contains(address.get())) {
      return;
    }
    String which =
        address.get() == cidr.network()
            ? "network"
            : address.get() == cidr.last() ? "broadcast" : null;
    if (which != null) {
      problems.add(
          new Problem(
              reason,
              field
                  + " "
                  + Ipv4.format(address.get())
                  + " is the "
                  + which
                  + " address of "
                  + cidr
                  + "; use an address between "
                  + Ipv4.format(cidr.network() + 1)
                  + " and "
                  + Ipv4.format(cidr.last() - 1)));
    }
  }

  private static void rangeIncludes(
      List<Problem> problems, Cidr cidr, long start, long end, long address, String which) {
    if (address < start || address > end) {
      return;
    }
    boolean network = which.equals("network");
    problems.add(
        new Problem(
            network ? "PoolRangeIncludesNetworkAddress" : "PoolRangeIncludesBroadcastAddress",
            "spec.ipv4Config.pool "
                + Ipv4.format(start)
                + "-"
                + Ipv4.format(end)
                + " includes the "
                + which
                + " address "
                + Ipv4.format(address)
                + " of "
                + cidr
                + ", which is never leased; set pool."
                + (network ? "start to " : "end to ")
                + Ipv4.format(network ? address + 1 : address - 1)
                + (network ? " or later" : " or earlier"),
            true));
  }

  private static void outside(
      List<Problem> problems, Cidr cidr, Optional<Long> address, String reason, String field) {
    if (address.isPresent() && !cidr.contains(address.get())) {
      problems.add(
          new Problem(
              reason,
              field
                  + " "
                  + Ipv4.format(address.get())
                  + " is outside spec.ipv4Config.cidr "
                  + cidr
                  + "; use an address inside it or change"
                  + " the cidr"));
    }
  }

  boolean isValid() {
    return layout != null;
  }

  /** Problems a stored pool survives; admission refuses them all the same. */
  List<Problem> tolerated() {
    return problems.stream().filter(Problem::tolerated).toList();
  }

  /** The layout of a valid spec. */
  PoolLayout layout() {
    if (layout == null) {
      throw new IllegalStateException("the spec is invalid: " + message());
    }
    return layout;
  }

  /** Every problem; empty when valid. */
  List<Problem> problems() {
    return problems;
  }

  /** The reason of the first problem. */
  String reason() {
    return problems.stream()
        .filter(p -> !p.tolerated())
        .findFirst()
        .or(() -> problems.stream().findFirst())
        .map(Problem::reason)
        .orElse("Valid");
  }

  /** All problems' messages, joined. */
  String message() {
    return String.join("; ", problems.stream().map(Problem::message).toList());
  }
}
