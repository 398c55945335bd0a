package dev.elector.dhcp.agent;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.server.DhcpCommandLines;
import dev.elector.dhcp.server.Ipv4Cidr;
import dev.elector.examples.CommandLines;
import dev.elector.examples.HostPort;
import dev.elector.ippool.IPPoolRef;
import dev.elector.ippool.PodRef;
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
   * Every flag, declared once here with its default (picocli's {@code defaultValue}, which --help
   * shows); {@link AgentConfig} reads them, and derives only the pool, the Lease name and the NIC.
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
    Path podAnnotations;

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
        names = "--no-dhcp",
        description =
            "run no DHCP server: elect and keep the lease cache only (upstream's agent --dry-run;"
                + " what the controller's --no-dhcp asks for)")
    boolean noDhcp;

    @Option(
        names = "--kubeconfig",
        paramLabel = "PATH",
        description =
            "kubeconfig to use (default: in-cluster, else KUBECONFIG, else" + " ~/.kube/config)")
    Path kubeconfig;

    @Option(
        names = "--kubecontext",
        paramLabel = "NAME",
        description = "the kubeconfig context to use (or KUBECONTEXT; default its current one)")
    String kubecontext;

    @Option(
        names = "--health-addr",
        paramLabel = "HOST:PORT",
        defaultValue = "0.0.0.0:8080",
        description = "/healthz, /readyz and /metrics (default ${DEFAULT-VALUE})")
    HostPort healthAddress;

    @Option(
        names = {"--expose-leases", "--enable-cache-dump-api"},
        description =
            "also serve /leases, a read-only dump of the lease cache (--enable-cache-dump-api is"
                + " upstream's name)")
    boolean exposeLeases;

    @Option(
        names = "--no-leader-election",
        description =
            "serve at once, without a Lease (run one replica of the pool only: two would both"
                + " answer on the network)")
    boolean noLeaderElection;

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
    Duration leaseDuration;

    @Option(
        names = "--renew-deadline",
        paramLabel = "D",
        defaultValue = "10s",
        description = "renew deadline (default ${DEFAULT-VALUE})")
    Duration renewDeadline;

    @Option(
        names = "--retry-period",
        paramLabel = "D",
        defaultValue = "2s",
        description = "retry period (default ${DEFAULT-VALUE})")
    Duration retryPeriod;

    @Option(
        names = "--dhcp-port",
        paramLabel = "N",
        defaultValue = "67",
        description = "the UDP port the server listens on (default ${DEFAULT-VALUE})")
    int dhcpPort;

    @Option(names = "--debug", description = "log at DEBUG (or VM_DHCP_AGENT_DEBUG=true)")
    boolean debug;

    @Option(names = "--trace", description = "log at TRACE (or VM_DHCP_AGENT_TRACE=true)")
    boolean trace;
  }

  private final Flags flags;
  private final IPPoolRef pool;
  private final String lockName;
  private final Optional<String> nic;
  private final Optional<String> kubecontext;
  private final String logLevel;
  private final Optional<PodRef> pod;

  private AgentConfig(
      Flags flags,
      IPPoolRef pool,
      String lockName,
      String nic,
      String kubecontext,
      String logLevel,
      PodRef pod) {
    this.flags = flags;
    this.pool = pool;
    this.lockName = lockName;
    this.nic = Optional.ofNullable(nic);
    this.kubecontext = Optional.ofNullable(kubecontext);
    this.logLevel = logLevel;
    this.pod = Optional.ofNullable(pod);
  }

  /**
   * Reads flags, falling back to {@code env} for IPPOOL_REF, KUBECONTEXT, VM_DHCP_AGENT_DEBUG and
   * VM_DHCP_AGENT_TRACE; the agent's own pod comes from POD_NAMESPACE, POD_NAME, POD_UID and
   * AGENT_IMAGE, as the Deployment sets them.
   *
   * @throws IllegalArgumentException listing every problem, one per line
   */
  public static AgentConfig parse(String[] args, Map<String, String> env) {
    Flags flags = new Flags();
    List<String> problems =
        new ArrayList<>(CommandLines.parse(commandLine(flags), args).problems());
    IPPoolRef pool = null;
    String ref = flags.ippoolRef != null ? flags.ippoolRef : env.get("IPPOOL_REF");
    try {
      pool = IPPoolRef.parse(ref);
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
    }
    if (flags.nic != null && !flags.nic.matches("[A-Za-z0-9_.:@-]{1,15}")) {
      problems.add(
          "--nic '"
              + flags.nic
              + "' is not a network interface name (1-15 letters, digits,"
              + " '.', '-', '_', ':' or '@')");
    }
    if (flags.network != null
        && !flags.network.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]([-.a-z0-9]*[a-z0-9])?")) {
      problems.add(
          "--network '"
              + flags.network
              + "' is not NAMESPACE/NAME of a"
              + " NetworkAttachmentDefinition, e.g. default/net-48 (the pool's spec.networkName)");
    }
    if (flags.nic == null && flags.network == null && !flags.dryRun && !flags.noDhcp) {
      problems.add(
          "--network or --nic is missing: pass --network NAMESPACE/NAME (the pool's"
              + " network; the interface Multus attached for it is looked up) or --nic IFACE, or"
              + " --dry-run to leave interfaces alone");
    }
    if (flags.serverIp != null && flags.cidr != null && !flags.cidr.contains(flags.serverIp)) {
      problems.add(
          "--server-ip "
              + flags.serverIp
              + " is outside --cidr "
              + flags.cidr
              + "; pass an address inside the network");
    }
    if (flags.identity != null && flags.identity.isBlank()) {
      problems.add(
          "--identity is blank; give every replica a unique identity or leave it out to"
              + " use POD_NAME");
    }
    String lockName = flags.lockName;
    if (lockName == null && pool != null) {
      lockName = "dhcp-agent." + pool.namespace() + "." + pool.name();
    }
    if (lockName != null && lockName.length() > 253) {
      lockName = lockName.substring(0, 253).replaceAll("[.-]+$", "");
    }
    if (flags.dhcpPort < 1 || flags.dhcpPort > 65_535) {
      problems.add("--dhcp-port " + flags.dhcpPort + " must be within 1-65535");
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "invalid agent configuration:\n  - " + String.join("\n  - ", problems));
    }
    String kubecontext = flags.kubecontext != null ? flags.kubecontext : env.get("KUBECONTEXT");
    String level =
        flags.trace || "true".equalsIgnoreCase(env.get("VM_DHCP_AGENT_TRACE"))
            ? "trace"
            : flags.debug || "true".equalsIgnoreCase(env.get("VM_DHCP_AGENT_DEBUG"))
                ? "debug"
                : "info";
    return new AgentConfig(flags, pool, lockName, flags.nic, kubecontext, level, pod(env));
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
    return DhcpCommandLines.create(flags);
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
    return Optional.ofNullable(flags.network);
  }

  /** The Downward API file with the pod's annotations, where Multus' network status is read. */
  public Path podAnnotations() {
    return flags.podAnnotations;
  }

  /** This configuration serving on {@code iface}, as looked up for {@link #network()}. */
  public AgentConfig withNic(String iface) {
    return new AgentConfig(
        flags, pool, lockName, iface, kubecontext.orElse(null), logLevel, pod.orElse(null));
  }

  /** The server address, overriding the pool's serverIP. */
  public Optional<Ipv4Address> serverIp() {
    return Optional.ofNullable(flags.serverIp);
  }

  /** The network, overriding the pool's cidr. */
  public Optional<Ipv4Cidr> cidr() {
    return Optional.ofNullable(flags.cidr);
  }

  /** Whether the agent leaves interfaces alone. */
  public boolean dryRun() {
    return flags.dryRun;
  }

  /** Whether the agent runs no DHCP server (it still elects and keeps its lease cache). */
  public boolean noDhcp() {
    return flags.noDhcp;
  }

  /** The kubeconfig file; empty for the standard lookup. */
  public Optional<Path> kubeconfig() {
    return Optional.ofNullable(flags.kubeconfig);
  }

  /**
   * The agent's own pod, which the leader writes to the pool's status.agentPodRef; empty outside a
   * pod (POD_NAME or POD_NAMESPACE unset).
   */
  public Optional<PodRef> pod() {
    return pod;
  }

  private static PodRef pod(Map<String, String> env) {
    String namespace = blankToNull(env.get("POD_NAMESPACE"));
    String name = blankToNull(env.get("POD_NAME"));
    if (namespace == null || name == null) {
      return null;
    }
    return new PodRef()
        .namespace(namespace)
        .name(name)
        .uid(blankToNull(env.get("POD_UID")))
        .image(blankToNull(env.get("AGENT_IMAGE")));
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.trim();
  }

  /** The kubeconfig context; empty for its current one. */
  public Optional<String> kubecontext() {
    return kubecontext;
  }

  /** The log level: info, debug or trace. */
  public String logLevel() {
    return logLevel;
  }

  /** Where /healthz, /readyz and /leases listen. */
  public InetSocketAddress healthAddress() {
    return flags.healthAddress.toSocketAddress();
  }

  /** Whether /leases is served. */
  public boolean exposeLeases() {
    return flags.exposeLeases;
  }

  /**
   * Whether the replicas elect one server through the Lease; false with {@code
   * --no-leader-election}, which makes this process serve at once, on a lock no other process sees.
   */
  public boolean leaderElection() {
    return !flags.noLeaderElection;
  }

  /** The Lease all replicas serving this pool share. */
  public String lockName() {
    return lockName;
  }

  /** The candidate identity, when given explicitly. */
  public Optional<String> identity() {
    return Optional.ofNullable(flags.identity);
  }

  public Duration leaseDuration() {
    return flags.leaseDuration;
  }

  public Duration renewDeadline() {
    return flags.renewDeadline;
  }

  public Duration retryPeriod() {
    return flags.retryPeriod;
  }

  /** The UDP port the server listens on. */
  public int dhcpPort() {
    return flags.dhcpPort;
  }

  @Override
  public String toString() {
    return "AgentConfig{pool="
        + pool
        + ", nic="
        + nic.orElse("-")
        + ", serverIp="
        + serverIp().map(String::valueOf).orElse("from pool")
        + ", cidr="
        + cidr().map(String::valueOf).orElse("from pool")
        + ", dryRun="
        + flags.dryRun
        + ", noDhcp="
        + flags.noDhcp
        + ", lock="
        + lockName
        + ", lease="
        + leaseDuration()
        + "/"
        + renewDeadline()
        + "/"
        + retryPeriod()
        + ", dhcpPort="
        + dhcpPort()
        + ", health="
        + healthAddress()
        + "}";
  }
}
