package dev.elector.dhcp.agent;

import dev.elector.examples.CommandLines;
import dev.elector.kube.PodEnvironment;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the DHCP agent; see {@link AgentConfig} for the flags ({@code --help} lists them, {@code
 * --version} prints the version). Exits with status 2 and one message per problem on bad flags, an
 * unreadable kubeconfig or a missing namespace. SIGTERM stops leading gracefully: the server stops
 * answering, the address is removed, then the lock is released, so another replica takes over at
 * once.
 */
public final class AgentMain {
  private AgentMain() {}

  public static void main(String[] args) throws InterruptedException {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    if (AgentConfig.printHelpOrVersion(args, out)) {
      return;
    }
    DhcpAgent agent;
    try {
      AgentConfig parsed = AgentConfig.parse(args, System.getenv());
      // before the first logger is made: slf4j-simple reads its level once
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", parsed.logLevel());
      AgentConfig config = withInterface(parsed);
      agent = DhcpAgent.start(config, client(config), PodEnvironment.system(), out);
    } catch (IllegalArgumentException | IllegalStateException | IOException e) {
      // IllegalArgumentException: timings that break the elector's rules, each named
      System.err.println("dhcp-agent: " + e.getMessage());
      System.err.println("run with --help for the list of flags");
      System.exit(CommandLines.USAGE_ERROR);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  agent.close();
                  stopped.countDown();
                },
                "dhcp-agent-shutdown"));
    stopped.await();
  }

  /**
   * The configuration with its NIC: as given by {@code --nic}, else the interface Multus attached
   * for {@code --network}, waiting up to a minute for the pod's network status to appear.
   *
   * @throws IllegalStateException naming the network and what the pod's annotations hold instead
   */
  static AgentConfig withInterface(AgentConfig config) throws InterruptedException {
    if (config.nic().isPresent()
        || config.network().isEmpty()
        || config.dryRun()
        || config.noDhcp()) {
      return config;
    }
    String iface =
        PodNetworks.interfaceOf(
            config.podAnnotations(),
            config.network().get(),
            NETWORK_WAIT,
            System::nanoTime,
            d -> Thread.sleep(d.toMillis()));
    System.err.println(
        "dhcp-agent: serving network "
            + config.network().get()
            + " on "
            + iface
            + " (from the pod's network status)");
    return config.withNic(iface);
  }

  /** How long the agent waits for Multus' network status before it gives up. */
  static final java.time.Duration NETWORK_WAIT = java.time.Duration.ofSeconds(60);

  /**
   * The API client: from {@code --kubeconfig}, else in-cluster, else KUBECONFIG or ~/.kube/config.
   *
   * @throws IllegalArgumentException naming the file and what is wrong with it
   */
  static ApiClient client(AgentConfig config) throws IOException {
    if (config.kubeconfig().isEmpty() && config.kubecontext().isPresent()) {
      String env = System.getenv("KUBECONFIG");
      Path file =
          env != null && !env.isBlank()
              ? Path.of(env.split(java.io.File.pathSeparator)[0])
              : Path.of(System.getProperty("user.home"), ".kube", "config");
      return fromFile(file, config);
    }
    if (config.kubeconfig().isEmpty()) {
      try {
        return ClientBuilder.standard().build();
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException(
            "cannot configure a Kubernetes client from the"
                + " environment (in-cluster service account, KUBECONFIG or ~/.kube/config): "
                + e
                + "; pass --kubeconfig PATH",
            e);
      }
    }
    return fromFile(config.kubeconfig().get(), config);
  }

  private static ApiClient fromFile(Path file, AgentConfig config) throws IOException {
    if (!Files.isReadable(file)) {
      throw new IllegalArgumentException(
          "--kubeconfig "
              + file
              + " does not exist or cannot be"
              + " read; pass the path of a kubeconfig file");
    }
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      KubeConfig kubeconfig = KubeConfig.loadKubeConfig(reader);
      if (config.kubecontext().isPresent() && !kubeconfig.setContext(config.kubecontext().get())) {
        throw new IllegalArgumentException(
            "--kubecontext " + config.kubecontext().get() + " is not a context of the file");
      }
      if (kubeconfig.getServer() == null) {
        throw new IllegalArgumentException("no server in the current context");
      }
      kubeconfig.setFile(file.toFile());
      return ClientBuilder.kubeconfig(kubeconfig).build();
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "--kubeconfig "
              + file
              + " is not a usable kubeconfig ("
              + e.getMessage()
              + "); check that it is YAML with a current-context, a cluster server"
              + " and credentials",
          e);
    }
  }
}
