package dev.elector.dhcp.agent;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.server.Ipv4Cidr;
import dev.elector.dhcp.server.PoolOptions;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.IPv4Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * What the agent serves from one version of its IPPool: the reply options and the MAC -> IP table
 * taken from {@code status.ipv4.allocated}. Immutable.
 *
 * <p>Reading a pool is strict where serving wrongly would do harm and lenient elsewhere: without a
 * valid cidr and serverIP there is no snapshot at all ({@link InvalidPoolException}); a bad
 * allocation entry (unreadable IP or MAC, an address outside the network, the server's own address,
 * a second address for one MAC) is skipped and named in {@link #problems()}; so is a bad optional
 * setting (a DNS or NTP address that does not parse, an unencodable domain name).
 *
 * @param resourceVersion the pool version this was read from
 * @param options what goes into replies
 * @param leases MAC -> leased IP, sorted by MAC
 * @param paused whether the pool is paused (then nothing is served)
 * @param problems what was skipped, one line each
 */
public record PoolSnapshot(
    String resourceVersion,
    PoolOptions options,
    Map<MacAddress, Ipv4Address> leases,
    boolean paused,
    List<String> problems) {

  /** Copies the collections. */
  public PoolSnapshot {
    Map<MacAddress, Ipv4Address> sorted = new TreeMap<>(BY_MAC);
    sorted.putAll(leases);
    leases = Collections.unmodifiableMap(sorted);
    problems = List.copyOf(problems);
  }

  private static final Comparator<MacAddress> BY_MAC = Comparator.comparingLong(MacAddress::value);

  /** Thrown when a pool cannot be served at all. */
  public static final class InvalidPoolException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidPoolException(String message) {
      super(message);
    }
  }

  /**
   * Reads {@code pool}, with the agent's {@code --server-ip} and {@code --cidr} taking precedence
   * over the pool's own.
   *
   * @throws InvalidPoolException naming every reason the pool cannot be served
   */
  public static PoolSnapshot of(
      IPPool pool, Optional<Ipv4Address> serverIpOverride, Optional<Ipv4Cidr> cidrOverride)
      throws InvalidPoolException {
    return of(pool, serverIpOverride, cidrOverride, PoolSnapshot::resolve);
  }

  /**
   * Looks up the IPv4 addresses of a host name (an NTP server given by name); empty when it does
   * not resolve. The default asks the JDK's resolver (which caches answers).
   */
  @FunctionalInterface
  public interface HostResolver {
    List<Ipv4Address> ipv4(String host) throws java.io.IOException;
  }

  /** As {@link #of(IPPool, Optional, Optional)}, resolving NTP host names with {@code hosts}. */
  public static PoolSnapshot of(
      IPPool pool,
      Optional<Ipv4Address> serverIpOverride,
      Optional<Ipv4Cidr> cidrOverride,
      HostResolver hosts)
      throws InvalidPoolException {
    IPv4Config config = pool.getSpec() == null ? null : pool.getSpec().getIpv4Config();
    List<String> fatal = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    Ipv4Cidr cidr = cidrOverride.orElse(null);
    if (cidr == null) {
      cidr =
          required(
              config == null ? null : config.getCidr(),
              "spec.ipv4Config.cidr",
              Ipv4Cidr::parse,
              fatal);
    }
    Ipv4Address serverIp = serverIpOverride.orElse(null);
    if (serverIp == null) {
      serverIp =
          required(
              config == null ? null : config.getServerIP(),
              "spec.ipv4Config.serverIP",
              Ipv4Address::parse,
              fatal);
    }
    if (cidr != null && serverIp != null && !cidr.contains(serverIp)) {
      fatal.add("serverIP " + serverIp + " is outside cidr " + cidr);
    }
    if (!fatal.isEmpty()) {
      throw new InvalidPoolException(
          "IPPool " + pool.ref() + " cannot be served: " + String.join("; ", fatal));
    }
    PoolOptions options = options(config, serverIp, cidr, problems, hosts);
    Map<MacAddress, Ipv4Address> leases = leases(pool, cidr, serverIp, problems);
    String version = pool.getMetadata() == null ? null : pool.getMetadata().getResourceVersion();
    boolean paused = pool.getSpec() != null && pool.getSpec().isPaused();
    return new PoolSnapshot(version, options, leases, paused, problems);
  }

  private static PoolOptions options(
      IPv4Config config,
      Ipv4Address serverIp,
      Ipv4Cidr cidr,
      List<String> problems,
      HostResolver hosts) {
    PoolOptions.Builder b =
        PoolOptions.builder()
            .serverIp(serverIp)
            .cidr(cidr)
            .leaseTime(
                Duration.ofSeconds(
                    config == null
                        ? IPv4Config.DEFAULT_LEASE_TIME_SECONDS
                        : config.leaseTimeOrDefault()));
    if (config == null) {
      return b.build();
    }
    optional(config.getRouter(), "router", Ipv4Address::parse, problems)
        .ifPresent(
            router -> {
              if (cidr.contains(router)) {
                b.router(router);
              } else {
                problems.add("router " + router + " is outside cidr " + cidr + "; not handed out");
              }
            });
    b.dns(addresses(config.getDns(), "dns", PoolOptions.MAX_DNS, problems));
    b.ntp(ntpServers(config.getNtp(), hosts, problems));
    if (accepted(
        serverIp,
        cidr,
        problems,
        "domainName",
        config.getDomainName(),
        PoolOptions.Builder::domainName)) {
      b.domainName(config.getDomainName());
    }
    if (!config.getDomainSearch().isEmpty()
        && accepted(
            serverIp,
            cidr,
            problems,
            "domainSearch",
            config.getDomainSearch(),
            PoolOptions.Builder::domainSearch)) {
      b.domainSearch(config.getDomainSearch());
    }
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage() + "; serving with defaults for the rest");
      return PoolOptions.builder()
          .serverIp(serverIp)
          .cidr(cidr)
          .leaseTime(Duration.ofSeconds(IPv4Config.DEFAULT_LEASE_TIME_SECONDS))
          .build();
    }
  }

  /** Whether a text option can be encoded on its own; if not, names it as left out. */
  private static <T> boolean accepted(
      Ipv4Address serverIp,
      Ipv4Cidr cidr,
      List<String> problems,
      String name,
      T value,
      BiConsumer<PoolOptions.Builder, T> set) {
    if (value == null) {
      return false;
    }
    try {
      PoolOptions.Builder scratch = PoolOptions.builder().serverIp(serverIp).cidr(cidr);
      set.accept(scratch, value);
      scratch.build();
      return true;
    } catch (IllegalArgumentException e) {
      problems.add(name + " " + value + " cannot be handed out (" + e.getMessage() + "); left out");
      return false;
    }
  }

  private static final java.util.regex.Pattern HOST_NAME =
      java.util.regex.Pattern.compile(
          "(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}"
              + "[A-Za-z0-9])?)*\\.?");

  /**
   * NTP servers: IPv4 addresses as written; a host name (upstream's example says pool.ntp.org) is
   * resolved when the pool is read, since DHCP option 42 carries addresses only. Its IPv4 addresses
   * are handed out, sorted, up to {@link PoolOptions#MAX_NTP} in all; a name that does not resolve
   * is left out and named in the problems.
   */
  private static List<Ipv4Address> ntpServers(
      List<String> texts, HostResolver hosts, List<String> problems) {
    List<Ipv4Address> out = new ArrayList<>();
    for (String raw : texts) {
      String text = raw == null ? "" : raw.trim();
      if (text.isEmpty()) {
        continue;
      }
      try {
        out.add(Ipv4Address.parse(text));
        continue;
      } catch (RuntimeException notAnAddress) {
        // a host name, or neither
      }
      if (!HOST_NAME.matcher(text).matches() || text.matches("[0-9.]+")) {
        problems.add("ntp '" + raw + "' is neither an IPv4 address nor a host name; left out");
        continue;
      }
      List<Ipv4Address> resolved;
      String why;
      try {
        resolved = hosts.ipv4(text);
        why = "it has no IPv4 address";
      } catch (java.io.IOException | RuntimeException e) {
        resolved = List.of();
        why = e.toString();
      }
      if (resolved.isEmpty()) {
        problems.add(
            "ntp host name "
                + text
                + " does not resolve here ("
                + why
                + "); left out;"
                + " write the servers' IPv4 addresses in spec.ipv4Config.ntp instead");
      } else {
        resolved.stream().sorted().forEach(out::add);
      }
    }
    List<Ipv4Address> distinct = out.stream().distinct().toList();
    if (distinct.size() > PoolOptions.MAX_NTP) {
      problems.add(
          "ntp gives "
              + distinct.size()
              + " servers; handing out the first "
              + PoolOptions.MAX_NTP);
      return List.copyOf(distinct.subList(0, PoolOptions.MAX_NTP));
    }
    return distinct;
  }

  private static List<Ipv4Address> resolve(String host) throws java.io.IOException {
    List<Ipv4Address> out = new ArrayList<>();
    for (java.net.InetAddress a : java.net.InetAddress.getAllByName(host)) {
      if (a instanceof java.net.Inet4Address) {
        out.add(Ipv4Address.of(a));
      }
    }
    return out;
  }

  private static List<Ipv4Address> addresses(
      List<String> texts, String name, int max, List<String> problems) {
    List<Ipv4Address> out = new ArrayList<>();
    for (String text : texts) {
      optional(text, name, Ipv4Address::parse, problems).ifPresent(out::add);
    }
    if (out.size() > max) {
      problems.add(name + " lists " + out.size() + " servers; handing out the first " + max);
      return List.copyOf(out.subList(0, max));
    }
    return out;
  }

  private static Map<MacAddress, Ipv4Address> leases(
      IPPool pool, Ipv4Cidr cidr, Ipv4Address serverIp, List<String> problems) {
    IPv4Status status = pool.getStatus() == null ? null : pool.getStatus().getIpv4();
    Map<MacAddress, Ipv4Address> byMac = new TreeMap<>(BY_MAC);
    if (status == null) {
      return byMac;
    }
    // Sorted by address, so the choice for a MAC listed twice does not depend on map order.
    Map<Ipv4Address, String> byIp = new TreeMap<>();
    status
        .getAllocated()
        .forEach(
            (ipText, value) -> {
              if (value == null || IPv4Status.isMarker(value)) {
                return;
              }
              Ipv4Address ip;
              try {
                ip = Ipv4Address.parse(ipText);
              } catch (RuntimeException e) {
                problems.add("allocated key '" + ipText + "' is not an IPv4 address; skipped");
                return;
              }
              byIp.put(ip, value);
            });
    byIp.forEach(
        (ip, macText) -> {
          MacAddress mac;
          try {
            mac = MacAddress.parse(macText);
          } catch (RuntimeException e) {
            problems.add("allocated " + ip + " -> '" + macText + "' is not a MAC address; skipped");
            return;
          }
          if (!cidr.contains(ip)) {
            problems.add(
                "allocated " + ip + " -> " + mac + " is outside cidr " + cidr + "; skipped");
          } else if (ip.equals(serverIp)) {
            problems.add(
                "allocated " + ip + " -> " + mac + " is the server's own address; skipped");
          } else {
            Ipv4Address first = byMac.putIfAbsent(mac, ip);
            if (first != null) {
              problems.add(
                  mac + " is allocated both " + first + " and " + ip + "; serving " + first);
            }
          }
        });
    return byMac;
  }

  private static <T> T required(
      String text,
      String field,
      java.util.function.Function<String, T> parser,
      List<String> fatal) {
    if (text == null || text.isBlank()) {
      fatal.add(field + " is missing");
      return null;
    }
    try {
      return parser.apply(text.trim());
    } catch (RuntimeException e) {
      fatal.add(field + " '" + text + "' is invalid (" + e.getMessage() + ")");
      return null;
    }
  }

  private static <T> Optional<T> optional(
      String text,
      String field,
      java.util.function.Function<String, T> parser,
      List<String> problems) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    try {
      return Optional.of(parser.apply(text.trim()));
    } catch (RuntimeException e) {
      problems.add(field + " '" + text + "' is not an IPv4 address; left out");
      return Optional.empty();
    }
  }
}
