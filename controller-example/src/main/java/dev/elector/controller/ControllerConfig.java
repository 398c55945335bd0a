package dev.elector.controller;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The IPPool controller's settings. Immutable; build with {@link #newBuilder()}. {@code build()}
 * checks every setting and reports all problems in one {@link IllegalArgumentException}, each
 * naming the setting, its command-line flag, the value and the fix.
 */
public final class ControllerConfig {
  /** Default agent image. */
  public static final String DEFAULT_AGENT_IMAGE = "ghcr.io/elector-dev/dhcp-agent:0.1.0";

  /** Default agent replicas per pool. */
  public static final int DEFAULT_AGENT_REPLICAS = 2;

  /** Default name of the controller's Lease. */
  public static final String DEFAULT_LEASE_NAME = "ippool-controller";

  /**
   * Most shards a group may have ({@code --shards}): each shard a replica leads runs its own
   * controllers, three times {@code workers} reconciler threads.
   */
  public static final int MAX_SHARDS = 64;

  /** Default reconciler workers per resource kind. */
  public static final int DEFAULT_WORKERS = 2;

  private static final java.util.regex.Pattern NAMESPACE_NAME =
      java.util.regex.Pattern.compile("(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private static final java.util.regex.Pattern SHARD_GROUP_NAME =
      java.util.regex.Pattern.compile("(?=.{1,40}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private final String agentImage;
  private final String agentImagePullPolicy;
  private final String agentNamespace;
  private final int agentReplicas;
  private final String leaseName;
  private final String leaseNamespace;
  private final String identity;
  private final Duration leaseDuration;
  private final Duration renewDeadline;
  private final Duration retryPeriod;
  private final int workers;
  private final String serviceCidr;
  private final boolean poolRenumbering;
  private final boolean keepAddressesWhilePaused;
  private final boolean poolBeforeNetwork;
  private final boolean leaderElection;
  private final boolean agents;
  private final boolean dhcp;
  private final boolean agentLeaderElection;
  private final AgentPlacement agentPlacement;
  private final String upstreamAgentNamespace;
  private final Duration upstreamRecheck;
  private final Consumer<String> events;
  private final Clock clock;
  private final int shards;
  private final ReconcileObserver reconcileObserver;

  private ControllerConfig(Builder b) {
    this.agentImage = b.agentImage;
    this.agentImagePullPolicy = b.agentImagePullPolicy;
    this.agentNamespace = b.agentNamespace;
    this.agentReplicas = b.agentReplicas;
    this.leaseName = b.leaseName;
    this.leaseNamespace = b.leaseNamespace;
    this.identity = b.identity;
    this.leaseDuration = b.leaseDuration;
    this.renewDeadline = b.renewDeadline;
    this.retryPeriod = b.retryPeriod;
    this.workers = b.workers;
    this.serviceCidr = b.serviceCidr;
    this.poolRenumbering = b.poolRenumbering;
    this.keepAddressesWhilePaused = b.keepAddressesWhilePaused;
    this.poolBeforeNetwork = b.poolBeforeNetwork;
    this.leaderElection = b.leaderElection;
    this.agents = b.agents;
    this.dhcp = b.dhcp;
    this.agentLeaderElection = b.agentLeaderElection;
    this.agentPlacement = b.agentPlacement;
    this.upstreamAgentNamespace = b.upstreamAgentNamespace;
    this.upstreamRecheck = b.upstreamRecheck;
    this.events = b.events;
    this.clock = b.clock;
    this.shards = b.shards;
    this.reconcileObserver = b.reconcileObserver;
  }

  /** A builder with every default set. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** The image of every pool's agent container. */
  public String agentImage() {
    return agentImage;
  }

  /** The agent container's imagePullPolicy: Always, IfNotPresent or Never. */
  public String agentImagePullPolicy() {
    return agentImagePullPolicy;
  }

  /**
   * Namespace of the agent Deployments, their ServiceAccount and their Leases; empty means the
   * controller's own: the lease namespace, else POD_NAMESPACE.
   */
  public Optional<String> agentNamespace() {
    return Optional.ofNullable(agentNamespace);
  }

  /** {@link #agentNamespace()}, else the lease namespace, else POD_NAMESPACE; null if none. */
  String resolvedAgentNamespace() {
    if (agentNamespace != null) {
      return agentNamespace;
    }
    if (leaseNamespace != null) {
      return leaseNamespace;
    }
    return dev.elector.kube.PodEnvironment.system().namespace().orElse(null);
  }

  /** Replicas of each agent Deployment while its pool is not paused. */
  public int agentReplicas() {
    return agentReplicas;
  }

  /** Node selector, tolerations, resources and spreading of the agent pods. */
  AgentPlacement agentPlacement() {
    return agentPlacement;
  }

  /**
   * Where upstream's agent pods run ({@code <ns>-<pool>-agent}), to be deleted once this
   * controller's agent of the pool is ready; null: none are deleted.
   */
  String upstreamAgentNamespace() {
    return upstreamAgentNamespace;
  }

  /**
   * How often a leader looks for upstream's leftover webhook configurations while upstream still
   * runs ({@link UpstreamLeftovers}).
   */
  Duration upstreamRecheck() {
    return upstreamRecheck;
  }

  /** Name of the controller's Lease. */
  public String leaseName() {
    return leaseName;
  }

  /** Namespace of the Lease; empty means POD_NAMESPACE (see {@code PodEnvironment}). */
  public Optional<String> leaseNamespace() {
    return Optional.ofNullable(leaseNamespace);
  }

  /** This replica's identity; empty means POD_NAME or the host name plus a random suffix. */
  public Optional<String> identity() {
    return Optional.ofNullable(identity);
  }

  /** How long a Lease is valid without renewal. */
  public Duration leaseDuration() {
    return leaseDuration;
  }

  /** How long a leader keeps trying to renew before it steps down. */
  public Duration renewDeadline() {
    return renewDeadline;
  }

  /** The elector's renew and retry period. */
  public Duration retryPeriod() {
    return retryPeriod;
  }

  /** Reconciler threads per resource kind (IPPools, VirtualMachineNetworkConfigs). */
  public int workers() {
    return workers;
  }

  /**
   * The cluster's service CIDR, which no IPPool's CIDR may overlap; empty when the check is off.
   */
  public Optional<String> serviceCidr() {
    return serviceCidr.isEmpty() ? Optional.empty() : Optional.of(serviceCidr);
  }

  /** The parsed service CIDR, or null when the check is off. */
  Cidr serviceSubnet() {
    return serviceCidr.isEmpty() ? null : Cidr.parse(serviceCidr).orElseThrow();
  }

  /**
   * Whether the webhook lets a stored pool's cidr, serverIP, router, range and exclusions change
   * (false: they are immutable, as in upstream's API).
   */
  public boolean poolRenumbering() {
    return poolRenumbering;
  }

  /**
   * Whether a paused VirtualMachineNetworkConfig keeps its addresses (false: they are released, as
   * upstream does).
   */
  public boolean keepAddressesWhilePaused() {
    return keepAddressesWhilePaused;
  }

  /**
   * Whether the webhook admits a pool whose NetworkAttachmentDefinition does not exist yet (false:
   * refused, as upstream's webhook does).
   */
  public boolean poolBeforeNetwork() {
    return poolBeforeNetwork;
  }

  /** Whether replicas elect a leader through the Lease (false: this process always leads). */
  public boolean leaderElection() {
    return leaderElection;
  }

  /** Whether pools get agent Deployments (false: the controller allocates, nothing serves). */
  public boolean agents() {
    return agents;
  }

  /** Whether the agents run their DHCP server (false: they elect and sync only). */
  public boolean dhcp() {
    return dhcp;
  }

  /** Whether a pool's agent replicas elect one server (false: the agents' --no-leader-election). */
  public boolean agentLeaderElection() {
    return agentLeaderElection;
  }

  /** Receives the {@code EVENT ...} lines; default standard output. */
  public Consumer<String> events() {
    return events;
  }

  /** Wall clock for status timestamps and event lines. */
  public Clock clock() {
    return clock;
  }

  /**
   * How many shards the pools are spread over (active-active); 0: one leader reconciles every pool
   * through the Lease {@link #leaseName()}.
   */
  public int shards() {
    return shards;
  }

  /** Told of every reconcile; for tests. */
  ReconcileObserver reconcileObserver() {
    return reconcileObserver;
  }

  /** Builds a {@link ControllerConfig}. Setters reject null at once. */
  public static final class Builder {
    private String agentImage = DEFAULT_AGENT_IMAGE;
    private String agentImagePullPolicy = AgentDeployment.DEFAULT_PULL_POLICY;
    private String agentNamespace;
    private int agentReplicas = DEFAULT_AGENT_REPLICAS;
    private String leaseName = DEFAULT_LEASE_NAME;
    private String leaseNamespace;
    private String identity;
    private Duration leaseDuration = Duration.ofSeconds(15);
    private Duration renewDeadline = Duration.ofSeconds(10);
    private Duration retryPeriod = Duration.ofSeconds(2);
    private int workers = DEFAULT_WORKERS;
    private String serviceCidr = PoolValidation.DEFAULT_SERVICE_CIDR;
    private boolean poolRenumbering;
    private boolean keepAddressesWhilePaused;
    private boolean poolBeforeNetwork;
    private boolean leaderElection = true;
    private boolean agents = true;
    private boolean dhcp = true;
    private boolean agentLeaderElection = true;
    private AgentPlacement agentPlacement = AgentPlacement.DEFAULT;
    private String upstreamAgentNamespace;
    private Duration upstreamRecheck = Duration.ofSeconds(30);
    private Consumer<String> events = System.out::println;
    private Clock clock = Clock.systemUTC();
    private int shards;
    private ReconcileObserver reconcileObserver = ReconcileObserver.NONE;

    private Builder() {}

    /** Agent image; default {@value #DEFAULT_AGENT_IMAGE}. */
    public Builder agentImage(String agentImage) {
      this.agentImage = Objects.requireNonNull(agentImage, "agentImage");
      return this;
    }

    /** The agent's imagePullPolicy (Always, IfNotPresent or Never); default IfNotPresent. */
    public Builder agentImagePullPolicy(String agentImagePullPolicy) {
      this.agentImagePullPolicy =
          Objects.requireNonNull(agentImagePullPolicy, "agentImagePullPolicy");
      return this;
    }

    /**
     * Namespace the agents run in; default the controller's own (the lease namespace, else
     * POD_NAMESPACE). It needs Pod Security level privileged: the agents add NET_ADMIN.
     */
    public Builder agentNamespace(String agentNamespace) {
      this.agentNamespace = Objects.requireNonNull(agentNamespace, "agentNamespace");
      return this;
    }

    /** Agent replicas, 1 to 100; default {@value #DEFAULT_AGENT_REPLICAS}. */
    public Builder agentReplicas(int agentReplicas) {
      this.agentReplicas = agentReplicas;
      return this;
    }

    /** Agent pod placement; default {@link AgentPlacement#DEFAULT}. */
    Builder agentPlacement(AgentPlacement agentPlacement) {
      this.agentPlacement = Objects.requireNonNull(agentPlacement, "agentPlacement");
      return this;
    }

    /**
     * Namespace of upstream's agent pods to take over from (Harvester's: harvester-system); default
     * none. The leader deletes upstream's agent pod of a pool once this controller's agent of the
     * pool has a ready replica, and, once upstream's webhook Service there is gone, the webhook
     * configurations and certificate Secrets upstream's webhook server left ({@code
     * harvester-vm-dhcp-controller-webhook}).
     */
    public Builder upstreamAgentNamespace(String namespace) {
      this.upstreamAgentNamespace = Objects.requireNonNull(namespace, "upstreamAgentNamespace");
      return this;
    }

    /**
     * How often the leader looks again for upstream's leftover webhook configurations while
     * upstream's webhook Service still exists; default 30 s.
     */
    Builder upstreamRecheck(Duration every) {
      if (every.isNegative() || every.isZero()) {
        throw new IllegalArgumentException("upstreamRecheck must be positive, was " + every);
      }
      this.upstreamRecheck = every;
      return this;
    }

    /** Lease name; default {@value #DEFAULT_LEASE_NAME}. */
    public Builder leaseName(String leaseName) {
      this.leaseName = Objects.requireNonNull(leaseName, "leaseName");
      return this;
    }

    /** Lease namespace; default the pod's own (POD_NAMESPACE). */
    public Builder leaseNamespace(String leaseNamespace) {
      this.leaseNamespace = Objects.requireNonNull(leaseNamespace, "leaseNamespace");
      return this;
    }

    /** Identity; default POD_NAME (or host name) plus a per-process suffix. */
    public Builder identity(String identity) {
      this.identity = Objects.requireNonNull(identity, "identity");
      return this;
    }

    /** Lease duration; default 15 s. */
    public Builder leaseDuration(Duration leaseDuration) {
      this.leaseDuration = Objects.requireNonNull(leaseDuration, "leaseDuration");
      return this;
    }

    /** Renew deadline; default 10 s; must be shorter than the lease duration. */
    public Builder renewDeadline(Duration renewDeadline) {
      this.renewDeadline = Objects.requireNonNull(renewDeadline, "renewDeadline");
      return this;
    }

    /** Retry period; default 2 s; 1.2 times it must be shorter than the renew deadline. */
    public Builder retryPeriod(Duration retryPeriod) {
      this.retryPeriod = Objects.requireNonNull(retryPeriod, "retryPeriod");
      return this;
    }

    /** Reconciler workers per kind, 1 to 64; default {@value #DEFAULT_WORKERS}. */
    public Builder workers(int workers) {
      this.workers = workers;
      return this;
    }

    /**
     * The cluster's service CIDR, which no IPPool may overlap; default {@code 10.53.0.0/16} (the
     * upstream webhook's default, Harvester's service CIDR); empty turns the check off.
     */
    public Builder serviceCidr(String serviceCidr) {
      this.serviceCidr = Objects.requireNonNull(serviceCidr, "serviceCidr").trim();
      return this;
    }

    /**
     * Whether the webhook lets a stored pool's cidr, serverIP, router, range and exclusions change;
     * default false: they are immutable, as upstream's CRD makes them. True: a pool is renumbered
     * in place (its agents re-rendered, MACs outside the new range given new addresses).
     */
    public Builder poolRenumbering(boolean poolRenumbering) {
      this.poolRenumbering = poolRenumbering;
      return this;
    }

    /**
     * Whether a paused VirtualMachineNetworkConfig keeps its addresses; default false: they are
     * released when it is paused and allocated again when it is resumed, as upstream does. True: a
     * paused VM finds its address when it resumes.
     */
    public Builder keepAddressesWhilePaused(boolean keepAddressesWhilePaused) {
      this.keepAddressesWhilePaused = keepAddressesWhilePaused;
      return this;
    }

    /**
     * Whether the webhook admits a pool whose NetworkAttachmentDefinition does not exist yet;
     * default false: refused at create, as upstream's webhook does. True: a network and its pool
     * may be applied in any order; the pool's NetworkReady condition waits for the network.
     */
    public Builder poolBeforeNetwork(boolean poolBeforeNetwork) {
      this.poolBeforeNetwork = poolBeforeNetwork;
      return this;
    }

    /**
     * Whether to elect through the Lease; default true. False (upstream's --no-leader-election)
     * makes this process lead at once, on a lock in memory: run one replica only.
     */
    public Builder leaderElection(boolean leaderElection) {
      this.leaderElection = leaderElection;
      return this;
    }

    /** Whether pools get agent Deployments; default true (false: upstream's --no-agent). */
    public Builder agents(boolean agents) {
      this.agents = agents;
      return this;
    }

    /** Whether agents run their DHCP server; default true (false: upstream's --no-dhcp). */
    public Builder dhcp(boolean dhcp) {
      this.dhcp = dhcp;
      return this;
    }

    /**
     * Whether a pool's agent replicas elect one server through their Lease; default true. False
     * renders the agents with {@code --no-leader-election}, so each serves at once: allowed with
     * one agent replica only, since two would both answer on the network.
     */
    public Builder agentLeaderElection(boolean agentLeaderElection) {
      this.agentLeaderElection = agentLeaderElection;
      return this;
    }

    /** Where EVENT lines go; default standard output. Called from many threads, one line each. */
    public Builder events(Consumer<String> events) {
      this.events = Objects.requireNonNull(events, "events");
      return this;
    }

    /** Wall clock; default UTC system clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Active-active over {@code shards} shard Leases {@code <leaseName>-shard-<i>} (and member
     * Leases {@code <leaseName>-member-<j>}) in the lease namespace, 1 to {@value #MAX_SHARDS}:
     * each pool belongs to one shard, and each replica reconciles the pools of the shards it leads.
     * Default 0: one leader, through the Lease {@code <leaseName>}. Every replica must be given the
     * same count.
     */
    public Builder shards(int shards) {
      this.shards = shards;
      return this;
    }

    /** Told of every reconcile; default none. */
    Builder reconcileObserver(ReconcileObserver reconcileObserver) {
      this.reconcileObserver = Objects.requireNonNull(reconcileObserver, "reconcileObserver");
      return this;
    }

    /**
     * Checks every setting.
     *
     * @throws IllegalArgumentException listing every problem
     */
    public ControllerConfig build() {
      List<String> problems = new ArrayList<>();
      if (agentImage.isBlank() || agentImage.chars().anyMatch(Character::isWhitespace)) {
        problems.add(
            "agentImage (--agent-image) '"
                + agentImage
                + "' is not an image reference;"
                + " give one like "
                + DEFAULT_AGENT_IMAGE);
      }
      if (!List.of("Always", "IfNotPresent", "Never").contains(agentImagePullPolicy)) {
        problems.add(
            "agentImagePullPolicy (--agent-image-pull-policy) '"
                + agentImagePullPolicy
                + "' is none of Always, IfNotPresent, Never; give one of them (IfNotPresent"
                + " unless the tag moves)");
      }
      if (agentNamespace != null && !NAMESPACE_NAME.matcher(agentNamespace).matches()) {
        problems.add(
            "agentNamespace (--agent-namespace) '"
                + agentNamespace
                + "' is not a namespace name (1 to 63 lowercase letters, digits or '-', starting"
                + " and ending with a letter or digit); give the namespace the agents run in");
      }
      if (agentReplicas < 1 || agentReplicas > 100) {
        problems.add(
            "agentReplicas (--agent-replicas) "
                + agentReplicas
                + " must be 1 to 100;"
                + " pause a pool (spec.paused) to run no agent");
      }
      if (!agentLeaderElection && agentReplicas > 1) {
        problems.add(
            "agentLeaderElection false (--agent-no-leader-election) needs agentReplicas"
                + " (--agent-replicas) 1, not "
                + agentReplicas
                + ": replicas that do not elect would all answer DHCP on the network; set"
                + " --agent-replicas 1 or drop --agent-no-leader-election");
      }
      if (leaseName.isBlank()) {
        problems.add("leaseName is blank; give the Lease name all replicas share");
      }
      if (identity != null && identity.isBlank()) {
        problems.add(
            "identity (--identity) is blank; leave it out for the default or give a"
                + " unique name");
      }
      positive(problems, "leaseDuration (--lease-duration)", leaseDuration);
      positive(problems, "renewDeadline (--renew-deadline)", renewDeadline);
      positive(problems, "retryPeriod (--retry-period)", retryPeriod);
      if (renewDeadline.compareTo(leaseDuration) >= 0) {
        problems.add(
            "renewDeadline (--renew-deadline) "
                + renewDeadline
                + " must be shorter than"
                + " leaseDuration (--lease-duration) "
                + leaseDuration
                + "; raise the lease duration"
                + " or lower the renew deadline");
      }
      if (retryPeriod.multipliedBy(12).dividedBy(10).compareTo(renewDeadline) >= 0) {
        problems.add(
            "renewDeadline (--renew-deadline) "
                + renewDeadline
                + " must be longer than"
                + " 1.2 x retryPeriod (--retry-period) "
                + retryPeriod
                + "; lower the retry period or"
                + " raise the renew deadline");
      }
      if (!serviceCidr.isEmpty() && Cidr.parse(serviceCidr).isEmpty()) {
        problems.add(
            "serviceCidr (--service-cidr) '"
                + serviceCidr
                + "' is not an IPv4 CIDR; give the cluster's service CIDR like 10.96.0.0/12, or ''"
                + " to turn the overlap check off");
      }
      if (workers < 1 || workers > 64) {
        problems.add("workers (--workers) " + workers + " must be 1 to 64");
      }
      if (shards < 0 || shards > MAX_SHARDS) {
        problems.add(
            "shards (--shards) "
                + shards
                + " must be 0 (one leader) to "
                + MAX_SHARDS
                + "; a few per replica is plenty, for example 6 for 2 or 3 replicas");
      }
      if (shards > 0 && !leaderElection) {
        problems.add(
            "shards (--shards) "
                + shards
                + " needs leader election; drop --no-leader-election or --shards");
      }
      if (shards > 0 && !SHARD_GROUP_NAME.matcher(leaseName).matches()) {
        problems.add(
            "leaseName (--lease-name) '"
                + leaseName
                + "' cannot name a shard group: with --shards it must be 1 to 40 lowercase letters,"
                + " digits or '-', starting and ending with a letter or digit (the shard Leases are"
                + " '<lease-name>-shard-<i>')");
      }
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException(String.join("; ", problems));
      }
      return new ControllerConfig(this);
    }

    private static void positive(List<String> problems, String name, Duration value) {
      if (value.isZero() || value.isNegative()) {
        problems.add(name + " " + value + " must be positive, for example 15s");
      }
    }
  }
}
