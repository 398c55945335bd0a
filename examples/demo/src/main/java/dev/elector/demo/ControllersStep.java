package dev.elector.demo;

import static dev.elector.demo.Demo.CONTROLLER_NAMESPACE;
import static dev.elector.demo.Demo.CONTROLLER_SA;
import static dev.elector.demo.Demo.POOL;

import dev.elector.controller.ControllerMain;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.NetworkApis;
import dev.elector.ippool.Pool;
import dev.elector.testenv.net.TcpBalancer;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.options.CreateOptions;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The IPPool controller: two replicas as local processes under the shipped ServiceAccount, their
 * events on the timeline, and what an operator reads of them (/metrics, Kubernetes Events).
 */
final class ControllersStep implements AutoCloseable {
  private static final String WEBHOOK_SECRET = "vm-dhcp-webhook-tls";

  private final DemoRun run;
  private final List<Process> processes = new ArrayList<>();
  private final List<ProcessLog> logs = new ArrayList<>();

  /** Each replica's health address, from its health event. */
  private final Map<String, String> health = new ConcurrentHashMap<>();

  /**
   * In front of the replicas' admission webhooks on the local control plane, standing in for the
   * Service: the API server calls it, and it forwards each connection to a replica that accepts.
   */
  private TcpBalancer webhookFront;

  ControllersStep(DemoRun run) {
    this.run = run;
  }

  List<ProcessLog> logs() {
    return logs;
  }

  /** Starts two replicas and returns once one of them leads. */
  void start() throws Exception {
    AuthenticationV1TokenRequest token =
        new CoreV1Api(run.cluster.admin())
            .createNamespacedServiceAccountToken(
                CONTROLLER_SA,
                CONTROLLER_NAMESPACE,
                new AuthenticationV1TokenRequest()
                    .spec(new V1TokenRequestSpec().expirationSeconds(3600L)))
            .execute();
    Path kubeconfig = run.work.resolve("controller.kubeconfig");
    Files.writeString(kubeconfig, run.cluster.kubeconfigYaml(token.getStatus().getToken()));
    List<Integer> webhookPorts = startWebhookFront();
    for (int i = 0; i < 2; i++) {
      String name = "ippool-controller-" + i;
      List<String> command =
          new ArrayList<>(
              List.of(
                  "env",
                  "POD_NAMESPACE=" + CONTROLLER_NAMESPACE,
                  "POD_NAME=" + name,
                  Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx256m",
                  "-XX:+UseSerialGC",
                  "-XX:TieredStopAtLevel=1",
                  "-cp",
                  System.getProperty("java.class.path"),
                  ControllerMain.class.getName(),
                  "--kubeconfig",
                  kubeconfig.toString(),
                  "--health-addr",
                  "127.0.0.1:0",
                  "--identity",
                  name));
      command.addAll(run.options.timings());
      if (webhookFront != null) {
        command.addAll(
            List.of(
                "--webhook-addr",
                "127.0.0.1:" + webhookPorts.get(i),
                "--webhook-url",
                "https://127.0.0.1:" + webhookFront.address().getPort(),
                "--webhook-secret",
                WEBHOOK_SECRET,
                "--register-webhooks"));
      }
      Path log = run.work.resolve(name + ".log");
      processes.add(
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start());
      logs.add(new ProcessLog(name, log, this::onEvent));
    }
    run.progress.step(
        "started 2 controller replicas as ServiceAccount "
            + CONTROLLER_NAMESPACE
            + "/"
            + CONTROLLER_SA
            + " (bound to the shipped ClusterRole)");
    Waits.until(
        "a controller leading (see the logs in " + run.work + ")",
        Duration.ofSeconds(60),
        () ->
            logs.stream()
                .flatMap(l -> l.events().stream())
                .filter(e -> e.kind().equals("leading"))
                .findFirst());
  }

  /**
   * On the local control plane (whose API server runs on this machine and can call 127.0.0.1):
   * applies deploy/webhook/webhooks.yaml as an operator would, and starts the front the replicas'
   * webhooks are registered behind. Returns each replica's webhook port; none elsewhere.
   */
  private List<Integer> startWebhookFront() throws Exception {
    if (run.options.kubeconfig().isPresent()) {
      run.progress.step(
          "the admission webhook is not run here: the API server of --kubeconfig cannot call this"
              + " machine (the chart deploys it behind a Service)");
      return List.of();
    }
    List<String> applied =
        Manifests.apply(
            run.cluster.admin(), run.options.manifests().resolve("webhook/webhooks.yaml"));
    List<Integer> ports = List.of(freePort(), freePort());
    webhookFront =
        TcpBalancer.start(
            "webhook", ports.stream().map(p -> new InetSocketAddress("127.0.0.1", p)).toList());
    run.progress.step(
        "applied deploy/webhook/webhooks.yaml ("
            + String.join(", ", applied)
            + ", failurePolicy Fail); the replicas serve it behind https://127.0.0.1:"
            + webhookFront.address().getPort()
            + " with a certificate shared through Secret "
            + CONTROLLER_NAMESPACE
            + "/"
            + WEBHOOK_SECRET
            + ", and keep its caBundle");
    return ports;
  }

  private static int freePort() throws java.io.IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /**
   * Shows the admission webhook refusing a bad pool: its serverIP is the router's address, which
   * would put the gateway's address on the leading agent's NIC. Waits (with server-side dry runs,
   * which store nothing) until the API server calls the webhook, then creates the pool for real.
   */
  void webhookRefusesABadPool() throws Exception {
    if (webhookFront == null) {
      return;
    }
    Waits.until(
        "the API server calling the admission webhook",
        Duration.ofSeconds(60),
        () -> refusal(badPool(), "All"));
    String message = refusal(badPool(), null).orElse("");
    run.progress.step(
        "the admission webhook refused IPPool "
            + run.namespace
            + "/bad-pool (serverIP = router): "
            + (message.isEmpty() ? "it was stored" : message));
    run.summary.check(
        "the admission webhook refuses a pool whose serverIP is the router's address, naming"
            + " the field",
        message.contains("serverIP") && message.contains("router"));
    // upstream's rule: a new pool needs its network, here before Multus' CRD is even installed
    // (a dry run: nothing is stored either way)
    IPPool unattached = badPool();
    unattached
        .getSpec()
        .networkName(run.namespace + "/no-such-network")
        .getIpv4Config()
        .serverIP("192.168.49.2");
    String noNetwork = refusal(unattached, "All").orElse("");
    run.progress.step(
        "the admission webhook refused a pool on network "
            + run.namespace
            + "/no-such-network: "
            + (noNetwork.isEmpty() ? "it was admitted" : noNetwork));
    run.summary.check(
        "the admission webhook refuses a pool whose NetworkAttachmentDefinition does not exist",
        noNetwork.contains(run.namespace + "/no-such-network"));
  }

  private IPPool badPool() {
    return new IPPool()
        .metadata(new V1ObjectMeta().namespace(run.namespace).name("bad-pool"))
        .spec(
            new IPPoolSpec()
                .networkName(run.namespace + "/" + POOL)
                .ipv4Config(
                    new IPv4Config()
                        .cidr("192.168.49.0/24")
                        .serverIP("192.168.49.1")
                        .router("192.168.49.1")
                        .pool(new Pool().start("192.168.49.100").end("192.168.49.200"))));
  }

  /**
   * The API server's refusal of {@code pool} by the webhook, or empty if it was accepted (then, if
   * it was stored, it is deleted again) or refused by something else.
   */
  private Optional<String> refusal(IPPool pool, String dryRun) throws Exception {
    CreateOptions options = new CreateOptions();
    options.setDryRun(dryRun);
    KubernetesApiResponse<IPPool> response =
        NetworkApis.ipPools(run.cluster.admin()).create(pool, options);
    if (response.isSuccess()) {
      if (dryRun == null) {
        NetworkApis.ipPools(run.cluster.admin()).delete(run.namespace, "bad-pool");
      }
      return Optional.empty();
    }
    String message = response.getStatus() == null ? "" : response.getStatus().getMessage();
    return message != null && message.contains("admission webhook")
        ? Optional.of(message)
        : Optional.empty();
  }

  private void onEvent(EventLine e) {
    if (e.kind().equals("health")) {
      health.put(e.source(), e.get("addr"));
    }
    String text =
        switch (e.kind()) {
          case "leading" -> "LEADS the controllers (token " + e.get("token") + ")";
          case "stopped_leading" -> "stops leading (" + e.get("reason") + ")";
          case "deployment" -> e.get("action") + " agent Deployment " + e.get("deployment");
          case "allocated" -> "allocated " + e.get("ip") + " to " + e.get("mac");
          default -> null;
        };
    if (text != null) {
      run.progress.line(e.epochMillis(), e.source(), text);
    }
  }

  /**
   * What an operator would look at, read while everything still runs: the leading controller's
   * /metrics (client-go's leader gauge and the pool's use) and the Kubernetes Events on the Leases,
   * the IPPool and the VM config.
   */
  void observe() throws Exception {
    DemoSummary summary = run.summary;
    boolean gauge = false;
    for (Map.Entry<String, String> c : health.entrySet()) {
      String metrics =
          run.http
              .send(
                  HttpRequest.newBuilder(URI.create("http://" + c.getValue() + "/metrics"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
              .body();
      for (String line : metrics.lines().toList()) {
        if (line.startsWith("leader_election_master_status{") && line.endsWith(" 1.0")) {
          gauge = true;
          summary.whereToLook.add(
              "curl http://"
                  + c.getValue()
                  + "/metrics ("
                  + c.getKey()
                  + "): "
                  + line.replaceAll("(identity|lock)=\"[^\"]*\",?", ""));
          metrics
              .lines()
              .filter(l -> l.startsWith("vmdhcpcontroller_ippool_used{") && l.contains(POOL))
              .forEach(l -> summary.whereToLook.add("  " + l));
        }
      }
    }
    summary.check("the leading controller's /metrics has client-go's leader gauge at 1", gauge);
    CoreV1Api core = new CoreV1Api(run.cluster.admin());
    List<String> seen = new ArrayList<>();
    for (String ns : List.of(CONTROLLER_NAMESPACE, run.namespace)) {
      for (var event : core.listNamespacedEvent(ns).execute().getItems()) {
        if (event.getReportingComponent() != null
            && List.of("ippool-controller", "vm-dhcp-agent")
                .contains(event.getReportingComponent())) {
          seen.add(event.getReason());
          summary.whereToLook.add(
              "kubectl describe "
                  + event.getInvolvedObject().getKind().toLowerCase(Locale.ROOT)
                  + " -n "
                  + ns
                  + " "
                  + event.getInvolvedObject().getName()
                  + ": "
                  + event.getType()
                  + " "
                  + event.getReason()
                  + " "
                  + event.getMessage());
        }
      }
    }
    summary.check(
        "Kubernetes Events show who leads and the VM's allocation",
        seen.contains("LeaderElection") && seen.contains("Allocated"));
  }

  /**
   * Stops the replicas (SIGTERM). On a cluster of {@code --kubeconfig}, first deletes the demo's
   * objects, lets the controllers' finalizers remove the agent Deployment, then the namespace.
   */
  @Override
  public void close() {
    String namespace = run.namespace;
    if (run.options.kubeconfig().isPresent() && namespace != null) {
      try {
        NetworkApis.vmNetworkConfigs(run.cluster.admin()).delete(namespace, "vm-1");
        NetworkApis.ipPools(run.cluster.admin()).delete(namespace, POOL);
        try {
          Waits.until(
              "the controllers' finalizers releasing IPPool " + namespace + "/" + POOL,
              Duration.ofSeconds(20),
              () ->
                  NetworkApis.ipPools(run.cluster.admin()).get(namespace, POOL).isSuccess()
                      ? Optional.empty()
                      : Optional.of(true));
        } catch (java.io.IOException e) {
          run.progress.step(e.getMessage() + "; deleting the namespace anyway");
        }
        new CoreV1Api(run.cluster.admin()).deleteNamespace(namespace).execute();
      } catch (Exception e) {
        run.progress.step("could not clean up namespace " + namespace + ": " + e);
      }
    }
    if (webhookFront != null) {
      webhookFront.close();
    }
    processes.forEach(Process::destroy);
    for (Process p : processes) {
      try {
        if (!p.waitFor(15, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    logs.forEach(ProcessLog::close);
  }
}
