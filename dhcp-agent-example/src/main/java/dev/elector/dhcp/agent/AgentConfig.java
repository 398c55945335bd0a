package dev.elector.dhcp.agent;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.server.Ipv4Cidr;
import dev.elector.ippool.IPPoolRef;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The agent's settings, from command-line flags and environment variables. Immutable; {@link
 * #parse} checks everything and reports every problem at once, each naming the flag and the fix.
 *
 * <pre>
 * dhcp-agent --ippool-ref NAMESPACE/NAME   (or IPPOOL_REF)   the one pool this agent serves
 *            --network NAMESPACE/NAME      the pool's network (NetworkAttachmentDefinition): the
 *                                          NIC is the one Multus attached for it, read from the
 *                                          pod's k8s.v1.cni.cncf.io/network-status annotation
 *            [--pod-annotations PATH]      default /etc/podinfo/annotations (Downward API file)
 *            or --nic IFACE                the NIC to serve on and to put the server address on
 *            [--server-ip IP --cidr CIDR]  default: the pool's serverIP and cidr
 *            [--dry-run]                   never change the NIC (the address must exist already)
 *            [--kubeconfig PATH]           default: in-cluster, else KUBECONFIG, else ~/.kube/config
 *            [--health-addr HOST:PORT]     default 0.0.0.0:8080 (/healthz, /readyz)
 *            [--expose-leases]             also serve /leases, a read-only dump of the lease cache
 *            [--lock-name NAME]            default dhcp-agent.POOLNAMESPACE.POOLNAME
 *            [--identity ID]               default POD_NAME plus a per-process suffix
 *            [--lease-duration D] [--renew-deadline D] [--retry-period D]   elector timings
 *            [--dhcp-port N]               default 67
 * </pre>
 *
 * Durations are written like {@code 15s}, {@code 500ms}, {@code 2m} or {@code PT15S}.
 */
public final class AgentConfig {
  /** The default health listener. */
  public static final InetSocketAddress DEFAULT_HEALTH = new InetSocketAddress("0.0.0.0", 8080);
  /** Where the pod's annotations are read from by default (a downwardAPI volume item). */
  public static final Path DEFAULT_POD_ANNOTATIONS = Path.of("/etc/podinfo/annotations");

  private static final List<String> VALUE_FLAGS = List.of("ippool-ref", "nic", "network",
      "pod-annotations", "server-ip", "cidr",
      "kubeconfig", "health-addr", "lock-name", "identity", "lease-duration", "renew-deadline",
      "retry-period", "dhcp-port");
  private static final List<String> SWITCHES = List.of("dry-run", "expose-leases");

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
    List<String> problems = new ArrayList<>();
    Map<String, String> flags = flags(args, problems);
    Parsed p = new Parsed();
    String ref = flags.getOrDefault("ippool-ref", env.get("IPPOOL_REF"));
    try {
      p.pool = IPPoolRef.parse(ref);
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
    }
    p.dryRun = flags.containsKey("dry-run");
    p.exposeLeases = flags.containsKey("expose-leases");
    p.nic = flags.get("nic");
    if (p.nic != null && !p.nic.matches("[A-Za-z0-9_.:@-]{1,15}")) {
      problems.add("--nic '" + p.nic + "' is not a network interface name (1-15 letters, digits,"
          + " '.', '-', '_', ':' or '@')");
    }
    p.network = flags.get("network");
    if (p.network != null && !p.network.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]([-.a-z0-9]*[a-z0-9])?")) {
      problems.add("--network '" + p.network + "' is not NAMESPACE/NAME of a"
          + " NetworkAttachmentDefinition, e.g. default/net-48 (the pool's spec.networkName)");
    }
    if (p.nic == null && p.network == null && !p.dryRun) {
      problems.add("--network or --nic is missing: pass --network NAMESPACE/NAME (the pool's"
          + " network; the interface Multus attached for it is looked up) or --nic IFACE, or"
          + " --dry-run to leave interfaces alone");
    }
    String annotations = flags.get("pod-annotations");
    p.podAnnotations = annotations == null ? DEFAULT_POD_ANNOTATIONS : Path.of(annotations);
    p.serverIp = parse(flags, "server-ip", Ipv4Address::parse, "an IPv4 address like 192.0.2.1",
        problems);
    p.cidr = parse(flags, "cidr", Ipv4Cidr::parse, "a network like 192.0.2.0/24", problems);
    if (p.serverIp != null && p.cidr != null && !p.cidr.contains(p.serverIp)) {
      problems.add("--server-ip " + p.serverIp + " is outside --cidr " + p.cidr
          + "; pass an address inside the network");
    }
    String kubeconfig = flags.get("kubeconfig");
    p.kubeconfig = kubeconfig == null ? null : Path.of(kubeconfig);
    p.healthAddress = parse(flags, "health-addr", AgentConfig::hostPort,
        "HOST:PORT like 0.0.0.0:8080", problems);
    if (p.healthAddress == null) {
      p.healthAddress = DEFAULT_HEALTH;
    }
    p.identity = flags.get("identity");
    if (p.identity != null && p.identity.isBlank()) {
      problems.add("--identity is blank; give every replica a unique identity or leave it out to"
          + " use POD_NAME");
    }
    p.lockName = flags.get("lock-name");
    if (p.lockName == null && p.pool != null) {
      p.lockName = "dhcp-agent." + p.pool.namespace() + "." + p.pool.name();
    }
    if (p.lockName != null && p.lockName.length() > 253) {
      p.lockName = p.lockName.substring(0, 253).replaceAll("[.-]+$", "");
    }
    p.leaseDuration = duration(flags, "lease-duration", Duration.ofSeconds(15), problems);
    p.renewDeadline = duration(flags, "renew-deadline", Duration.ofSeconds(10), problems);
    p.retryPeriod = duration(flags, "retry-period", Duration.ofSeconds(2), problems);
    Integer port = parse(flags, "dhcp-port", Integer::valueOf, "a port number", problems);
    p.dhcpPort = port == null ? 67 : port;
    if (p.dhcpPort < 1 || p.dhcpPort > 65_535) {
      problems.add("--dhcp-port " + p.dhcpPort + " must be within 1-65535");
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("invalid agent configuration:\n  - "
          + String.join("\n  - ", problems));
    }
    return new AgentConfig(p);
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
   * The pool's network, {@code NAMESPACE/NAME}, whose interface the agent serves on when
   * {@link #nic()} is not given.
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
    return "AgentConfig{pool=" + pool + ", nic=" + nic.orElse("-") + ", serverIp="
        + serverIp.map(String::valueOf).orElse("from pool") + ", cidr="
        + cidr.map(String::valueOf).orElse("from pool") + ", dryRun=" + dryRun + ", lock="
        + lockName + ", lease=" + leaseDuration + "/" + renewDeadline + "/" + retryPeriod
        + ", dhcpPort=" + dhcpPort + ", health=" + healthAddress + "}";
  }

  /** Parses a duration like 15s, 500ms, 2m, 1h or PT15S. */
  static Duration parseDuration(String text) {
    String t = text.trim();
    if (t.startsWith("P") || t.startsWith("p")) {
      return Duration.parse(t);
    }
    java.util.regex.Matcher m = java.util.regex.Pattern
        .compile("(\\d+)(ms|s|m|h)").matcher(t);
    Duration total = Duration.ZERO;
    int at = 0;
    while (at < t.length() && m.find(at) && m.start() == at) {
      long n = Long.parseLong(m.group(1));
      total = total.plus(switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      });
      at = m.end();
    }
    if (at == 0 || at != t.length()) {
      throw new IllegalArgumentException(text);
    }
    return total;
  }

  private static Duration duration(Map<String, String> flags, String name, Duration fallback,
      List<String> problems) {
    String text = flags.get(name);
    if (text == null) {
      return fallback;
    }
    try {
      Duration d = parseDuration(text);
      if (d.isZero() || d.isNegative()) {
        problems.add("--" + name + " " + text + " must be positive");
      }
      return d;
    } catch (RuntimeException e) {
      problems.add("--" + name + " '" + text + "' is not a duration; write it like 15s, 500ms, 2m"
          + " or PT15S");
      return fallback;
    }
  }

  private static <T> T parse(Map<String, String> flags, String name,
      java.util.function.Function<String, T> parser, String expected, List<String> problems) {
    String text = flags.get(name);
    if (text == null) {
      return null;
    }
    try {
      return parser.apply(text.trim());
    } catch (RuntimeException e) {
      problems.add("--" + name + " '" + text + "' is not " + expected
          + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"));
      return null;
    }
  }

  private static InetSocketAddress hostPort(String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("missing host or port");
    }
    int port = Integer.parseInt(text.substring(colon + 1));
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("port out of range");
    }
    return new InetSocketAddress(text.substring(0, colon), port);
  }

  private static Map<String, String> flags(String[] args, List<String> problems) {
    Map<String, String> flags = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        problems.add("unexpected argument '" + arg + "'; every option is a --flag");
        continue;
      }
      String name = arg.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (SWITCHES.contains(name)) {
        if (value != null) {
          problems.add("--" + name + " takes no value");
        }
        flags.put(name, "true");
      } else if (VALUE_FLAGS.contains(name)) {
        if (value == null) {
          if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
            problems.add("--" + name + " needs a value");
            continue;
          }
          value = args[++i];
        }
        if (flags.put(name, value) != null) {
          problems.add("--" + name + " is given twice; give it once");
        }
      } else {
        problems.add("unknown flag --" + name + "; known flags: --" + String.join(", --",
            VALUE_FLAGS) + ", --" + String.join(", --", SWITCHES));
      }
    }
    return flags;
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
