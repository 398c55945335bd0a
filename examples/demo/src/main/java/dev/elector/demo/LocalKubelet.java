package dev.elector.demo;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
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

/**
 * Stands in for the kubelet (and the Deployment controller) on a machine without one: runs the
 * replicas of an agent Deployment as local processes, from the Deployment as the IPPool controller
 * rendered it: its container args and env (Downward API fields resolved), a token of its
 * ServiceAccount from the TokenRequest API, its downwardAPI volumes written to files (the pod's
 * annotations with the network status Multus would add), and, when the machine allows network
 * namespaces, a namespace per pod whose interface, named as Multus names it, sits on the pool's
 * network segment. Without namespaces, agents run in the machine's own network in {@code --dry-run}
 * mode.
 */
final class LocalKubelet implements AutoCloseable {
  private static final String NETWORKS = "k8s.v1.cni.cncf.io/networks";
  private static final String NETWORK_STATUS = "k8s.v1.cni.cncf.io/network-status";

  /** One network Multus attaches: its NetworkAttachmentDefinition and the interface name. */
  record Attachment(String network, String iface) {}

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

  LocalKubelet(
      KubeCluster cluster,
      Optional<NetLab> lab,
      Path work,
      List<String> extraArgs,
      Consumer<EventLine> listener) {
    this.cluster = cluster;
    this.lab = lab;
    this.work = work;
    this.extraArgs = List.copyOf(extraArgs);
    this.listener = listener;
  }

  /** Starts replicas until as many run as the Deployment asks for; returns the new ones. */
  synchronized List<Pod> sync(V1Deployment deployment) throws IOException, ApiException {
    int wanted =
        deployment.getSpec().getReplicas() == null ? 1 : deployment.getSpec().getReplicas();
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

    List<Attachment> attachments = attachments(deployment, namespace);
    Map<String, Path> mounts = downwardApi(deployment, container, name, attachments);

    List<String> command = new ArrayList<>(List.of("env"));
    env(container, namespace, name).forEach((k, v) -> command.add(k + "=" + v));
    command.addAll(
        List.of(
            Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx200m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("java.class.path"),
            AgentMain.class.getName()));
    for (String arg : container.getArgs() == null ? List.<String>of() : container.getArgs()) {
      command.add(mapped(arg, mounts));
    }
    command.addAll(List.of("--kubeconfig", kubeconfig.toString(), "--expose-leases"));
    command.addAll(extraArgs);
    Path log = work.resolve(name + ".log");
    Process process;
    Optional<NetLab.Host> host = Optional.empty();
    if (lab.isPresent()) {
      String iface = attachments.isEmpty() ? "net1" : attachments.get(0).iface();
      NetLab.Host h = lab.get().addHost("a" + (counter - 1), iface, Optional.empty());
      h.reachLoopback(URI.create(cluster.server()).getPort());
      command.addAll(List.of("--health-addr", "127.0.0.1:8080"));
      process = h.start(command, log);
      host = Optional.of(h);
    } else {
      command.addAll(
          List.of(
              "--dry-run",
              "--health-addr",
              "127.0.0.1:0",
              "--dhcp-port",
              Integer.toString(freePort())));
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
    }
    Pod pod = new Pod(name, process, new ProcessLog(name, log, listener), host);
    pods.add(pod);
    return pod;
  }

  private String token(String namespace, String serviceAccount) throws ApiException {
    AuthenticationV1TokenRequest token =
        new CoreV1Api(cluster.admin())
            .createNamespacedServiceAccountToken(
                serviceAccount,
                namespace,
                new AuthenticationV1TokenRequest()
                    .spec(new V1TokenRequestSpec().expirationSeconds(3600L)))
            .execute();
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

  /**
   * The networks the pod template selects, in order, as Multus reads its networks annotation (a
   * JSON list of {@code {namespace, name, interface}}, or the short form {@code
   * ns/name@iface,...}); an interface without a name gets net1, net2, ... as Multus gives it.
   */
  static List<Attachment> attachments(V1Deployment deployment, String podNamespace) {
    Map<String, String> annotations =
        deployment.getSpec().getTemplate().getMetadata().getAnnotations();
    String networks = annotations == null ? null : annotations.get(NETWORKS);
    List<Attachment> found = new ArrayList<>();
    if (networks == null || networks.isBlank()) {
      return found;
    }
    if (networks.strip().startsWith("[")) {
      for (JsonElement e : JsonParser.parseString(networks).getAsJsonArray()) {
        JsonObject o = e.getAsJsonObject();
        String ns = o.has("namespace") ? o.get("namespace").getAsString() : podNamespace;
        String iface =
            o.has("interface") ? o.get("interface").getAsString() : "net" + (found.size() + 1);
        found.add(new Attachment(ns + "/" + o.get("name").getAsString(), iface));
      }
      return found;
    }
    for (String item : networks.split(",")) {
      String selection = item.strip();
      int at = selection.indexOf('@');
      String network = at < 0 ? selection : selection.substring(0, at);
      String iface = at < 0 ? "net" + (found.size() + 1) : selection.substring(at + 1);
      found.add(
          new Attachment(network.contains("/") ? network : podNamespace + "/" + network, iface));
    }
    return found;
  }

  /**
   * Writes the pod's downwardAPI volumes under its work folder, as the kubelet does: the
   * annotations (with the network status Multus would have added) and labels in the {@code
   * key="value"} form. Returns each mount path with the folder that stands in for it.
   */
  private Map<String, Path> downwardApi(
      V1Deployment deployment, V1Container container, String pod, List<Attachment> attachments)
      throws IOException {
    Map<String, Path> mounts = new LinkedHashMap<>();
    var spec = deployment.getSpec().getTemplate().getSpec();
    if (spec.getVolumes() == null || container.getVolumeMounts() == null) {
      return mounts;
    }
    var meta = deployment.getSpec().getTemplate().getMetadata();
    Map<String, String> annotations =
        new java.util.TreeMap<>(meta.getAnnotations() == null ? Map.of() : meta.getAnnotations());
    annotations.put(NETWORK_STATUS, networkStatus(attachments));
    Map<String, String> labels =
        new java.util.TreeMap<>(meta.getLabels() == null ? Map.of() : meta.getLabels());
    for (var volume : spec.getVolumes()) {
      if (volume.getDownwardAPI() == null || volume.getDownwardAPI().getItems() == null) {
        continue;
      }
      Path dir = work.resolve(pod).resolve(volume.getName());
      Files.createDirectories(dir);
      for (var item : volume.getDownwardAPI().getItems()) {
        String field = item.getFieldRef() == null ? "" : item.getFieldRef().getFieldPath();
        Map<String, String> values =
            field.equals("metadata.annotations")
                ? annotations
                : field.equals("metadata.labels") ? labels : null;
        if (values != null) {
          StringBuilder text = new StringBuilder();
          values.forEach((k, v) -> text.append(k).append('=').append(goQuote(v)).append('\n'));
          Files.writeString(dir.resolve(item.getPath()), text);
        }
      }
      for (var mount : container.getVolumeMounts()) {
        if (mount.getName().equals(volume.getName())) {
          mounts.put(mount.getMountPath(), dir);
        }
      }
    }
    return mounts;
  }

  /** Multus' network status: the cluster network on eth0, then each attachment. */
  private static String networkStatus(List<Attachment> attachments) {
    JsonArray status = new JsonArray();
    JsonObject cluster = new JsonObject();
    cluster.addProperty("name", "k8s-pod-network");
    cluster.addProperty("interface", "eth0");
    cluster.addProperty("default", true);
    status.add(cluster);
    for (Attachment a : attachments) {
      JsonObject entry = new JsonObject();
      entry.addProperty("name", a.network());
      entry.addProperty("interface", a.iface());
      status.add(entry);
    }
    return status.toString();
  }

  /** A value quoted as Go's %q does, the form of the kubelet's downwardAPI files. */
  static String goQuote(String value) {
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        case '\r' -> out.append("\\r");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            out.append(String.format("\\x%02x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  /** An argument with a mounted path replaced by the folder that stands in for it. */
  private static String mapped(String arg, Map<String, Path> mounts) {
    for (Map.Entry<String, Path> m : mounts.entrySet()) {
      String prefix = m.getKey().endsWith("/") ? m.getKey() : m.getKey() + "/";
      if (arg.startsWith(prefix)) {
        return m.getValue().resolve(arg.substring(prefix.length())).toString();
      }
    }
    return arg;
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
