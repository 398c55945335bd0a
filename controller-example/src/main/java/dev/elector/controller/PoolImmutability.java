package dev.elector.controller;

import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.Pool;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Upstream's immutable IPPool fields. Once a pool is stored, its {@code spec.ipv4Config} cidr,
 * serverIP, router, pool.start, pool.end and pool.exclude keep their values (upstream's CRD says so
 * with CEL rules); a router or exclusions may be added to a pool that had none, never removed. The
 * validating webhook refuses an UPDATE that breaks this, unless the controller runs with {@code
 * --allow-pool-renumbering}, which lets a pool be renumbered in place. Pure.
 */
final class PoolImmutability {
  /** The flag that lifts the rule, named in every refusal. */
  static final String FLAG = "--allow-pool-renumbering";

  private record Field(String name, Function<IPv4Config, Object> read) {}

  private static final List<Field> FIELDS =
      List.of(
          new Field("cidr", IPv4Config::getCidr),
          new Field("serverIP", IPv4Config::getServerIP),
          new Field("router", IPv4Config::getRouter),
          new Field("pool.start", c -> c.getPool() == null ? null : c.getPool().getStart()),
          new Field("pool.end", c -> c.getPool() == null ? null : c.getPool().getEnd()),
          new Field("pool.exclude", PoolImmutability::exclusions));

  private PoolImmutability() {}

  /**
   * Why {@code now} may not replace {@code stored}, or empty when it may: every immutable field
   * that was set and now differs, with both values, in one message naming the ways out.
   */
  static Optional<String> refusal(IPPoolSpec stored, IPPoolSpec now) {
    IPv4Config before = stored == null ? null : stored.getIpv4Config();
    IPv4Config after = now == null ? null : now.getIpv4Config();
    if (before == null) {
      return Optional.empty();
    }
    IPv4Config sent = after == null ? new IPv4Config() : after;
    List<String> changed = new ArrayList<>();
    for (Field field : FIELDS) {
      Object was = field.read().apply(before);
      Object is = field.read().apply(sent);
      if (was != null && !Objects.equals(was, is)) {
        changed.add(field.name() + " (" + was + ", sent " + (is == null ? "none" : is) + ")");
      }
    }
    if (changed.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "spec.ipv4Config "
            + String.join(", ", changed)
            + (changed.size() == 1 ? " is" : " are")
            + " immutable, as in upstream's API; put the stored value back, or create a new"
            + " IPPool, or run the controller with "
            + FLAG
            + " (chart value allowPoolRenumbering) to renumber pools in place");
  }

  private static Object exclusions(IPv4Config config) {
    Pool pool = config.getPool();
    return pool == null || pool.getExclude().isEmpty() ? null : pool.getExclude();
  }
}
