package dev.elector.demo;

import dev.elector.dhcp.agent.AgentMain;
import dev.elector.dhcp.lab.NetLab;
import dev.elector.testkit.kube.KubeCluster;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Stands in for the kubelet (and the Deployment controller) on a machine without one: runs the
 * replicas of an agent Deployment as local processes, from the Deployment as the IPPool controller
 * rendered it: its container args and env (Downward API fields resolved), a token of its
 * ServiceAccount from the TokenRequest API, and, when the machine allows network namespaces, a
 * namespace per pod whose interface (named as in the Multus annotation) sits on the pool's network
 * segment. Without namespaces, agents run in the machine's own network in {@code --dry-run} mode.
 */
final class LocalKubelet implements AutoCloseable {
  private static final Pattern INTERFACE = Pattern.compile("\"interface\"\\s*:\\s*\"([^\"]+)\"");

  /** A running replica. */
  record Pod(String name, Process process, ProcessLog log, Optional<NetLab.Host> host) {
    boolean alive() {
      return process.isAlive();
    }
  }

  private final KubeCluster cluster;
  private final Optional<NetLab> lab;
  private final Path work;
  private final List<String> extraArgs;
  private final Consumer<EventLine> listener;
  private final List<Pod> pods = new ArrayList<>();
  private int counter;

  LocalKubelet(KubeCluster cluster, Optional<NetLab> lab, Path work, List<String> extraArgs,
      Consumer<EventLine> listener) {
    this.cluster = cluster;
    this.lab = lab;
    this.work = work;
    this.extraArgs = List.copyOf(extraArgs);
    this.listener = listener;
  }

  /** Starts replicas until as many run as the Deployment asks for; returns the new ones. */
  synchronized List<Pod> sync(V1Deployment deployment) throws IOException, ApiException {
    int wanted = deployment.getSpec().getReplicas() == null ? 1
        : deployment.getSpec().getReplicas();
    List<Pod> started = new ArrayList<>();
    while (pods.stream().filter(Pod::alive).count() < wanted) {
      started.add(start(deployment));
    }
    return started;
  }

  /** Kills a pod as a crashed node would: SIGKILL, and its network namespace vanishes. */
  synchronized void crash(Pod pod) {
    if (pod.host().isPresent()) {
      pod.host().get().delete();
    } else {
      pod.process().destroyForcibly();
    }
    try {
      pod.process().waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  synchronized List<Pod> pods() {
    return List.copyOf(pods);
  }

  private Pod start(V1Deployment deployment) throws IOException, ApiException {
    String namespace = deployment.getMetadata().getNamespace();
    String name = deployment.getMetadata().getName() + "-" + (counter++);
    V1Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    String serviceAccount = deployment.getSpec().getTemplate().getSpec().getServiceAccountName();
    Path kubeconfig = work.resolve(name + ".kubeconfig");
    Files.writeString(kubeconfig, cluster.kubeconfigYaml(token(namespace, serviceAccount)));

    List<String> command = new ArrayList<>(List.of("env"));
    env(container, namespace, name).forEach((k, v) -> command.add(k + "=" + v));
    command.addAll(List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx200m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), AgentMain.class.getName()));
    command.addAll(container.getArgs() == null ? List.of() : container.getArgs());
    command.addAll(List.of("--kubeconfig", kubeconfig.toString(), "--expose-leases"));
    command.addAll(extraArgs);
    Path log = work.resolve(name + ".log");
    Process process;
    Optional<NetLab.Host> host = Optional.empty();
    if (lab.isPresent()) {
      NetLab.Host h = lab.get().addHost("a" + (counter - 1), interfaceName(deployment),
          Optional.empty());
      h.reachLoopback(URI.create(cluster.server()).getPort());
      command.addAll(List.of("--health-addr", "127.0.0.1:8080"));
      process = h.start(command, log);
      host = Optional.of(h);
    } else {
      command.addAll(List.of("--dry-run", "--health-addr", "127.0.0.1:0", "--dhcp-port",
          Integer.toString(freePort())));
      process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }
    Pod pod = new Pod(name, process, new ProcessLog(name, log, listener), host);
    pods.add(pod);
    return pod;
  }

  private String token(String namespace, String serviceAccount) throws ApiException {
    AuthenticationV1TokenRequest token = new CoreV1Api(cluster.admin())
        .createNamespacedServiceAccountToken(serviceAccount, namespace,
            new AuthenticationV1TokenRequest().spec(new V1TokenRequestSpec()
                .expirationSeconds(3600L))).execute();
    return token.getStatus().getToken();
  }

  private static Map<String, String> env(V1Container container, String namespace, String pod) {
    Map<String, String> env = new LinkedHashMap<>();
    for (V1EnvVar var : container.getEnv() == null ? List.<V1EnvVar>of() : container.getEnv()) {
      if (var.getValue() != null) {
        env.put(var.getName(), var.getValue());
      } else if (var.getValueFrom() != null && var.getValueFrom().getFieldRef() != null) {
        String field = var.getValueFrom().getFieldRef().getFieldPath();
        if (field.equals("metadata.namespace")) {
          env.put(var.getName(), namespace);
        } else if (field.equals("metadata.name")) {
          env.put(var.getName(), pod);
        }
      }
    }
    return env;
  }

  private static String interfaceName(V1Deployment deployment) {
    Map<String, String> annotations = deployment.getSpec().getTemplate().getMetadata()
        .getAnnotations();
    String networks = annotations == null ? null
        : annotations.get("k8s.v1.cni.cncf.io/networks");
    if (networks != null) {
      Matcher m = INTERFACE.matcher(networks);
      if (m.find()) {
        return m.group(1);
      }
    }
    return "net1";
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** Stops every pod (SIGTERM, so leaders step down and release) and its log. */
  @Override
  public synchronized void close() {
    for (Pod pod : pods) {
      pod.process().destroy();
    }
    for (Pod pod : pods) {
      try {
        if (!pod.process().waitFor(15, java.util.concurrent.TimeUnit.SECONDS)) {
          pod.process().destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      pod.log().close();
    }
  }
}
