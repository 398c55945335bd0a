package dev.elector.controller;

import dev.elector.examples.CommandLines;
import dev.elector.examples.HostPort;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line of {@link ControllerMain}, read by picocli: {@code --flag value} or {@code
 * --flag=value}, {@code --help} and {@code --version}. Every problem is a {@link FlagException}
 * whose message names the flag, the value and the fix.
 */
@Command(
    name = "ippool-controller",
    mixinStandardHelpOptions = true,
    versionProvider = CommandLines.Version.class,
    sortOptions = false,
    sortSynopsis = false,
    usageHelpWidth = 100,
    description =
        "Allocates addresses from IPPools to VirtualMachineNetworkConfigs and runs a"
            + " DHCP agent Deployment per pool; one replica leads, through a Lease.",
    footer = {
      "",
      "Durations: 15s, 500ms, 2m, 1h, 1m30s or ISO-8601 like PT15S.",
      "Exit status: 2 for a bad flag or a missing environment (POD_NAMESPACE)."
    })
final class Flags {
  /** A bad command line. */
  static final class FlagException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    FlagException(String message) {
      super(message);
    }
  }

  @Option(
      names = "--kubeconfig",
      paramLabel = "PATH",
      description =
          "kubeconfig to use" + " (default: in-cluster, else $KUBECONFIG, else ~/.kube/config)")
  private Path kubeconfig;

  @Option(
      names = "--agent-image",
      paramLabel = "IMAGE",
      description = "agent image (default " + ControllerConfig.DEFAULT_AGENT_IMAGE + ")")
  private String agentImage;

  @Option(
      names = "--agent-image-pull-policy",
      paramLabel = "POLICY",
      description =
          "the agent container's imagePullPolicy: Always, IfNotPresent or Never"
              + " (default IfNotPresent)")
  private String agentImagePullPolicy;

  @Option(
      names = "--agent-namespace",
      paramLabel = "NS",
      description =
          "namespace the agents run in (default the controller's own, POD_NAMESPACE);"
              + " it needs Pod Security level privileged")
  private String agentNamespace;

  @Option(
      names = "--agent-replicas",
      paramLabel = "N",
      description =
          "agent replicas per pool,"
              + " 1-100 (default "
              + ControllerConfig.DEFAULT_AGENT_REPLICAS
              + ")")
  private Integer agentReplicas;

  @Option(
      names = "--agent-node-selector",
      paramLabel = "JSON",
      description = "the agent pods' nodeSelector, a JSON object (default none)")
  private String agentNodeSelector;

  @Option(
      names = "--agent-tolerations",
      paramLabel = "JSON",
      description = "the agent pods' tolerations, a JSON list (default none)")
  private String agentTolerations;

  @Option(
      names = "--agent-resources",
      paramLabel = "JSON",
      description = "the agent container's resources, a JSON object (default none)")
  private String agentResources;

  @Option(
      names = "--agent-spread",
      paramLabel = "required|preferred",
      description =
          "whether agents of one pool must run on different nodes (default required; preferred"
              + " where nodes on a network are fewer than --agent-replicas)")
  private String agentSpread;

  @Option(
      names = "--lease-duration",
      paramLabel = "D",
      description = "lease duration (default" + " 15s)")
  private Duration leaseDuration;

  @Option(
      names = "--renew-deadline",
      paramLabel = "D",
      description = "renew deadline (default" + " 10s)")
  private Duration renewDeadline;

  @Option(names = "--retry-period", paramLabel = "D", description = "retry period (default 2s)")
  private Duration retryPeriod;

  @Option(
      names = "--health-addr",
      paramLabel = "HOST:PORT",
      defaultValue = "0.0.0.0:8080",
      description = "/healthz, /readyz and /metrics (default ${DEFAULT-VALUE}; port 0 picks one)")
  private HostPort health;

  @Option(
      names = "--identity",
      paramLabel = "ID",
      description = "identity in the Lease" + " (default POD_NAME or host name + suffix)")
  private String identity;

  @Option(
      names = "--lease-name",
      paramLabel = "NAME",
      description =
          "Lease name (default "
              + ControllerConfig.DEFAULT_LEASE_NAME
              + "; namespace from POD_NAMESPACE)")
  private String leaseName;

  @Option(
      names = "--workers",
      paramLabel = "N",
      description =
          "reconciler threads per resource"
              + " kind, 1-64 (default "
              + ControllerConfig.DEFAULT_WORKERS
              + ")")
  private Integer workers;

  @Option(
      names = "--shards",
      paramLabel = "N",
      description =
          "run active-active: spread the pools over N shard Leases <lease-name>-shard-<i>, each"
              + " replica reconciling the pools of the shards it leads; the same N on every"
              + " replica, 1-"
              + ControllerConfig.MAX_SHARDS
              + " (default 0: one leader)")
  private Integer shards;

  @Option(
      names = "--kubecontext",
      paramLabel = "NAME",
      description = "the kubeconfig context to use (or KUBECONTEXT; default its current one)")
  private String kubecontext;

  @Option(
      names = "--no-leader-election",
      description = "lead at once, without a Lease (run one replica only)")
  private boolean noLeaderElection;

  @Option(names = "--no-agent", description = "render no agent Deployments")
  private boolean noAgent;

  @Option(
      names = "--no-dhcp",
      description = "render agents that run no DHCP server (they elect and sync only)")
  private boolean noDhcp;

  @Option(
      names = "--agent-no-leader-election",
      description =
          "render agents with --no-leader-election: each serves at once, without a Lease"
              + " (needs --agent-replicas 1)")
  private boolean agentNoLeaderElection;

  @Option(
      names = "--enable-cache-dump-api",
      description =
          "also serve /ipams and /caches on --health-addr: every pool's allocation table, by"
              + " network")
  private boolean cacheDumpApi;

  @Option(
      names = "--uninstall",
      description =
          "do not run the controller: once no controller leads (waiting at most"
              + " --uninstall-wait), remove what it made (its finalizers on IPPools and"
              + " VirtualMachineNetworkConfigs, the agent Deployments, the agents' ServiceAccount,"
              + " Roles, RoleBindings and Leases, the controller's Leases, the --webhook-secret"
              + " Secret), then exit 0; the chart's post-delete hook runs it")
  private boolean uninstall;

  @Option(
      names = "--uninstall-wait",
      paramLabel = "D",
      description =
          "with --uninstall, how long to wait for the controllers to stop leading (default 2m)")
  private Duration uninstallWait = Duration.ofMinutes(2);

  @Option(
      names = "--upstream-agent-namespace",
      paramLabel = "NS",
      description =
          "delete upstream's agent pod NS/<namespace>-<pool>-agent of a pool once this"
              + " controller's agent of it is ready, and upstream's leftover webhook"
              + " configurations once its webhook Service in NS is gone (needs delete on pods in"
              + " NS, and get and delete on those objects by name; default: none)")
  private String upstreamAgentNamespace;

  @Option(
      names = "--apply-crds",
      description =
          "create or update the IPPool and VirtualMachineNetworkConfig CRDs at start, from the"
              + " copies in this build (needs get and update on them by name, and create)")
  private boolean applyCrds;

  @Option(names = "--debug", description = "log at DEBUG (or VM_DHCP_CONTROLLER_DEBUG=true)")
  private boolean debug;

  @Option(names = "--trace", description = "log at TRACE (or VM_DHCP_CONTROLLER_TRACE=true)")
  private boolean trace;

  @Option(
      names = "--service-cidr",
      paramLabel = "CIDR",
      description =
          "the cluster's service CIDR, which no IPPool may overlap (default "
              + PoolValidation.DEFAULT_SERVICE_CIDR
              + ", upstream's; '' turns the check off)")
  private String serviceCidr;

  @Option(
      names = PoolImmutability.FLAG,
      description =
          "let the webhook accept a change of a stored pool's cidr, serverIP, router, range and"
              + " exclusions, and renumber the pool in place (default: immutable, as upstream's"
              + " CRD makes them)")
  private boolean allowPoolRenumbering;

  @Option(
      names = "--keep-addresses-while-paused",
      description =
          "a paused VirtualMachineNetworkConfig keeps its addresses (default: they are released,"
              + " as upstream does, and allocated again when it is resumed)")
  private boolean keepAddressesWhilePaused;

  @Option(
      names = "--allow-pool-before-network",
      description =
          "let the webhook admit an IPPool whose NetworkAttachmentDefinition does not exist yet"
              + " (default: refused, as upstream's webhook does)")
  private boolean allowPoolBeforeNetwork;

  @Option(
      names = "--webhook-addr",
      paramLabel = "HOST:PORT",
      description =
          "serve the admission webhooks over HTTPS here, for example 0.0.0.0:8443 (default: no"
              + " webhook)")
  private HostPort webhookAddr;

  @Option(
      names = "--webhook-cert-dir",
      paramLabel = "DIR",
      description =
          "serve tls.crt and tls.key of DIR (a mounted kubernetes.io/tls Secret); ca.crt is the"
              + " caBundle")
  private Path webhookCertDir;

  @Option(
      names = "--webhook-secret",
      paramLabel = "NAME",
      description =
          "share a generated certificate through this Secret of POD_NAMESPACE (made if absent,"
              + " renewed 30 days before it ends); without it or --webhook-cert-dir each replica"
              + " makes its own")
  private String webhookSecret;

  @Option(
      names = "--webhook-service",
      paramLabel = "NS/NAME[:PORT]",
      description =
          "the Service in front of the webhook (default POD_NAMESPACE/"
              + WebhookRegistration.DEFAULT_NAME
              + ":443); names the generated certificate and the registration")
  private String webhookService;

  @Option(
      names = "--webhook-url",
      paramLabel = "URL",
      description =
          "register https://HOST:PORT instead of the Service (a webhook outside the cluster)")
  private String webhookUrl;

  @Option(
      names = "--register-webhooks",
      description =
          "keep the caBundle of the Validating- and MutatingWebhookConfiguration "
              + WebhookRegistration.DEFAULT_NAME
              + " in step with the certificate (created where they are missing and RBAC allows)")
  private boolean registerWebhooks;

  private CommandLine cli;
  private CommandLines.Parsed parsed;
  private ControllerConfig.Builder config;

  private Flags() {}

  /**
   * Parses {@code args} onto a config builder (events and clock can still be set on it).
   *
   * @throws FlagException naming the flag and the fix
   */
  static Flags parse(String... args) {
    Flags flags = new Flags();
    flags.cli = CommandLines.create(flags);
    flags.parsed = CommandLines.parse(flags.cli, args);
    if (flags.parsed.helpOrVersion()) {
      return flags;
    }
    if (!flags.parsed.problems().isEmpty()) {
      throw new FlagException(String.join("\n", flags.parsed.problems()));
    }
    flags.config = flags.toConfig();
    return flags;
  }

  private ControllerConfig.Builder toConfig() {
    if (kubeconfig != null && !Files.isReadable(kubeconfig)) {
      throw new FlagException(
          "--kubeconfig "
              + kubeconfig
              + " cannot be read; give the path of"
              + " a kubeconfig file, or leave the flag out to use in-cluster config, $KUBECONFIG"
              + " or ~/.kube/config");
    }
    checkWebhookFlags();
    ControllerConfig.Builder builder = ControllerConfig.newBuilder();
    try {
      Optional.ofNullable(agentImage).ifPresent(builder::agentImage);
      Optional.ofNullable(agentImagePullPolicy).ifPresent(builder::agentImagePullPolicy);
      Optional.ofNullable(agentNamespace).ifPresent(builder::agentNamespace);
      Optional.ofNullable(agentReplicas).ifPresent(builder::agentReplicas);
      Optional.ofNullable(workers).ifPresent(builder::workers);
      Optional.ofNullable(leaseDuration).ifPresent(builder::leaseDuration);
      Optional.ofNullable(renewDeadline).ifPresent(builder::renewDeadline);
      Optional.ofNullable(retryPeriod).ifPresent(builder::retryPeriod);
      Optional.ofNullable(identity).ifPresent(builder::identity);
      Optional.ofNullable(leaseName).ifPresent(builder::leaseName);
      Optional.ofNullable(shards).ifPresent(builder::shards);
      Optional.ofNullable(serviceCidr).ifPresent(builder::serviceCidr);
      builder.poolRenumbering(allowPoolRenumbering);
      builder.keepAddressesWhilePaused(keepAddressesWhilePaused);
      builder.poolBeforeNetwork(allowPoolBeforeNetwork);
      builder.agentPlacement(
          new AgentPlacement(
              agentNodeSelector == null
                  ? java.util.Map.of()
                  : AgentPlacement.parseNodeSelector(agentNodeSelector),
              agentTolerations == null
                  ? java.util.List.of()
                  : AgentPlacement.parseTolerations(agentTolerations),
              agentResources == null ? null : AgentPlacement.parseResources(agentResources),
              agentSpread == null || AgentPlacement.parseSpread(agentSpread)));
      Optional.ofNullable(upstreamAgentNamespace).ifPresent(builder::upstreamAgentNamespace);
      builder
          .leaderElection(!noLeaderElection)
          .agents(!noAgent)
          .dhcp(!noDhcp)
          .agentLeaderElection(!agentNoLeaderElection);
      builder.build();
    } catch (IllegalArgumentException e) {
      // ControllerConfig's messages name the field and the flag: "agentReplicas (--agent-replicas)"
      throw new FlagException(e.getMessage());
    }
    return builder;
  }

  private void checkWebhookFlags() {
    boolean any =
        webhookCertDir != null
            || webhookSecret != null
            || webhookService != null
            || webhookUrl != null
            || registerWebhooks;
    if (any && webhookAddr == null && !uninstall) { // --uninstall deletes --webhook-secret only
      throw new FlagException(
          "the --webhook-* flags and --register-webhooks need --webhook-addr; add"
              + " --webhook-addr 0.0.0.0:8443");
    }
    if (webhookCertDir != null && webhookSecret != null) {
      throw new FlagException(
          "--webhook-cert-dir and --webhook-secret both name a certificate; give one");
    }
    if (webhookUrl != null && !webhookUrl.matches("https://[^/]+")) {
      throw new FlagException(
          "--webhook-url '"
              + webhookUrl
              + "' is not https://HOST:PORT without a path; write it like"
              + " https://10.0.0.5:8443");
    }
    if (webhookService != null && !webhookService.matches("[a-z0-9-]+/[a-z0-9-]+(:[0-9]{1,5})?")) {
      throw new FlagException(
          "--webhook-service '"
              + webhookService
              + "' is not NAMESPACE/NAME[:PORT]; write it like vm-dhcp-system/vm-dhcp-webhook:443");
    }
  }

  /**
   * Prints the usage or the version if {@code --help} or {@code --version} was given.
   *
   * @return whether it did; the caller then exits with status 0
   */
  boolean printHelpOrVersion(PrintStream out) {
    return CommandLines.printHelpOrVersion(cli, parsed, out);
  }

  /** The settings, as a builder (so a caller can add what flags do not set). */
  ControllerConfig.Builder config() {
    return config;
  }

  /** The --kubeconfig file, or null for client-java's standard resolution. */
  Path kubeconfig() {
    return kubeconfig;
  }

  HostPort health() {
    return health;
  }

  /** The kubeconfig context, or null for the file's current one (KUBECONTEXT is read too). */
  String kubecontext() {
    return kubecontext != null ? kubecontext : System.getenv("KUBECONTEXT");
  }

  /** Whether /ipams and /caches are served. */
  boolean applyCrds() {
    return applyCrds;
  }

  boolean cacheDumpApi() {
    return cacheDumpApi;
  }

  /** The log level: info, debug or trace (also from VM_DHCP_CONTROLLER_DEBUG/TRACE). */
  String logLevel() {
    if (trace || "true".equalsIgnoreCase(System.getenv("VM_DHCP_CONTROLLER_TRACE"))) {
      return "trace";
    }
    return debug || "true".equalsIgnoreCase(System.getenv("VM_DHCP_CONTROLLER_DEBUG"))
        ? "debug"
        : "info";
  }

  /** Where the webhook listens, or null when it is off. */
  HostPort webhookAddr() {
    return webhookAddr;
  }

  Path webhookCertDir() {
    return webhookCertDir;
  }

  String webhookSecret() {
    return webhookSecret;
  }

  boolean uninstall() {
    return uninstall;
  }

  Duration uninstallWait() {
    return uninstallWait;
  }

  String webhookService() {
    return webhookService;
  }

  String webhookUrl() {
    return webhookUrl;
  }

  boolean registerWebhooks() {
    return registerWebhooks;
  }
}
