package dev.elector.controller;

import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.Pool;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Checks an IPPool spec beyond what the CRD schema can: addresses parse, serverIP and router lie in
 * the CIDR, the range lies in the CIDR and is ordered, exclusions lie in the range. Every problem
 * is reported, each with a CamelCase reason (used as the Registered condition's reason) and a
 * message that names the field, the value and the fix.
 */
final class PoolValidation {
  /** One thing wrong with a spec. */
  record Problem(String reason, String message) {}

  private final PoolLayout layout;
  private final List<Problem> problems;

  private PoolValidation(PoolLayout layout, List<Problem> problems) {
    this.layout = layout;
    this.problems = List.copyOf(problems);
  }

  static PoolValidation validate(IPPoolSpec spec) {
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
      excluded.add(value);
    }
    if (!problems.isEmpty()) {
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
    return problems.isEmpty() ? "Valid" : problems.get(0).reason();
  }

  /** All problems' messages, joined. */
  String message() {
    return String.join("; ", problems.stream().map(Problem::message).toList());
  }
}
