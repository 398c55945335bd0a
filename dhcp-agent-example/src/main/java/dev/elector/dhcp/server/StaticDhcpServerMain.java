package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.codec.MalformedPacketException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Serves a fixed lease table, for manual and end-to-end tests (not the Kubernetes agent).
 *
 * <pre>
 * StaticDhcpServerMain --bind 192.0.2.1 [--port 67] --cidr 192.0.2.0/24 [--server-ip IP]
 *     [--router IP] [--dns IP,IP] [--domain NAME] [--search NAME,NAME] [--ntp IP,IP]
 *     [--lease-time SECONDS] --lease MAC=IP [--lease MAC=IP ...]
 * </pre>
 *
 * <p>Prints {@code READY port=N} once serving and one {@code OUTCOME ...} line per request on
 * standard output; runs until killed.
 */
public final class StaticDhcpServerMain {
  private StaticDhcpServerMain() {}

  /** Runs the server; exits with status 2 on bad arguments. */
  public static void main(String[] args) throws IOException, InterruptedException {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    DhcpServer server;
    try {
      server = parse(args, out);
    } catch (IllegalArgumentException e) {
      System.err.println("StaticDhcpServerMain: " + e.getMessage());
      System.exit(2);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  stopped.countDown();
                },
                "dhcp-shutdown"));
    server.start();
    server.setServing(true);
    out.println("READY port=" + server.localPort());
    stopped.await();
  }

  static DhcpServer parse(String[] args, PrintStream out) {
    Map<String, List<String>> flags = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --flag value, got '" + args[i] + "'");
      }
      flags.computeIfAbsent(args[i].substring(2), k -> new ArrayList<>()).add(args[++i]);
    }
    Ipv4Address bind = Ipv4Address.parse(one(flags, "bind", "0.0.0.0"));
    int port = Integer.parseInt(one(flags, "port", "67"));
    PoolOptions.Builder pool =
        PoolOptions.builder()
            .cidr(Ipv4Cidr.parse(one(flags, "cidr", null)))
            .serverIp(Ipv4Address.parse(one(flags, "server-ip", bind.toString())))
            .dns(addresses(flags, "dns"))
            .ntp(addresses(flags, "ntp"))
            .domainSearch(list(flags, "search"))
            .leaseTime(
                Duration.ofSeconds(
                    Long.parseLong(
                        one(
                            flags,
                            "lease-time",
                            String.valueOf(PoolOptions.DEFAULT_LEASE_TIME.toSeconds())))));
    if (flags.containsKey("router")) {
      pool.router(Ipv4Address.parse(one(flags, "router", null)));
    }
    if (flags.containsKey("domain")) {
      pool.domainName(one(flags, "domain", null));
    }
    Map<MacAddress, Ipv4Address> leases = new LinkedHashMap<>();
    for (String lease : flags.getOrDefault("lease", List.of())) {
      String[] parts = lease.split("=", 2);
      if (parts.length != 2) {
        throw new IllegalArgumentException("--lease '" + lease + "' must be MAC=IP");
      }
      leases.put(MacAddress.parse(parts[0]), Ipv4Address.parse(parts[1]));
    }
    flags
        .keySet()
        .removeAll(
            List.of(
                "bind",
                "port",
                "cidr",
                "server-ip",
                "router",
                "dns",
                "domain",
                "search",
                "ntp",
                "lease-time",
                "lease"));
    if (!flags.isEmpty()) {
      throw new IllegalArgumentException("unknown flags " + flags.keySet());
    }
    return DhcpServer.builder()
        .engine(new DhcpEngine(StaticLeaseSource.of(pool.build(), leases)))
        .bindAddress(bind)
        .port(port)
        .listener(
            new DhcpListener() {
              @Override
              public void handled(InetSocketAddress from, DhcpMessage request, Outcome outcome) {
                out.println(
                    "OUTCOME "
                        + request.options().messageType().map(Enum::name).orElse("?")
                        + " "
                        + outcome);
              }

              @Override
              public void malformed(InetSocketAddress from, MalformedPacketException problem) {
                out.println("MALFORMED from " + from + ": " + problem.getMessage());
              }
            })
        .build();
  }

  private static String one(Map<String, List<String>> flags, String name, String fallback) {
    List<String> values = flags.get(name);
    if (values == null) {
      if (fallback == null) {
        throw new IllegalArgumentException("--" + name + " is required");
      }
      return fallback;
    }
    if (values.size() != 1) {
      throw new IllegalArgumentException("--" + name + " may be given once");
    }
    return values.get(0);
  }

  private static List<String> list(Map<String, List<String>> flags, String name) {
    List<String> values = new ArrayList<>();
    for (String value : flags.getOrDefault(name, List.of())) {
      values.addAll(Arrays.asList(value.split(",")));
    }
    return values;
  }

  private static List<Ipv4Address> addresses(Map<String, List<String>> flags, String name) {
    return list(flags, name).stream().map(Ipv4Address::parse).toList();
  }
}
