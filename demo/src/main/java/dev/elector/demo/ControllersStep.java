package dev.elector.demo;

import static dev.elector.demo.Demo.CONTROLLER_NAMESPACE;
import static dev.elector.demo.Demo.CONTROLLER_SA;
import static dev.elector.demo.Demo.POOL;

import dev.elector.controller.ControllerMain;
import dev.elector.ippool.NetworkApis;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
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
  private final DemoRun run;
  private final List<Process> processes = new ArrayList<>();
  private final List<ProcessLog> logs = new ArrayList<>();

  /** Each replica's health address, from its health event. */
  private final Map<String, String> health = new ConcurrentHashMap<>();

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
