package dev.elector.demo;

import static dev.elector.demo.Demo.POOL;

import dev.elector.dhcp.codec.MacAddress;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The DHCP agents: the Deployment the controller renders, its pods run as local processes by the
 * {@link LocalKubelet}, and their events on the timeline.
 */
final class AgentsStep implements AutoCloseable {
  private final DemoRun run;
  private LocalKubelet kubelet;
  private V1Deployment deployment;

  AgentsStep(DemoRun run) {
    this.run = run;
  }

  LocalKubelet kubelet() {
    return kubelet;
  }

  /** Waits for the rendered Deployment, runs its pods, and returns once one of them serves. */
  LocalKubelet.Pod start() throws Exception {
    AppsV1Api apps = new AppsV1Api(run.cluster.admin());
    deployment =
        Waits.until(
            "the controller rendering the agent Deployment",
            Duration.ofSeconds(60),
            () ->
                apps
                    .listNamespacedDeployment(Demo.CONTROLLER_NAMESPACE)
                    .execute()
                    .getItems()
                    .stream()
                    // the agents run in the controller's namespace; the annotation names the pool
                    .filter(
                        d ->
                            d.getMetadata().getAnnotations() != null
                                && (run.namespace + "/" + Demo.POOL)
                                    .equals(
                                        d.getMetadata()
                                            .getAnnotations()
                                            .get("network.harvesterhci.io/ippool-ref")))
                    .filter(d -> d.getSpec().getReplicas() != null && d.getSpec().getReplicas() > 0)
                    .findFirst());
    run.progress.step(
        "the controller rendered Deployment "
            + Demo.CONTROLLER_NAMESPACE
            + "/"
            + deployment.getMetadata().getName()
            + " ("
            + deployment.getSpec().getReplicas()
            + " replicas); the demo runs its pods as local processes");
    kubelet =
        new LocalKubelet(run.cluster, run.lab, run.work, run.options.timings(), this::onEvent);
    // The agent ServiceAccount may appear just after the Deployment: its token is asked until then.
    List<LocalKubelet.Pod> started =
        Waits.until(
            "the agent ServiceAccount's token",
            Duration.ofSeconds(10),
            () -> {
              try {
                return Optional.of(kubelet.sync(deployment));
              } catch (ApiException e) {
                if (e.getCode() == 404) {
                  return Optional.empty();
                }
                throw e;
              }
            });
    for (LocalKubelet.Pod pod : started) {
      run.progress.step(
          "started agent pod "
              + pod.name()
              + pod.host().map(h -> " in network namespace " + h.namespace()).orElse(""));
    }
    return awaitServing(null);
  }

  /** Starts pods until the Deployment's replica count runs again; returns the new ones. */
  List<LocalKubelet.Pod> replaceLost() throws Exception {
    return kubelet.sync(deployment);
  }

  /** The first living pod other than {@code not} whose latest leadership event is serving. */
  LocalKubelet.Pod awaitServing(LocalKubelet.Pod not) throws Exception {
    return Waits.until(
        "an agent serving DHCP (see the logs in " + run.work + ")",
        Duration.ofSeconds(60),
        () ->
            kubelet.pods().stream()
                .filter(p -> p != not && p.alive() && servingNow(p))
                .findFirst());
  }

  private static boolean servingNow(LocalKubelet.Pod pod) {
    List<EventLine> events = pod.log().events();
    for (int i = events.size() - 1; i >= 0; i--) {
      if (events.get(i).kind().equals("serving")) {
        return true;
      }
      if (events.get(i).kind().equals("stopped")) {
        return false;
      }
    }
    return false;
  }

  /** The pod that sent the first {@code kind} reply to {@code mac} after {@code afterNanos}. */
  Optional<String> replier(MacAddress mac, String kind, long afterNanos) {
    for (LocalKubelet.Pod pod : kubelet.pods()) {
      for (EventLine e : pod.log().events()) {
        if (e.kind().equals("reply")
            && e.get("kind").equals(kind)
            && e.get("mac").equalsIgnoreCase(mac.toString())
            && e.monoNanos() > afterNanos) {
          return Optional.of(pod.name());
        }
      }
    }
    return Optional.empty();
  }

  /** Every pod started so far. */
  List<LocalKubelet.Pod> pods() {
    return kubelet == null ? new ArrayList<>() : kubelet.pods();
  }

  private void onEvent(EventLine e) {
    String text =
        switch (e.kind()) {
          case "synced" -> "lease cache synced (" + e.get("leases") + " leases)";
          case "leading" -> "LEADS the agents of " + POOL + " (token " + e.get("token") + ")";
          case "address-added" ->
              "put the server address " + e.get("address") + " on " + e.get("nic");
          case "serving" -> "serves DHCP as " + e.get("serverIp");
          case "reply" ->
              e.get("kind")
                  + " "
                  + e.get("ip")
                  + " to "
                  + e.get("mac")
                  + ("-".equals(e.get("state")) ? "" : " (" + e.get("state") + ")");
          case "stopped" -> "stops leading (" + e.get("reason") + ")";
          case "address-removed" ->
              "removed the server address " + e.get("address") + " from " + e.get("nic");
          default -> null;
        };
    if (text != null) {
      run.progress.line(e.epochMillis(), e.source(), text);
    }
  }

  /** Stops every pod (SIGTERM, so leaders step down and release). */
  @Override
  public void close() {
    if (kubelet != null) {
      kubelet.close();
    }
  }
}
