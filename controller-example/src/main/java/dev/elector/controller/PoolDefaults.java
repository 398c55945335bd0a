package dev.elector.controller;

import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.Pool;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the mutating webhook fills in on a new IPPool, as upstream's mutator does: a missing {@code
 * pool.start} becomes the first address after the network address, a missing {@code pool.end} the
 * last before the broadcast address, and a missing {@code serverIP} the first address after the
 * network address that is neither the router nor excluded. Nothing is filled in when the CIDR does
 * not parse (the validating webhook then says why).
 */
final class PoolDefaults {
  /** One JSON Patch (RFC 6902) operation. */
  record Operation(String op, String path, Object value) {}

  private PoolDefaults() {}

  /**
   * Why nothing can be filled in because the CIDR is a /31 or /32, or empty. The mutating webhook
   * refuses such a pool itself: it runs before the schema, whose "Required value" for the serverIP
   * and range left out would otherwise be the only answer.
   */
  static Optional<String> refusal(IPPoolSpec spec) {
    IPv4Config config = spec == null ? null : spec.getIpv4Config();
    return config == null
        ? Optional.empty()
        : Cidr.parse(config.getCidr()).flatMap(PoolValidation::tooSmall);
  }

  /** The operations that fill in what {@code spec} leaves out; empty when nothing is missing. */
  static List<Operation> fill(IPPoolSpec spec) {
    List<Operation> ops = new ArrayList<>();
    IPv4Config config = spec == null ? null : spec.getIpv4Config();
    Optional<Cidr> parsed = config == null ? Optional.empty() : Cidr.parse(config.getCidr());
    if (parsed.isEmpty() || parsed.get().last() - parsed.get().network() < 2) {
      return ops;
    }
    Cidr cidr = parsed.get();
    Pool pool = config.getPool();
    String start = pool == null ? null : pool.getStart();
    String end = pool == null ? null : pool.getEnd();
    if (blank(start) || blank(end)) {
      Map<String, Object> filled = new LinkedHashMap<>();
      filled.put("start", blank(start) ? Ipv4.format(cidr.network() + 1) : start);
      filled.put("end", blank(end) ? Ipv4.format(cidr.last() - 1) : end);
      if (pool != null && !pool.getExclude().isEmpty()) {
        filled.put("exclude", pool.getExclude());
      }
      ops.add(new Operation("add", "/spec/ipv4Config/pool", filled));
    }
    if (blank(config.getServerIP())) {
      Set<Long> taken = new HashSet<>();
      Ipv4.parse(config.getRouter()).ifPresent(taken::add);
      for (String excluded : pool == null ? List.<String>of() : pool.getExclude()) {
        Ipv4.parse(excluded).ifPresent(taken::add);
      }
      for (long a = cidr.network() + 1; a < cidr.last(); a++) {
        if (!taken.contains(a)) {
          ops.add(new Operation("add", "/spec/ipv4Config/serverIP", Ipv4.format(a)));
          break;
        }
      }
    }
    return ops;
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
