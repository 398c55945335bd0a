package dev.elector.dhcp.agent;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.server.Ipv4Cidr;
import dev.elector.examples.CommandLines;
import dev.elector.examples.HostPort;
import dev.elector.ippool.IPPoolRef;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The agent's settings, from command-line flags (read by picocli; {@code dhcp-agent --help} lists
 * them) and the environment. Immutable; {@link #parse} checks everything and reports every problem
 * at once, each naming the flag and the fix.
 *
 * <p>Durations are written like {@code 15s}, {@code 500ms}, {@code 2m} or {@code PT15S}.
 */
public final class AgentConfig {
  /** The default health listener. */
  public static final InetSocketAddress DEFAULT_HEALTH = new InetSocketAddress("0.0.0.0", 8080);

  /** Where the pod's annotations are read from by default (a downwardAPI volume item). */
  public static final Path DEFAULT_POD_ANNOTATIONS = Path.of("/etc/podinfo/annotations");

  /**
   * The flags, as picocli fills them in. The fields start at their defaults, which stay where a bad
   * flag stops picocli before it applies the {@code defaultValue}s (shown by --help).
   */
  @Command(
      name = "dhcp-agent",
      mixinStandardHelpOptions = true,
      versionProvider = CommandLines.Version.class,
      sortOptions = false,
      sortSynopsis = false,
      usageHelpWidth = 100,
      description =
          "Serves DHCPv4 for one IPPool on one network; of the replicas serving the"
              + " pool, one leads (through a Lease) and answers.",
      footer = {
        "",
        "Durations: 15s, 500ms, 2m, 1h, 1m30s or ISO-8601 like PT15S.",
        "Exit status: 2 for bad flags, an unreadable kubeconfig or a missing namespace."
      })
  static final class Flags {
    @Option(
        names = "--ippool-ref",
        paramLabel = "NAMESPACE/NAME",
        description = "the one pool this agent serves (or the environment variable IPPOOL_REF)")
    String ippoolRef;

    @Option(
        names = "--network",
        paramLabel = "NAMESPACE/NAME",
        description =
            "the pool's"
                + " network (NetworkAttachmentDefinition): the NIC is the one Multus attached for it, read"
                + " from the pod's k8s.v1.cni.cncf.io/network-status annotation")
    String network;

    @Option(
        names = "--pod-annotations",
        paramLabel = "PATH",
        defaultValue = "/etc/podinfo/annotations",
        description = "the pod's annotations, a Downward API file (default ${DEFAULT-VALUE})")
    Path podAnnotations = DEFAULT_POD_ANNOTATIONS;

    @Option(
        names = "--nic",
        paramLabel = "IFACE",
        description =
            "instead of --network: the NIC" + " to serve on and to put the server address on")
    String nic;

    @Option(
        names = "--server-ip",
        paramLabel = "IP",
        description = "the server address (default: the pool's serverIP)")
    Ipv4Address serverIp;

    @Option(
        names = "--cidr",
        paramLabel = "CIDR",
        description = "the network (default: the pool's cidr)")
    Ipv4Cidr cidr;

    @Option(
        names = "--dry-run",
        description = "never change the NIC (the address must exist already)")
    boolean dryRun;

    @Option(
        names = "--kubeconfig",
        paramLabel = "PATH",
        description =
            "kubeconfig to use (default: in-cluster, else KUBECONFIG, else" + " ~/.kube/config)")
    Path kubeconfig;

    @Option(
        names = "--health-addr",
        paramLabel = "HOST:PORT",
        defaultValue = "0.0.0.0:8080",
        description = "/healthz, /readyz and /metrics (default ${DEFAULT-VALUE})")
    HostPort healthAddress = new HostPort("0.0.0.0", 8080);

    @Option(
        names = "--expose-leases",
        description = "also serve /leases, a read-only dump of the lease cache")
    boolean exposeLeases;

    @Option(
        names = "--lock-name",
        paramLabel = "NAME",
        description = "the Lease (default dhcp-agent.POOLNAMESPACE.POOLNAME)")
    String lockName;

    @Option(
        names = "--identity",
        paramLabel = "ID",
        description = "identity in the Lease (default POD_NAME plus a per-process suffix)")
    String identity;

    @Option(
        names = "--lease-duration",
        paramLabel = "D",
        defaultValue = "15s",
        description = "lease duration (default ${DEFAULT-VALUE})")
    Duration leaseDuration = Duration.ofSeconds(15);

    @Option(
        names = "--renew-deadline",
        paramLabel = "D",
        defaultValue = "10s",
        description = "renew deadline (default ${DEFAULT-VALUE})")
    Duration renewDeadline = Duration.ofSeconds(10);

    @Option(
        names = "--retry-period",
        paramLabel = "D",
        defaultValue = "2s",
        description = "retry period (default ${DEFAULT-VALUE})")
    Duration retryPeriod = Duration.ofSeconds(2);

    @Option(
        names = "--dhcp-port",
        paramLabel = "N",
        defaultValue = "67",
        description = "the UDP port the server listens on (default ${DEFAULT-VALUE})")
    int dhcpPort = 67;
  }

  private final IPPoolRef pool;
  private final Optional<String> nic;
  private final Optional<String> network;
  private final Path podAnnotations;
  private final Optional<Ipv4Address> serverIp;
  private final Optional<Ipv4Cidr> cidr;
  private final boolean dryRun;
  private final Optional<Path> kubeconfig;
  private final InetSocketAddress healthAddress;
  private final boolean exposeLeases;
  private final String lockName;
  private final Optional<String> identity;
  private final Duration leaseDuration;
  private final Duration renewDeadline;
  private final Duration retryPeriod;
  private final int dhcpPort;

  private AgentConfig(Parsed p) {
    this.pool = p.pool;
    this.nic = Optional.ofNullable(p.nic);
    this.network = Optional.ofNullable(p.network);
    this.podAnnotations = p.podAnnotations;
    this.serverIp = Optional.ofNullable(p.serverIp);
    this.cidr = Optional.ofNullable(p.cidr);
    this.dryRun = p.dryRun;
    this.kubeconfig = Optional.ofNullable(p.kubeconfig);
    this.healthAddress = p.healthAddress;
    this.exposeLeases = p.exposeLeases;
    this.lockName = p.lockName;
    this.identity = Optional.ofNullable(p.identity);
    this.leaseDuration = p.leaseDuration;
    this.renewDeadline = p.renewDeadline;
    this.retryPeriod = p.retryPeriod;
    this.dhcpPort = p.dhcpPort;
  }

  /**
   * Reads flags, falling back to {@code env} for IPPOOL_REF.
   *
   * @throws IllegalArgumentException listing every problem, one per line
   */
  public static AgentConfig parse(String[] args, Map<String, String> env) {
    Flags flags = new Flags();
    List<String> problems =
        new ArrayList<>(CommandLines.parse(commandLine(flags), args).problems());
    Parsed p = new Parsed();
    String ref = flags.ippoolRef != null ? flags.ippoolRef : env.get("IPPOOL_REF");
    try {
      p.pool = IPPoolRef.parse(ref);
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
    }
    p.dryRun = flags.dryRun;
    p.exposeLeases = flags.exposeLeases;
    p.nic = flags.nic;
    if (p.nic != null && !p.nic.matches("[A-Za-z0-9_.:@-]{1,15}")) {
      problems.add(
          "--nic '"
              + p.nic
              + "' is not a network interface name (1-15 letters, digits,"
              + " '.', '-', '_', ':' or '@')");
    }
    p.network = flags.network;
    if (p.network != null
        && !p.network.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]([-.a-z0-9]*[a-z0-9])?")) {
      problems.add(
          "--network '"
              + p.network
              + "' is not NAMESPACE/NAME of a"
              + " NetworkAttachmentDefinition, e.g. default/net-48 (the pool's spec.networkName)");
    }
    if (p.nic == null && p.network == null && !p.dryRun) {
      problems.add(
          "--network or --nic is missing: pass --network NAMESPACE/NAME (the pool's"
              + " network; the interface Multus attached for it is looked up) or --nic IFACE, or"
              + " --dry-run to leave interfaces alone");
    }
    p.podAnnotations = flags.podAnnotations;
    p.serverIp = flags.serverIp;
    p.cidr = flags.cidr;
    if (p.serverIp != null && p.cidr != null && !p.cidr.contains(p.serverIp)) {
      problems.add(
          "--server-ip "
              + p.serverIp
              + " is outside --cidr "
              + p.cidr
              + "; pass an address inside the network");
    }
    p.kubeconfig = flags.kubeconfig;
    p.healthAddress = flags.healthAddress.toSocketAddress();
    p.identity = flags.identity;
    if (p.identity != null && p.identity.isBlank()) {
      problems.add(
          "--identity is blank; give every replica a unique identity or leave it out to"
              + " use POD_NAME");
    }
    p.lockName = flags.lockName;
    if (p.lockName == null && p.pool != null) {
      p.lockName = "dhcp-agent." + p.pool.namespace() + "." + p.pool.name();
    }
    if (p.lockName != null && p.lockName.length() > 253) {
      p.lockName = p.lockName.substring(0, 253).replaceAll("[.-]+$", "");
    }
    p.leaseDuration = flags.leaseDuration;
    p.renewDeadline = flags.renewDeadline;
    p.retryPeriod = flags.retryPeriod;
    p.dhcpPort = flags.dhcpPort;
    if (p.dhcpPort < 1 || p.dhcpPort > 65_535) {
      problems.add("--dhcp-port " + p.dhcpPort + " must be within 1-65535");
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "invalid agent configuration:\n  - " + String.join("\n  - ", problems));
    }
    return new AgentConfig(p);
  }

  /**
   * Prints the usage or the version if {@code args} ask for it ({@code --help}, {@code -h}, {@code
   * --version}, {@code -V}), whatever else they hold.
   *
   * @return whether it did; the agent then exits with status 0
   */
  public static boolean printHelpOrVersion(String[] args, PrintStream out) {
    CommandLine cli = commandLine(new Flags());
    return CommandLines.printHelpOrVersion(cli, CommandLines.parse(cli, args), out);
  }

  private static CommandLine commandLine(Flags flags) {
    CommandLine cli = CommandLines.create(flags);
    cli.registerConverter(
        Ipv4Address.class,
        text -> CommandLines.convert(text, Ipv4Address::parse, "an IPv4 address like 192.0.2.1"));
    cli.registerConverter(
        Ipv4Cidr.class,
        text -> CommandLines.convert(text, Ipv4Cidr::parse, "a network like 192.0.2.0/24"));
    return cli;
  }

  /** The pool this agent serves. */
  public IPPoolRef pool() {
    return pool;
  }

  /** The interface to serve on; empty only in dry-run mode. */
  public Optional<String> nic() {
    return nic;
  }

  /**
   * The pool's network, {@code NAMESPACE/NAME}, whose interface the agent serves on when {@link
   * #nic()} is not given.
   */
  public Optional<String> network() {
    return network;
  }

  /** The Downward API file with the pod's annotations, where Multus' network status is read. */
  public Path podAnnotations() {
    return podAnnotations;
  }

  /** This configuration serving on {@code iface}, as looked up for {@link #network()}. */
  public AgentConfig withNic(String iface) {
    Parsed p = toParsed();
    p.nic = iface;
    return new AgentConfig(p);
  }

  /** The server address, overriding the pool's serverIP. */
  public Optional<Ipv4Address> serverIp() {
    return serverIp;
  }

  /** The network, overriding the pool's cidr. */
  public Optional<Ipv4Cidr> cidr() {
    return cidr;
  }

  /** Whether the agent leaves interfaces alone. */
  public boolean dryRun() {
    return dryRun;
  }

  /** The kubeconfig file; empty for the standard lookup. */
  public Optional<Path> kubeconfig() {
    return kubeconfig;
  }

  /** Where /healthz, /readyz and /leases listen. */
  public InetSocketAddress healthAddress() {
    return healthAddress;
  }

  /** Whether /leases is served. */
  public boolean exposeLeases() {
    return exposeLeases;
  }

  /** The Lease all replicas serving this pool share. */
  public String lockName() {
    return lockName;
  }

  /** The candidate identity, when given explicitly. */
  public Optional<String> identity() {
    return identity;
  }

  public Duration leaseDuration() {
    return leaseDuration;
  }

  public Duration renewDeadline() {
    return renewDeadline;
  }

  public Duration retryPeriod() {
    return retryPeriod;
  }

  /** The UDP port the server listens on. */
  public int dhcpPort() {
    return dhcpPort;
  }

  @Override
  public String toString() {
    return "AgentConfig{pool="
        + pool
        + ", nic="
        + nic.orElse("-")
        + ", serverIp="
        + serverIp.map(String::valueOf).orElse("from pool")
        + ", cidr="
        + cidr.map(String::valueOf).orElse("from pool")
        + ", dryRun="
        + dryRun
        + ", lock="
        + lockName
        + ", lease="
        + leaseDuration
        + "/"
        + renewDeadline
        + "/"
        + retryPeriod
        + ", dhcpPort="
        + dhcpPort
        + ", health="
        + healthAddress
        + "}";
  }

  private Parsed toParsed() {
    Parsed p = new Parsed();
    p.pool = pool;
    p.nic = nic.orElse(null);
    p.network = network.orElse(null);
    p.podAnnotations = podAnnotations;
    p.serverIp = serverIp.orElse(null);
    p.cidr = cidr.orElse(null);
    p.dryRun = dryRun;
    p.kubeconfig = kubeconfig.orElse(null);
    p.healthAddress = healthAddress;
    p.exposeLeases = exposeLeases;
    p.lockName = lockName;
    p.identity = identity.orElse(null);
    p.leaseDuration = leaseDuration;
    p.renewDeadline = renewDeadline;
    p.retryPeriod = retryPeriod;
    p.dhcpPort = dhcpPort;
    return p;
  }

  private static final class Parsed {
    IPPoolRef pool;
    String nic;
    String network;
    Path podAnnotations;
    Ipv4Address serverIp;
    Ipv4Cidr cidr;
    boolean dryRun;
    Path kubeconfig;
    InetSocketAddress healthAddress;
    boolean exposeLeases;
    String lockName;
    String identity;
    Duration leaseDuration;
    Duration renewDeadline;
    Duration retryPeriod;
    int dhcpPort;
  }
}
