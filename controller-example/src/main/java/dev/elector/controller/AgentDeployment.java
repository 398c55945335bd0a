package dev.elector.controller;

import dev.elector.ippool.IPPool;
import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Affinity;
import io.kubernetes.client.openapi.models.V1Capabilities;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1DownwardAPIVolumeFile;
import io.kubernetes.client.openapi.models.V1DownwardAPIVolumeSource;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1EnvVarSource;
import io.kubernetes.client.openapi.models.V1HTTPGetAction;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1NodeAffinity;
import io.kubernetes.client.openapi.models.V1NodeSelector;
import io.kubernetes.client.openapi.models.V1NodeSelectorRequirement;
import io.kubernetes.client.openapi.models.V1NodeSelectorTerm;
import io.kubernetes.client.openapi.models.V1ObjectFieldSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1PodAffinityTerm;
import io.kubernetes.client.openapi.models.V1PodAntiAffinity;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1Probe;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1SecurityContext;
import io.kubernetes.client.openapi.models.V1Volume;
import io.kubernetes.client.openapi.models.V1VolumeMount;
import io.kubernetes.client.openapi.models.V1WeightedPodAffinityTerm;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Renders the agent Deployment of one pool, and tells whether a live Deployment differs from the
 * rendering in the fields the controller owns (so server defaulting never causes an update).
 */
final class AgentDeployment {
  /** The agents' ServiceAccount, in the agents' namespace. */
  static final String SERVICE_ACCOUNT = "vm-dhcp-agent";

  /** Name of the agent container. */
  static final String CONTAINER = "dhcp-agent";

  /** Where the agent reads its pod's annotations (Multus' network status among them). */
  static final String PODINFO_DIR = "/etc/podinfo";

  static final String PODINFO_VOLUME = "podinfo";

  /** The Multus annotation on the pod template. */
  static final String NETWORKS_ANNOTATION = "k8s.v1.cni.cncf.io/networks";

  static final String LABEL_NAME = "app.kubernetes.io/name";
  static final String LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
  static final String LABEL_POOL = "network.harvesterhci.io/ippool";
  static final String LABEL_POOL_NAMESPACE = "network.harvesterhci.io/ippool-namespace";

  /** The pool an agent Deployment serves, "namespace/name" (labels cannot hold the slash). */
  static final String POOL_ANNOTATION = "network.harvesterhci.io/ippool-ref";

  /** Upstream's default for the agent's imagePullPolicy. */
  static final String DEFAULT_PULL_POLICY = "IfNotPresent";

  static final String APP = "vm-dhcp-agent";
  static final String MANAGER = "ippool-controller";
  static final int HEALTH_PORT = 8080;
  static final String HOSTNAME_KEY = "kubernetes.io/hostname";

  /** Pod names add 17 characters ("-", a 10-character hash, "-", 5); hostnames allow 63. */
  private static final int MAX_NAME = 52;

  /** Object names such as a Lease's are DNS subdomains of at most 253 characters. */
  private static final int MAX_LEASE_NAME = 253;

  private AgentDeployment() {}

  /**
   * The Deployment's name, upstream's name of the agent: "NAMESPACE-POOL-agent", shortened with a
   * hash when long. All agents share one namespace, so the pool's namespace is part of the name.
   */
  static String name(String poolNamespace, String poolName) {
    return shorten(poolNamespace + "-" + poolName, "-agent", MAX_NAME);
  }

  /**
   * The name of the pool's agent Deployment in the pool's own namespace, where earlier versions ran
   * it: "POOL-dhcp-agent"; such a Deployment is deleted once the new one serves.
   */
  static String legacyName(String poolName) {
    return shorten(poolName, "-dhcp-agent", MAX_NAME);
  }

  /**
   * The agent's Lease: "dhcp-agent.NAMESPACE.POOL", cut to 253 characters without a trailing dot or
   * dash. That is the agent's own default, so an agent run without {@code --lock-name} (as in
   * deploy/dhcp-agent) uses the same Lease; the rendered agent is given it explicitly, and the
   * agents' Role grants exactly it ({@link AgentRole}).
   */
  static String lockName(String namespace, String poolName) {
    String name = "dhcp-agent." + namespace + "." + poolName;
    if (name.length() <= MAX_LEASE_NAME) {
      return name;
    }
    return name.substring(0, MAX_LEASE_NAME).replaceAll("[.-]+$", "");
  }

  /** The pool's label value (at most 63 characters). */
  static String poolLabel(String poolName) {
    return shorten(poolName, "", 63);
  }

  /**
   * The agent Deployment of {@code pool} (valid spec) in {@code agentNamespace}, placed by {@code
   * placement}; with a {@code clusterNetwork} (the NetworkAttachmentDefinition's {@value
   * AgentPlacement#CLUSTER_NETWORK_LABEL} label) its pods only run on nodes labelled {@code
   * network.harvesterhci.io/<clusterNetwork>=true}. It has no owner reference (an owner must be in
   * the same namespace); the pool's labels and {@value #POOL_ANNOTATION} name the pool instead.
   *
   * @param replicas the replicas to run (0 while the pool is paused)
   * @param noDhcp whether the agents run no DHCP server (the controller's and the agent's
   *     --no-dhcp)
   */
  static V1Deployment render(
      IPPool pool,
      String agentNamespace,
      String image,
      String pullPolicy,
      int replicas,
      boolean noDhcp,
      AgentPlacement placement,
      String clusterNetwork) {
    return render(
        pool, agentNamespace, image, pullPolicy, replicas, noDhcp, true, placement, clusterNetwork);
  }

  /**
   * As {@link #render(IPPool, String, String, String, int, boolean, AgentPlacement, String)}, with
   * {@code leaderElection} false rendering the agents' {@code --no-leader-election}.
   */
  static V1Deployment render(
      IPPool pool,
      String agentNamespace,
      String image,
      String pullPolicy,
      int replicas,
      boolean noDhcp,
      boolean leaderElection,
      AgentPlacement placement,
      String clusterNetwork) {
    String namespace = pool.getMetadata().getNamespace();
    String name = pool.getMetadata().getName();
    String ref = namespace + "/" + name;
    Map<String, String> selector = new LinkedHashMap<>();
    selector.put(LABEL_NAME, APP);
    selector.put(LABEL_POOL, poolLabel(name));
    selector.put(LABEL_POOL_NAMESPACE, namespace);
    Map<String, String> labels = new LinkedHashMap<>(selector);
    labels.put(LABEL_MANAGED_BY, MANAGER);
    String serverIP = pool.getSpec().getIpv4Config().getServerIP();
    String cidr = pool.getSpec().getIpv4Config().getCidr();
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "--ippool-ref",
                ref,
                "--network",
                pool.getSpec().getNetworkName(),
                "--pod-annotations",
                PODINFO_DIR + "/annotations",
                "--server-ip",
                serverIP,
                "--cidr",
                cidr,
                "--lock-name",
                lockName(namespace, name)));
    if (noDhcp) {
      args.add("--no-dhcp");
    }
    if (!leaderElection) {
      args.add("--no-leader-election");
    }
    V1Container agent =
        new V1Container()
            .name(CONTAINER)
            .image(image)
            .imagePullPolicy(pullPolicy)
            .args(args)
            .volumeMounts(
                List.of(
                    new V1VolumeMount().name(PODINFO_VOLUME).mountPath(PODINFO_DIR).readOnly(true)))
            .env(
                List.of(
                    new V1EnvVar().name("IPPOOL_REF").value(ref),
                    fieldRef("POD_NAMESPACE", "metadata.namespace"),
                    fieldRef("POD_NAME", "metadata.name"),
                    // with the image, what the leader writes to the pool's status.agentPodRef
                    fieldRef("POD_UID", "metadata.uid"),
                    new V1EnvVar().name("AGENT_IMAGE").value(image)))
            .ports(
                List.of(
                    new V1ContainerPort()
                        .name("health")
                        .containerPort(HEALTH_PORT)
                        .protocol("TCP")))
            .livenessProbe(probe("/healthz"))
            .readinessProbe(probe("/readyz"))
            .securityContext(
                new V1SecurityContext()
                    .capabilities(new V1Capabilities().add(List.of("NET_ADMIN"))))
            .resources(placement.resources());
    V1PodSpec podSpec =
        new V1PodSpec()
            .serviceAccountName(SERVICE_ACCOUNT)
            .affinity(affinity(selector, placement.spreadRequired(), clusterNetwork))
            .nodeSelector(placement.nodeSelector().isEmpty() ? null : placement.nodeSelector())
            .tolerations(placement.tolerations().isEmpty() ? null : placement.tolerations())
            .containers(List.of(agent))
            .volumes(
                List.of(
                    new V1Volume()
                        .name(PODINFO_VOLUME)
                        .downwardAPI(
                            new V1DownwardAPIVolumeSource()
                                .items(
                                    List.of(
                                        new V1DownwardAPIVolumeFile()
                                            .path("annotations")
                                            .fieldRef(
                                                new V1ObjectFieldSelector()
                                                    .fieldPath("metadata.annotations")))))));
    return new V1Deployment()
        .apiVersion("apps/v1")
        .kind("Deployment")
        .metadata(
            new V1ObjectMeta()
                .namespace(agentNamespace)
                .name(name(namespace, name))
                .labels(labels)
                .annotations(Map.of(POOL_ANNOTATION, ref)))
        .spec(
            new V1DeploymentSpec()
                .replicas(replicas)
                .selector(new V1LabelSelector().matchLabels(selector))
                .template(
                    new V1PodTemplateSpec()
                        .metadata(
                            new V1ObjectMeta()
                                .labels(labels)
                                .annotations(
                                    Map.of(
                                        NETWORKS_ANNOTATION,
                                        networksAnnotation(pool.getSpec().getNetworkName()))))
                        .spec(podSpec)));
  }

  /**
   * Agents of one pool on different nodes (required, or preferred when nodes are fewer than
   * replicas), and, with a cluster network, only on the nodes that carry it.
   */
  private static V1Affinity affinity(
      Map<String, String> selector, boolean spreadRequired, String clusterNetwork) {
    V1PodAffinityTerm apart =
        new V1PodAffinityTerm()
            .labelSelector(new V1LabelSelector().matchLabels(selector))
            .topologyKey(HOSTNAME_KEY);
    V1PodAntiAffinity antiAffinity =
        spreadRequired
            ? new V1PodAntiAffinity().requiredDuringSchedulingIgnoredDuringExecution(List.of(apart))
            : new V1PodAntiAffinity()
                .preferredDuringSchedulingIgnoredDuringExecution(
                    List.of(new V1WeightedPodAffinityTerm().weight(100).podAffinityTerm(apart)));
    V1Affinity affinity = new V1Affinity().podAntiAffinity(antiAffinity);
    if (clusterNetwork != null && !clusterNetwork.isBlank()) {
      affinity.nodeAffinity(
          new V1NodeAffinity()
              .requiredDuringSchedulingIgnoredDuringExecution(
                  new V1NodeSelector()
                      .nodeSelectorTerms(
                          List.of(
                              new V1NodeSelectorTerm()
                                  .matchExpressions(
                                      List.of(
                                          new V1NodeSelectorRequirement()
                                              .key(AgentPlacement.nodeLabel(clusterNetwork))
                                              .operator("In")
                                              .values(List.of("true"))))))));
    }
    return affinity;
  }

  /**
   * The cluster network {@code live} is pinned to (its node affinity), or null; kept while the
   * NetworkAttachmentDefinition cannot be read, so a passing lookup failure moves no agent.
   */
  static String clusterNetworkOf(V1Deployment live) {
    if (live == null
        || live.getSpec() == null
        || live.getSpec().getTemplate() == null
        || live.getSpec().getTemplate().getSpec() == null) {
      return null;
    }
    V1Affinity a = live.getSpec().getTemplate().getSpec().getAffinity();
    if (a == null
        || a.getNodeAffinity() == null
        || a.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
      return null;
    }
    for (V1NodeSelectorTerm term :
        a.getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms()) {
      if (term.getMatchExpressions() == null) {
        continue;
      }
      for (V1NodeSelectorRequirement r : term.getMatchExpressions()) {
        if (r.getKey().startsWith(AgentPlacement.NODE_LABEL_PREFIX)) {
          return r.getKey().substring(AgentPlacement.NODE_LABEL_PREFIX.length());
        }
      }
    }
    return null;
  }

  /** Whether {@code live} has at least one ready replica (its agent serves). */
  static boolean serving(V1Deployment live) {
    return live != null
        && live.getStatus() != null
        && live.getStatus().getReadyReplicas() != null
        && live.getStatus().getReadyReplicas() > 0;
  }

  /** Upstream's IPPool annotation: while present (any value), the agent keeps its image. */
  static final String HOLD_UPGRADE_ANNOTATION = "network.harvesterhci.io/hold-ippool-agent-upgrade";

  /**
   * The agent image for {@code pool}: {@code configured}, unless the pool carries {@value
   * #HOLD_UPGRADE_ANNOTATION} and an agent already runs, which then keeps its image (other changes,
   * such as replicas or a new spec, still apply).
   */
  static String imageFor(IPPool pool, V1Deployment live, String configured) {
    Map<String, String> annotations = pool.getMetadata().getAnnotations();
    if (annotations == null || !annotations.containsKey(HOLD_UPGRADE_ANNOTATION) || live == null) {
      return configured;
    }
    String running = owned(live).image();
    return running == null || running.isBlank() ? configured : running;
  }

  /**
   * The Multus selection of the NetworkAttachmentDefinition "nadNamespace/nadName". Multus names
   * the interface; the agent finds it in the pod's network status.
   */
  static String networksAnnotation(String networkName) {
    int slash = networkName.indexOf('/');
    String nadNamespace = networkName.substring(0, slash);
    String nadName = networkName.substring(slash + 1);
    return "[{\"namespace\":\"" + nadNamespace + "\",\"name\":\"" + nadName + "\"}]";
  }

  /**
   * Whether {@code live} is controlled by {@code pool} (same UID), as the agent Deployments of
   * earlier versions were, in the pool's namespace.
   */
  static boolean controlledBy(V1Deployment live, IPPool pool) {
    List<V1OwnerReference> owners = live.getMetadata().getOwnerReferences();
    return owners != null
        && owners.stream()
            .anyMatch(
                o ->
                    Boolean.TRUE.equals(o.getController())
                        && Objects.equals(o.getUid(), pool.getMetadata().getUid()));
  }

  /** The pool {@code live} serves ("namespace/name" of {@value #POOL_ANNOTATION}), or null. */
  static String poolOf(V1Deployment live) {
    Map<String, String> annotations = live.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(POOL_ANNOTATION);
  }

  /**
   * Whether {@code live} is this controller's agent Deployment of {@code poolRef}: managed here and
   * naming that pool, or managed here and naming none (adopted, its annotation then set).
   */
  static boolean agentOf(V1Deployment live, String poolRef) {
    String served = poolOf(live);
    return managedHere(live) && (served == null || served.equals(poolRef));
  }

  /** Whether {@code live} carries this controller's managed-by label (so it may be adopted). */
  static boolean managedHere(V1Deployment live) {
    Map<String, String> labels = live.getMetadata().getLabels();
    return labels != null && MANAGER.equals(labels.get(LABEL_MANAGED_BY));
  }

  /**
   * The fields this controller owns, as a comparable value. Fields the API server fills in
   * (defaults, status, other containers' settings, foreign labels) are left out.
   */
  record Owned(
      Integer replicas,
      Map<String, String> selector,
      Map<String, String> templateLabels,
      String networks,
      String serviceAccount,
      String image,
      String pullPolicy,
      List<String> args,
      List<String> env,
      List<String> ports,
      String liveness,
      String readiness,
      List<String> capabilities,
      String pool,
      List<String> volumes,
      String placement) {

    /** The same fields with no replica count. */
    Owned withoutReplicas() {
      return new Owned(
          null,
          selector,
          templateLabels,
          networks,
          serviceAccount,
          image,
          pullPolicy,
          args,
          env,
          ports,
          liveness,
          readiness,
          capabilities,
          pool,
          volumes,
          placement);
    }
  }

  static Owned owned(V1Deployment d) {
    V1DeploymentSpec spec = d.getSpec();
    V1PodTemplateSpec template = spec == null ? null : spec.getTemplate();
    V1ObjectMeta templateMeta = template == null ? null : template.getMetadata();
    V1PodSpec pod = template == null ? null : template.getSpec();
    V1Container c =
        pod == null || pod.getContainers() == null
            ? null
            : pod.getContainers().stream()
                .filter(x -> CONTAINER.equals(x.getName()))
                .findFirst()
                .orElse(null);
    Map<String, String> templateLabels = new LinkedHashMap<>();
    if (templateMeta != null && templateMeta.getLabels() != null) {
      for (String key : List.of(LABEL_NAME, LABEL_POOL, LABEL_POOL_NAMESPACE, LABEL_MANAGED_BY)) {
        templateLabels.put(key, templateMeta.getLabels().get(key));
      }
    }
    return new Owned(
        spec == null ? null : spec.getReplicas(),
        spec == null || spec.getSelector() == null ? null : spec.getSelector().getMatchLabels(),
        templateLabels,
        templateMeta == null || templateMeta.getAnnotations() == null
            ? null
            : templateMeta.getAnnotations().get(NETWORKS_ANNOTATION),
        pod == null ? null : pod.getServiceAccountName(),
        c == null ? null : c.getImage(),
        c == null ? null : c.getImagePullPolicy(),
        c == null ? null : c.getArgs(),
        c == null || c.getEnv() == null
            ? null
            : c.getEnv().stream()
                .map(
                    e ->
                        e.getName()
                            + "="
                            + (e.getValueFrom() != null && e.getValueFrom().getFieldRef() != null
                                ? "fieldRef:" + e.getValueFrom().getFieldRef().getFieldPath()
                                : e.getValue()))
                .toList(),
        c == null || c.getPorts() == null
            ? null
            : c.getPorts().stream().map(p -> p.getName() + ":" + p.getContainerPort()).toList(),
        c == null ? null : probeText(c.getLivenessProbe()),
        c == null ? null : probeText(c.getReadinessProbe()),
        c == null
                || c.getSecurityContext() == null
                || c.getSecurityContext().getCapabilities() == null
            ? null
            : c.getSecurityContext().getCapabilities().getAdd(),
        d.getMetadata() == null ? null : poolOf(d),
        podinfo(pod, c),
        placementText(pod, c));
  }

  /**
   * Affinity, node selector, tolerations and resources as JSON (quantities in canonical form, so
   * the server's normalising changes nothing); null fields are left out, as the server leaves them.
   */
  private static String placementText(V1PodSpec pod, V1Container c) {
    if (pod == null) {
      return null;
    }
    Map<String, Object> placement = new LinkedHashMap<>();
    placement.put("affinity", pod.getAffinity());
    placement.put(
        "nodeSelector",
        pod.getNodeSelector() == null ? null : new TreeMap<>(pod.getNodeSelector()));
    placement.put("tolerations", pod.getTolerations());
    V1ResourceRequirements r = c == null ? null : c.getResources();
    boolean none =
        r == null
            || (r.getRequests() == null || r.getRequests().isEmpty())
                && (r.getLimits() == null || r.getLimits().isEmpty());
    placement.put(
        "resources",
        none
            ? null
            : new TreeMap<>(
                Map.of(
                    "requests",
                    r.getRequests() == null ? Map.of() : new TreeMap<>(r.getRequests()),
                    "limits",
                    r.getLimits() == null ? Map.of() : new TreeMap<>(r.getLimits()))));
    return pruned(com.google.gson.JsonParser.parseString(JSON.serialize(placement))).toString();
  }

  /** {@code e} without empty lists and objects, which the server drops and the models add. */
  private static com.google.gson.JsonElement pruned(com.google.gson.JsonElement e) {
    if (e.isJsonObject()) {
      com.google.gson.JsonObject out = new com.google.gson.JsonObject();
      for (var entry : e.getAsJsonObject().entrySet()) {
        com.google.gson.JsonElement v = pruned(entry.getValue());
        boolean empty =
            v.isJsonNull()
                || v.isJsonArray() && v.getAsJsonArray().isEmpty()
                || v.isJsonObject() && v.getAsJsonObject().isEmpty();
        if (!empty) {
          out.add(entry.getKey(), v);
        }
      }
      return out;
    }
    if (e.isJsonArray()) {
      com.google.gson.JsonArray out = new com.google.gson.JsonArray();
      e.getAsJsonArray().forEach(x -> out.add(pruned(x)));
      return out;
    }
    return e;
  }

  /** The podinfo volume and its mount, as text; null when either is missing. */
  private static List<String> podinfo(V1PodSpec pod, V1Container c) {
    if (pod == null || pod.getVolumes() == null || c == null || c.getVolumeMounts() == null) {
      return null;
    }
    List<String> found = new java.util.ArrayList<>();
    pod.getVolumes().stream()
        .filter(
            v ->
                PODINFO_VOLUME.equals(v.getName())
                    && v.getDownwardAPI() != null
                    && v.getDownwardAPI().getItems() != null)
        .flatMap(v -> v.getDownwardAPI().getItems().stream())
        .map(
            i ->
                "item "
                    + i.getPath()
                    + "="
                    + (i.getFieldRef() == null ? null : i.getFieldRef().getFieldPath()))
        .forEach(found::add);
    c.getVolumeMounts().stream()
        .filter(m -> PODINFO_VOLUME.equals(m.getName()))
        .map(m -> "mount " + m.getMountPath())
        .forEach(found::add);
    return found;
  }

  /** Whether {@code live} needs an update to match {@code rendered}. */
  static boolean differs(V1Deployment live, V1Deployment rendered) {
    return !owned(live).equals(owned(rendered));
  }

  /** Whether the only owned difference is the replica count. */
  static boolean onlyReplicasDiffer(V1Deployment live, V1Deployment rendered) {
    Owned a = owned(live);
    Owned b = owned(rendered);
    return !Objects.equals(a.replicas(), b.replicas())
        && a.withoutReplicas().equals(b.withoutReplicas());
  }

  private static String probeText(V1Probe probe) {
    if (probe == null || probe.getHttpGet() == null) {
      return null;
    }
    return probe.getHttpGet().getPath() + "@" + probe.getHttpGet().getPort();
  }

  private static V1Probe probe(String path) {
    return new V1Probe().httpGet(new V1HTTPGetAction().path(path).port(new IntOrString("health")));
  }

  private static V1EnvVar fieldRef(String name, String path) {
    return new V1EnvVar()
        .name(name)
        .valueFrom(new V1EnvVarSource().fieldRef(new V1ObjectFieldSelector().fieldPath(path)));
  }

  private static String shorten(String base, String suffix, int max) {
    if (base.length() + suffix.length() <= max) {
      return base + suffix;
    }
    String hash;
    try {
      hash =
          HexFormat.of()
              .formatHex(
                  MessageDigest.getInstance("SHA-256")
                      .digest(base.getBytes(StandardCharsets.UTF_8)))
              .substring(0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
    String head =
        base.substring(0, max - suffix.length() - hash.length() - 1).replaceAll("[-.]+$", "");
    return head + "-" + hash + suffix;
  }
}
