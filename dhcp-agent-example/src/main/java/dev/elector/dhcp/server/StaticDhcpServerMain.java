package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.codec.MalformedPacketException;
import dev.elector.examples.CommandLines;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

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

  @Command(
      name = "static-dhcp-server",
      mixinStandardHelpOptions = true,
      versionProvider = CommandLines.Version.class,
      sortOptions = false,
      usageHelpWidth = 100,
      description = "Serves a fixed lease table over DHCPv4, for manual and end-to-end tests.",
      footer = {"", "Exit status: 2 for bad flags."})
  static final class Flags {
    @Option(names = "--bind", paramLabel = "IP", description = "address to bind (default 0.0.0.0)")
    Ipv4Address bind = Ipv4Address.parse("0.0.0.0");

    @Option(names = "--port", paramLabel = "PORT", description = "UDP port (default 67)")
    int port = 67;

    @Option(names = "--cidr", paramLabel = "NETWORK", required = true, description = "the subnet")
    Ipv4Cidr cidr;

    @Option(
        names = "--server-ip",
        paramLabel = "IP",
        description = "the server identifier (default: --bind)")
    Ipv4Address serverIp;

    @Option(names = "--router", paramLabel = "IP", description = "the router option")
    Ipv4Address router;

    @Option(names = "--dns", paramLabel = "IP", split = ",", description = "DNS servers")
    List<Ipv4Address> dns = new ArrayList<>();

    @Option(names = "--domain", paramLabel = "NAME", description = "the domain name option")
    String domain;

    @Option(names = "--search", paramLabel = "NAME", split = ",", description = "search domains")
    List<String> search = new ArrayList<>();

    @Option(names = "--ntp", paramLabel = "IP", split = ",", description = "NTP servers")
    List<Ipv4Address> ntp = new ArrayList<>();

    @Option(
        names = "--lease-time",
        paramLabel = "SECONDS",
        description = "lease time in seconds (default: the pool default)")
    Integer leaseTimeSeconds;

    @Option(
        names = "--lease",
        paramLabel = "MAC=IP",
        required = true,
        description = "a MAC address and the address it gets; repeat for more")
    List<String> leases = new ArrayList<>();
  }

  /** Runs the server; exits with status 2 on bad arguments. */
  public static void main(String[] args) throws IOException, InterruptedException {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    DhcpServer server;
    try {
      Optional<DhcpServer> parsed = parse(args, out);
      if (parsed.isEmpty()) {
        return; // --help or --version
      }
      server = parsed.get();
    } catch (IllegalArgumentException e) {
      System.err.println("StaticDhcpServerMain: " + e.getMessage());
      System.exit(CommandLines.USAGE_ERROR);
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

  /**
   * The server {@code args} describe, not started; empty after printing the usage or the version.
   *
   * @throws IllegalArgumentException naming every flag that is wrong and how to fix it
   */
  static Optional<DhcpServer> parse(String[] args, PrintStream out) {
    Flags flags = new Flags();
    CommandLine cli = DhcpCommandLines.create(flags);
    CommandLines.Parsed parsed = CommandLines.parse(cli, args);
    if (CommandLines.printHelpOrVersion(cli, parsed, out)) {
      return Optional.empty();
    }
    List<String> problems = new ArrayList<>(parsed.problems());
    Map<MacAddress, Ipv4Address> leases = new LinkedHashMap<>();
    for (String lease : flags.leases) {
      String[] parts = lease.split("=", 2);
      try {
        if (parts.length != 2) {
          throw new IllegalArgumentException("it has no '='");
        }
        leases.put(MacAddress.parse(parts[0].trim()), Ipv4Address.parse(parts[1].trim()));
      } catch (IllegalArgumentException e) {
        problems.add(
            "--lease '"
                + lease
                + "' must be MAC=IP, like 02:00:00:00:00:01=192.0.2.10 ("
                + e.getMessage()
                + ")");
      }
    }
    if (flags.leaseTimeSeconds != null && flags.leaseTimeSeconds < 1) {
      problems.add("--lease-time " + flags.leaseTimeSeconds + " must be at least 1 second");
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    PoolOptions.Builder pool =
        PoolOptions.builder()
            .cidr(flags.cidr)
            .serverIp(flags.serverIp != null ? flags.serverIp : flags.bind)
            .dns(flags.dns)
            .ntp(flags.ntp)
            .domainSearch(flags.search)
            .leaseTime(
                flags.leaseTimeSeconds == null
                    ? PoolOptions.DEFAULT_LEASE_TIME
                    : Duration.ofSeconds(flags.leaseTimeSeconds));
    if (flags.router != null) {
      pool.router(flags.router);
    }
    if (flags.domain != null) {
      pool.domainName(flags.domain);
    }
    return Optional.of(
        DhcpServer.builder()
            .engine(new DhcpEngine(StaticLeaseSource.of(pool.build(), leases)))
            .bindAddress(flags.bind)
            .port(flags.port)
            .listener(
                new DhcpListener() {
                  @Override
                  public void handled(
                      InetSocketAddress from, DhcpMessage request, Outcome outcome) {
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
            .build());
  }
}
