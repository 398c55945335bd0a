package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.Discovery;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Response;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The Helm chart under controller-example/charts/elector-vm-dhcp-controller: {@code helm lint}
 * passes, {@code helm template} renders with the default and with non-default values, every
 * rendered object passes a strict server-side dry run, the rendered controller arguments are
 * accepted by the controller's own flag parser, and the rendered release installs for real into a
 * namespace.
 *
 * <p>helm is built from its Go module by testenv/build-helm.sh (cached; ./test.sh builds it first).
 */
@KubeTest
class ChartIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path CHART =
      ROOT.resolve("controller-example/charts/elector-vm-dhcp-controller");
  private static final String RELEASE = "vm-dhcp";

  /** Cluster-scoped objects the real install leaves out (see {@link #theReleaseInstalls}). */
  private static final Set<String> NOT_INSTALLED =
      Set.of("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration");

  private static String helm;

  @BeforeAll
  static void buildHelm() throws Exception {
    Run built = run(List.of("bash", ROOT.resolve("testenv/build-helm.sh").toString()), 900);
    assertEquals(0, built.code(), "testenv/build-helm.sh failed:\n" + built.output());
    String[] lines = built.stdout().strip().split("\n");
    helm = lines[lines.length - 1];
  }

  @Test
  void theChartsCrdsAreTheShippedOnes() throws Exception {
    for (String name :
        List.of(
            "ippools.network.harvesterhci.io.yaml",
            "virtualmachinenetworkconfigs.network.harvesterhci.io.yaml")) {
      assertEquals(
          Files.readString(ROOT.resolve("deploy/crds").resolve(name)),
          Files.readString(CHART.resolve("crds").resolve(name)),
          "controller-example/charts/elector-vm-dhcp-controller/crds/"
              + name
              + " differs from deploy/crds; copy it");
    }
  }

  @Test
  void lintPassesWithDefaultAndNonDefaultValues() throws Exception {
    Run plain = helm("lint", "--strict", CHART.toString());
    assertEquals(0, plain.code(), plain.output());
    List<String> custom = new ArrayList<>(List.of("lint", "--strict", CHART.toString()));
    custom.addAll(nonDefaultValues());
    Run other = helm(custom.toArray(String[]::new));
    assertEquals(0, other.code(), other.output());
  }

  @Test
  void theDefaultRenderingIsOneReleaseInItsNamespaceAndPassesStrictDryRun(
      ApiClient admin, KubeNamespace namespace) throws Exception {
    List<Map<String, Object>> objects = template(namespace.name(), List.of());
    Set<String> kinds = new TreeSet<>();
    objects.stream().filter(o -> !hook(o)).forEach(o -> kinds.add(kind(o)));
    assertEquals(
        new TreeSet<>(
            List.of(
                "ClusterRole",
                "ClusterRoleBinding",
                "CustomResourceDefinition",
                "Deployment",
                "MutatingWebhookConfiguration",
                "Role",
                "RoleBinding",
                "Service",
                "ServiceAccount",
                "ValidatingWebhookConfiguration")),
        kinds);
    for (Map<String, Object> o : objects) {
      Object ns = metadata(o).get("namespace");
      assertTrue(
          ns == null || ns.equals(namespace.name()),
          describe(o) + " is in namespace " + ns + ", not the release's");
    }
    List<String> args = controllerArgs(objects);
    assertTrue(args.contains("--agent-spread=required"), args.toString());
    assertTrue(args.contains("--service-cidr=10.53.0.0/16"), args.toString());
    assertTrue(args.contains("--agent-image-pull-policy=IfNotPresent"), args.toString());
    assertFalse(
        args.contains("--allow-pool-renumbering"),
        "upstream's immutable fields stay immutable unless asked: " + args);
    assertTrue(
        args.stream().noneMatch(a -> a.startsWith("--agent-namespace")),
        "the agents run in the release namespace, the controller's own: " + args);
    Flags.parse(args.toArray(String[]::new));
    assertEquals(List.of(), dryRunAll(admin, objects));
  }

  @Test
  @SuppressWarnings("unchecked")
  void nonDefaultValuesReachTheControllerFlagsAndPassStrictDryRun(
      ApiClient admin, KubeNamespace namespace) throws Exception {
    List<Map<String, Object>> objects = template(namespace.name(), nonDefaultValues());
    List<String> args = controllerArgs(objects);
    assertTrue(args.contains("--agent-spread=preferred"), args.toString());
    assertTrue(args.contains("--agent-replicas=3"), args.toString());
    assertTrue(
        args.contains(
            "--agent-tolerations=[{\"effect\":\"NoSchedule\",\"key\":\"dedicated\","
                + "\"operator\":\"Exists\"}]"),
        args.toString());
    assertTrue(args.contains("--agent-node-selector={\"zone\":\"a\"}"), args.toString());
    assertTrue(args.contains("--agent-image-pull-policy=Always"), args.toString());
    assertTrue(args.contains("--service-cidr=10.43.0.0/16"), args.toString());
    // the controller accepts what the chart renders, and reads the JSON the way it is meant
    ControllerConfig config = Flags.parse(args.toArray(String[]::new)).config().build();
    assertEquals(3, config.agentReplicas());
    assertEquals("Always", config.agentImagePullPolicy());
    assertEquals(6, config.shards());
    assertTrue(config.poolRenumbering(), "allowPoolRenumbering");
    assertTrue(config.keepAddressesWhilePaused(), "keepAddressesWhilePaused");
    assertTrue(config.poolBeforeNetwork(), "allowPoolBeforeNetwork");
    assertEquals(false, config.agentPlacement().spreadRequired());
    assertEquals(Map.of("zone", "a"), config.agentPlacement().nodeSelector());
    assertEquals("dedicated", config.agentPlacement().tolerations().get(0).getKey());
    assertEquals(
        "64Mi", config.agentPlacement().resources().getRequests().get("memory").toSuffixedString());
    // upstream's value names mean the same here
    Map<String, Object> deployment = only(objects, "Deployment", null);
    assertEquals(3, path(deployment, "spec", "replicas"), "replicaCount");
    assertEquals("vm-dhcp-sa", path(deployment, "spec", "template", "spec", "serviceAccountName"));
    assertEquals(
        List.of(Map.of("name", "registry")),
        path(deployment, "spec", "template", "spec", "imagePullSecrets"));
    assertEquals("net", path(deployment, "spec", "template", "metadata", "labels", "team"));
    assertTrue(args.contains("--webhook-addr=0.0.0.0:9443"), args.toString());
    assertTrue(
        args.contains("--webhook-service=" + namespace.name() + "/vm-dhcp-webhook:8443"),
        args.toString());
    assertEquals(
        List.of(),
        objects.stream().filter(o -> kind(o).equals("ServiceAccount") && !hook(o)).toList(),
        "serviceAccount.create=false renders no ServiceAccount");
    assertTrue(
        objects.stream()
            .filter(o -> kind(o).endsWith("Binding") && !hook(o))
            .allMatch(b -> String.valueOf(b.get("subjects")).contains("name=vm-dhcp-sa")),
        "the bindings name serviceAccount.name (the uninstall hook has its own)");
    Map<String, Object> metrics = only(objects, "Service", "ippool-controller-metrics");
    assertEquals(
        9090, ((List<Map<String, Object>>) path(metrics, "spec", "ports")).get(0).get("port"));
    // the Role names the shard and member Leases of --shards
    Set<String> role = rules(objects, "Role");
    assertTrue(
        role.stream()
            .anyMatch(
                r ->
                    r.contains("ippool-controller-shard-5")
                        && r.contains("ippool-controller-member-5")
                        && !r.contains("shard-6")),
        role.toString());
    List<Map<String, Object>> monitors =
        objects.stream().filter(o -> kind(o).equals("ServiceMonitor")).toList();
    assertEquals(1, monitors.size(), "metrics.serviceMonitor.enabled renders one ServiceMonitor");
    // The local control plane has no prometheus-operator CRDs, so the ServiceMonitor is checked
    // above for presence only; every other object goes to the server.
    List<Map<String, Object>> served =
        objects.stream().filter(o -> !kind(o).equals("ServiceMonitor")).toList();
    assertEquals(List.of(), dryRunAll(admin, served));
  }

  @Test
  void valuesRenamedToUpstreamsNamesFailWithTheNewName(KubeNamespace namespace) throws Exception {
    for (Map.Entry<String, String> renamed :
        Map.of(
                "replicas=3",
                "set replicaCount instead",
                "webhook.port=1",
                "set webhook.httpsPort instead")
            .entrySet()) {
      Run run =
          helm(
              "template",
              RELEASE,
              CHART.toString(),
              "--namespace",
              namespace.name(),
              "--set",
              renamed.getKey());
      assertTrue(
          run.code() != 0 && run.output().contains(renamed.getValue()),
          renamed.getKey() + ": " + run.output());
    }
  }

  /**
   * charts/package.sh makes the folder an air-gapped cluster installs from: the packaged chart, its
   * repository index, the images to mirror and their checksums; the packaged chart keeps its
   * schema.
   */
  @Test
  void theChartPackagesIntoARepositoryFolderWithTheImagesToMirror(KubeNamespace namespace)
      throws Exception {
    Path out = Files.createTempDirectory("chart-repo");
    Run packaged =
        run(
            List.of(
                "env",
                "HELM=" + helm,
                "bash",
                ROOT.resolve("controller-example/charts/package.sh").toString(),
                out.toString()),
            120);
    assertEquals(0, packaged.code(), packaged.output());
    System.out.println("RESULT " + packaged.stdout().strip());
    Path tgz = out.resolve("elector-vm-dhcp-controller-0.1.0.tgz");
    String digest =
        java.util.HexFormat.of()
            .formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(tgz)));
    Map<String, Object> index = new Yaml().load(Files.readString(out.resolve("index.yaml")));
    @SuppressWarnings("unchecked")
    Map<String, Object> entry =
        ((Map<String, List<Map<String, Object>>>) index.get("entries"))
            .get("elector-vm-dhcp-controller")
            .get(0);
    assertEquals(
        List.of("0.1.0", digest, List.of(tgz.getFileName().toString())),
        List.of(entry.get("version"), entry.get("digest"), entry.get("urls")));
    Map<String, Object> values = new Yaml().load(Files.readString(CHART.resolve("values.yaml")));
    assertEquals(
        List.of(image(path(values, "agent", "image")), image(path(values, "image"))),
        Files.readAllLines(out.resolve("images.txt")),
        "the images of the default values, the agent's and the controller's");
    assertTrue(
        Files.readString(out.resolve("SHA256SUMS")).contains(digest + "  " + tgz.getFileName()));
    Run typo =
        helm(
            "template",
            RELEASE,
            tgz.toString(),
            "--namespace",
            namespace.name(),
            "--set",
            "agent.replica=3");
    assertTrue(
        typo.code() != 0 && typo.output().contains("additional properties 'replica' not allowed"),
        "the packaged chart keeps its schema: " + typo.output());
  }

  private static String image(Object image) {
    @SuppressWarnings("unchecked")
    Map<String, Object> i = (Map<String, Object>) image;
    return i.get("repository") + ":" + i.get("tag");
  }

  @Test
  void aMistypedValueFailsTemplateAndInstallNamingIt(KubeNamespace namespace) throws Exception {
    for (Map.Entry<String, String> typo :
        Map.of(
                "agent.replica=3",
                "at '/agent': additional properties 'replica' not allowed",
                "replicaCont=3",
                "additional properties 'replicaCont' not allowed",
                "webhook.failurePolicy=fail",
                "at '/webhook/failurePolicy'",
                "agent.noLeaderElection=true",
                "at '/agent/replicas': value must be 1")
            .entrySet()) {
      for (String verb : List.of("template", "install")) {
        List<String> cmd =
            new ArrayList<>(
                List.of(verb, RELEASE, CHART.toString(), "--namespace", namespace.name()));
        if (verb.equals("install")) {
          cmd.add("--dry-run=client");
        }
        cmd.addAll(List.of("--set", typo.getKey()));
        Run run = helm(cmd.toArray(String[]::new));
        assertTrue(
            run.code() != 0 && run.output().contains(typo.getValue()),
            "helm " + verb + " --set " + typo.getKey() + ": " + run.output());
      }
    }
    // the Addon's values are within the schema
    Map<String, Object> addon =
        new Yaml()
            .load(
                Files.readString(
                    ROOT.resolve(
                        "controller-example/charts/addon/elector-vm-dhcp-controller.yaml")));
    Path values = Files.createTempFile("addon-values", ".yaml");
    try {
      Files.writeString(values, (String) path(addon, "spec", "valuesContent"));
      template(namespace.name(), List.of("-f", values.toString()));
    } finally {
      Files.delete(values);
    }
  }

  @Test
  void installNotesSayHowToCheckTheReleaseAndWhatTheNamespaceNeeds(KubeNamespace namespace)
      throws Exception {
    String ns = namespace.name();
    Run run = helm("install", RELEASE, CHART.toString(), "--namespace", ns, "--dry-run=client");
    assertEquals(0, run.code(), run.output());
    String notes = run.stdout().substring(run.stdout().indexOf("NOTES:"));
    for (String line :
        List.of(
            "kubectl -n " + ns + " rollout status deployment/ippool-controller",
            "kubectl -n " + ns + " get lease ippool-controller",
            "kubectl label namespace " + ns + " pod-security.kubernetes.io/enforce=privileged",
            "2 DHCP agent replica(s) per IPPool")) {
      assertTrue(notes.contains(line), "'" + line + "' missing from:\n" + notes);
    }
  }

  @Test
  void theNameOverridesRenameTheChartsObjectsButNotTheNamesTheControllerUses(
      KubeNamespace namespace) throws Exception {
    String ns = namespace.name();
    List<Map<String, Object>> full =
        template(ns, List.of("--set", "fullnameOverride=dhcp-ctl,shards=2"));
    only(full, "Deployment", "dhcp-ctl");
    only(full, "ServiceAccount", "dhcp-ctl");
    only(full, "Role", "dhcp-ctl");
    only(full, "RoleBinding", "dhcp-ctl");
    only(full, "ClusterRole", "dhcp-ctl-" + ns);
    only(full, "Service", "dhcp-ctl-metrics");
    only(full, "Service", "vm-dhcp-webhook");
    assertTrue(
        rules(full, "Role")
            .contains(
                "[coordination.k8s.io] leases [ippool-controller,"
                    + " ippool-controller-member-0, ippool-controller-member-1,"
                    + " ippool-controller-shard-0, ippool-controller-shard-1] patch"),
        "the Leases keep the names the controller uses: " + rules(full, "Role"));

    List<Map<String, Object>> named = template(ns, List.of("--set", "nameOverride=evdc"));
    Map<String, Object> deployment = only(named, "Deployment", "evdc");
    assertEquals(
        "evdc", path(deployment, "spec", "selector", "matchLabels", "app.kubernetes.io/name"));
    assertEquals(
        "evdc",
        path(deployment, "spec", "template", "metadata", "labels", "app.kubernetes.io/name"));
    Run bad = helm("template", RELEASE, CHART.toString(), "--set", "fullnameOverride=Dhcp_Ctl");
    assertTrue(
        bad.code() != 0 && bad.output().contains("/fullnameOverride"),
        "a name Kubernetes would refuse is refused by the schema: " + bad.output());
  }

  @Test
  void agentNoLeaderElectionRendersTheAgentsWithoutElection(KubeNamespace namespace)
      throws Exception {
    List<String> args =
        controllerArgs(
            template(
                namespace.name(),
                List.of("--set", "agent.noLeaderElection=true,agent.replicas=1")));
    assertTrue(args.contains("--agent-no-leader-election"), args.toString());
    ControllerConfig config = Flags.parse(args.toArray(String[]::new)).config().build();
    assertFalse(config.agentLeaderElection());
    assertTrue(
        controllerArgs(template(namespace.name(), List.of())).stream()
            .noneMatch(a -> a.equals("--agent-no-leader-election")));
  }

  /**
   * The chart grants what deploy/controller/rbac.yaml grants (which the controller's ITs run
   * under), plus the CRD rules of --apply-crds, and nothing else.
   */
  @Test
  void theChartsRulesAreTheShippedRulesPlusTheCrdRules(KubeNamespace namespace) throws Exception {
    List<Map<String, Object>> chart = template(namespace.name(), List.of());
    List<Map<String, Object>> shipped = new ArrayList<>();
    for (Object doc :
        new Yaml().loadAll(Files.readString(ROOT.resolve("deploy/controller/rbac.yaml")))) {
      if (doc instanceof Map<?, ?> map && map.containsKey("kind")) {
        @SuppressWarnings("unchecked")
        Map<String, Object> object = (Map<String, Object>) map;
        shipped.add(object);
      }
    }
    Set<String> chartCluster = rules(chart, "ClusterRole");
    Set<String> crdRules = new TreeSet<>();
    chartCluster.stream()
        .filter(r -> r.startsWith("[apiextensions.k8s.io]"))
        .forEach(crdRules::add);
    String names =
        "[ippools.network.harvesterhci.io, virtualmachinenetworkconfigs.network.harvesterhci.io]";
    assertEquals(
        new TreeSet<>(
            List.of(
                "[apiextensions.k8s.io] customresourcedefinitions [] create",
                "[apiextensions.k8s.io] customresourcedefinitions " + names + " get",
                "[apiextensions.k8s.io] customresourcedefinitions " + names + " update")),
        crdRules);
    chartCluster.removeAll(crdRules);
    assertEquals(rules(shipped, "ClusterRole"), chartCluster);
    assertEquals(rules(shipped, "Role"), rules(chart, "Role"));
    List<String> off = new ArrayList<>(List.of("applyCRDs=false"));
    off.add(0, "--set");
    List<Map<String, Object>> withoutCrds = template(namespace.name(), off);
    assertEquals(rules(shipped, "ClusterRole"), rules(withoutCrds, "ClusterRole"));
    // Deployments are deleted where the agents run; cluster-wide only for the earlier layout
    assertFalse(chartCluster.contains("[apps] deployments [] delete"), chartCluster.toString());
    assertTrue(rules(chart, "Role").contains("[apps] deployments [] delete"));
    Set<String> cleanup =
        rules(
            template(namespace.name(), List.of("--set", "earlierLayoutCleanup=true")),
            "ClusterRole");
    assertTrue(cleanup.remove("[apps] deployments [] delete"), cleanup.toString());
    cleanup.removeAll(crdRules);
    assertEquals(rules(shipped, "ClusterRole"), cleanup);
    List<Map<String, Object>> migrating =
        template(namespace.name(), List.of("--set", "upstreamMigration=true"));
    Set<String> migratingRole = rules(migrating, "Role");
    String upstream = UpstreamLeftovers.NAME;
    String secrets = "[" + upstream + "-ca, " + upstream + "-tls]";
    for (String rule :
        List.of(
            "[] pods [] delete",
            "[] services [" + upstream + "] get",
            "[] secrets " + secrets + " get",
            "[] secrets " + secrets + " delete")) {
      assertTrue(migratingRole.remove(rule), rule + " in " + migratingRole);
    }
    assertEquals(rules(shipped, "Role"), migratingRole);
    // upstream's leftover webhook configurations, by name, only while migrating
    Set<String> migratingCluster = rules(migrating, "ClusterRole");
    for (String kind :
        List.of("validatingwebhookconfigurations", "mutatingwebhookconfigurations")) {
      for (String verb : List.of("get", "delete")) {
        String rule = "[admissionregistration.k8s.io] " + kind + " [" + upstream + "] " + verb;
        assertTrue(migratingCluster.remove(rule), rule + " in " + migratingCluster);
        assertFalse(chartCluster.contains(rule), rule);
      }
    }
    migratingCluster.removeAll(crdRules);
    assertEquals(rules(shipped, "ClusterRole"), migratingCluster);
    assertTrue(
        controllerArgs(migrating).contains("--upstream-agent-namespace=" + namespace.name()));
    assertTrue(
        controllerArgs(chart).stream().noneMatch(a -> a.startsWith("--upstream-agent-namespace")));
    assertTrue(!controllerArgs(withoutCrds).contains("--apply-crds"));
    assertTrue(controllerArgs(chart).contains("--apply-crds"));
  }

  /** Every rule of every object of {@code kind}, as text (one rule per resource and verb). */
  @SuppressWarnings("unchecked")
  private static Set<String> rules(List<Map<String, Object>> objects, String kind) {
    return rules(objects, kind, false);
  }

  /** Every rule of every object of {@code kind}: of the post-delete hook's, or of the release's. */
  @SuppressWarnings("unchecked")
  private static Set<String> rules(List<Map<String, Object>> objects, String kind, boolean hooks) {
    Set<String> out = new TreeSet<>();
    for (Map<String, Object> o : objects) {
      if (!kind(o).equals(kind) || hook(o) != hooks) {
        continue;
      }
      for (Map<String, Object> rule : (List<Map<String, Object>>) o.get("rules")) {
        for (Object resource : (List<Object>) rule.get("resources")) {
          for (Object verb : (List<Object>) rule.get("verbs")) {
            out.add(
                rule.get("apiGroups")
                    + " "
                    + resource
                    + " "
                    + new TreeSet<>((List<Object>) rule.getOrDefault("resourceNames", List.of()))
                    + " "
                    + verb);
          }
        }
      }
    }
    return out;
  }

  /**
   * The post-delete hook's Job runs {@code --uninstall} with the controller's Lease timings and
   * webhook Secret, under exactly the rights of deploy/controller/uninstall-rbac.yaml (which
   * UninstallIT runs under); every hook object is a post-delete hook deleted when it succeeds, and
   * uninstallCleanup=false renders none.
   */
  @Test
  void theUninstallHookRunsUninstallWithTheShippedUninstallRules(KubeNamespace namespace)
      throws Exception {
    List<Map<String, Object>> chart = template(namespace.name(), List.of("--set", "shards=3"));
    List<Map<String, Object>> shipped = new ArrayList<>();
    for (Object doc :
        new Yaml()
            .loadAll(Files.readString(ROOT.resolve("deploy/controller/uninstall-rbac.yaml")))) {
      if (doc instanceof Map<?, ?> map && map.containsKey("kind")) {
        @SuppressWarnings("unchecked")
        Map<String, Object> object = (Map<String, Object>) map;
        shipped.add(object);
      }
    }
    assertEquals(rules(shipped, "ClusterRole"), rules(chart, "ClusterRole", true));
    assertEquals(rules(shipped, "Role"), rules(chart, "Role", true));
    List<Map<String, Object>> hooks = chart.stream().filter(ChartIT::hook).toList();
    assertEquals(
        List.of(
            "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Job"),
        hooks.stream().map(ChartIT::kind).toList());
    for (Map<String, Object> o : hooks) {
      @SuppressWarnings("unchecked")
      Map<String, Object> annotations = (Map<String, Object>) metadata(o).get("annotations");
      assertEquals("post-delete", annotations.get("helm.sh/hook"), describe(o));
      assertTrue(
          String.valueOf(annotations.get("helm.sh/hook-delete-policy")).contains("hook-succeeded"),
          describe(o));
    }
    Map<String, Object> job = only(chart, "Job", "ippool-controller-uninstall");
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> containers =
        (List<Map<String, Object>>) path(job, "spec", "template", "spec", "containers");
    @SuppressWarnings("unchecked")
    List<String> args = (List<String>) containers.get(0).get("args");
    assertTrue(args.contains("--uninstall"), args.toString());
    List<String> controller = controllerArgs(chart);
    for (String arg : args) {
      if (!arg.startsWith("--uninstall")) {
        assertTrue(controller.contains(arg), arg + " is the controller's too: " + controller);
      }
    }
    assertTrue(args.contains("--shards=3"), args.toString());
    assertTrue(args.contains("--webhook-secret=vm-dhcp-webhook-tls"), args.toString());
    // the flags parse: the Job's command line is a valid --uninstall
    assertTrue(Flags.parse(args.toArray(String[]::new)).uninstall());
    assertTrue(
        template(namespace.name(), List.of("--set", "uninstallCleanup=false")).stream()
            .noneMatch(ChartIT::hook));
  }

  /**
   * The rendered objects applied for real, in the test's namespace. The two webhook configurations
   * are cluster-wide with failurePolicy Fail and the test API server is shared with other test
   * classes, so they are only dry-run (above); everything else is created.
   */
  @Test
  void theReleaseInstalls(ApiClient admin, KubeNamespace namespace) throws Exception {
    String ns = namespace.name();
    List<Map<String, Object>> objects = template(ns, List.of());
    Resources resources = new Resources(admin);
    createCrds(admin, objects);
    List<String> problems = new ArrayList<>();
    for (Map<String, Object> o : objects) {
      if (kind(o).equals("CustomResourceDefinition") || NOT_INSTALLED.contains(kind(o))) {
        continue;
      }
      send(admin, resources, ns, o, false).ifPresent(problems::add);
    }
    assertEquals(List.of(), problems);
    try {
      assertEquals(
          2,
          new AppsV1Api(admin)
              .readNamespacedDeployment("ippool-controller", ns)
              .execute()
              .getSpec()
              .getReplicas());
      assertEquals(
          "ippool-controller",
          new RbacAuthorizationV1Api(admin)
              .readClusterRoleBinding("ippool-controller-" + ns)
              .execute()
              .getSubjects()
              .get(0)
              .getName());
    } finally {
      deleteClusterScoped(admin, ns);
    }
  }

  private static void deleteClusterScoped(ApiClient admin, String ns) {
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(admin);
    try {
      rbac.deleteClusterRoleBinding("ippool-controller-" + ns).execute();
      rbac.deleteClusterRole("ippool-controller-" + ns).execute();
      rbac.deleteClusterRoleBinding("ippool-controller-uninstall-" + ns).execute();
      rbac.deleteClusterRole("ippool-controller-uninstall-" + ns).execute();
    } catch (ApiException e) {
      // the namespace's cleanup does not reach cluster-scoped objects; a leftover is harmless
    }
  }

  private static List<String> nonDefaultValues() {
    return List.of(
        "--set",
        "replicaCount=3,agent.replicas=3,agent.spread=preferred,serviceCIDR=10.43.0.0/16",
        "--set",
        "serviceAccount.create=false,serviceAccount.name=vm-dhcp-sa,podLabels.team=net,"
            + "service.metricsPort=9090,webhook.httpsPort=9443,webhook.service.port=8443",
        "--set-json",
        "imagePullSecrets=[{\"name\":\"registry\"}]",
        "--set",
        "metrics.serviceMonitor.enabled=true,image.tag=9.9.9,upstreamMigration=true,shards=6,"
            + "allowPoolRenumbering=true,keepAddressesWhilePaused=true,allowPoolBeforeNetwork=true",
        "--set-json",
        "agent.tolerations=[{\"key\":\"dedicated\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]",
        "--set-json",
        "agent.nodeSelector={\"zone\":\"a\"}",
        "--set",
        "agent.image.pullPolicy=Always",
        "--set-json",
        "agent.resources={\"requests\":{\"memory\":\"64Mi\"}}",
        "--set-json",
        "tolerations=[{\"key\":\"node-role.kubernetes.io/control-plane\",\"operator\":\"Exists\"}]");
  }

  private static List<Map<String, Object>> template(String namespace, List<String> values)
      throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "template", RELEASE, CHART.toString(), "--namespace", namespace, "--include-crds"));
    cmd.addAll(values);
    Run rendered = helm(cmd.toArray(String[]::new));
    assertEquals(0, rendered.code(), rendered.output());
    List<Map<String, Object>> objects = new ArrayList<>();
    for (Object doc : new Yaml().loadAll(rendered.stdout())) {
      if (doc instanceof Map<?, ?> map && map.containsKey("kind")) {
        @SuppressWarnings("unchecked")
        Map<String, Object> object = (Map<String, Object>) map;
        objects.add(object);
      }
    }
    return objects;
  }

  private static Map<String, Object> only(
      List<Map<String, Object>> objects, String kind, String name) {
    List<Map<String, Object>> found =
        objects.stream()
            .filter(o -> kind(o).equals(kind))
            .filter(o -> name == null || name.equals(metadata(o).get("name")))
            .toList();
    assertEquals(1, found.size(), kind + " " + name + ": " + found);
    return found.get(0);
  }

  @SuppressWarnings("unchecked")
  private static Object path(Map<String, Object> object, String... keys) {
    Object at = object;
    for (String key : keys) {
      at = ((Map<String, Object>) at).get(key);
    }
    return at;
  }

  @SuppressWarnings("unchecked")
  private static List<String> controllerArgs(List<Map<String, Object>> objects) {
    Map<String, Object> deployment =
        objects.stream().filter(o -> kind(o).equals("Deployment")).findFirst().orElseThrow();
    Map<String, Object> spec =
        (Map<String, Object>)
            ((Map<String, Object>) ((Map<String, Object>) deployment.get("spec")).get("template"))
                .get("spec");
    Map<String, Object> container = ((List<Map<String, Object>>) spec.get("containers")).get(0);
    return (List<String>) container.get("args");
  }

  private static List<String> dryRunAll(ApiClient admin, List<Map<String, Object>> objects)
      throws Exception {
    createCrds(admin, objects);
    Resources resources = new Resources(admin);
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Map<String, Object> o : objects) {
      if (!kind(o).equals("CustomResourceDefinition")) {
        send(admin, resources, null, o, true).ifPresent(problems::add);
        checked++;
      }
    }
    assertTrue(checked >= 9, "expected the chart's objects, dry-ran " + checked);
    return problems;
  }

  /** The chart's CRDs, created for real (their create validates them as strictly). */
  private static void createCrds(ApiClient admin, List<Map<String, Object>> objects)
      throws Exception {
    for (Map<String, Object> crd :
        objects.stream().filter(o -> kind(o).equals("CustomResourceDefinition")).toList()) {
      Optional<String> failure =
          post(admin, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd, false);
      if (failure.isPresent() && !failure.get().contains(" 409")) {
        throw new AssertionError(describe(crd) + " was refused: " + failure.get());
      }
      String name = String.valueOf(metadata(crd).get("name"));
      Await.until(
          name + " established",
          Duration.ofSeconds(30),
          () ->
              new ApiextensionsV1Api(admin)
                  .readCustomResourceDefinition(name).execute().getStatus().getConditions().stream()
                      .anyMatch(
                          c -> c.getType().equals("Established") && c.getStatus().equals("True")));
    }
  }

  private static Optional<String> send(
      ApiClient admin, Resources resources, String fallbackNs, Map<String, Object> o, boolean dry)
      throws Exception {
    String apiVersion = String.valueOf(o.get("apiVersion"));
    Optional<Discovery.APIResource> resource = resources.find(apiVersion, kind(o));
    if (resource.isEmpty()) {
      return Optional.of(describe(o) + ": the API server serves no " + kind(o));
    }
    String base = apiVersion.contains("/") ? "/apis/" + apiVersion : "/api/" + apiVersion;
    String path;
    if (resource.get().getNamespaced()) {
      Object ns = metadata(o).getOrDefault("namespace", fallbackNs);
      if (ns == null) {
        return Optional.of(describe(o) + " has no namespace; the chart must set it");
      }
      path = base + "/namespaces/" + ns + "/" + resource.get().getResourcePlural();
    } else {
      path = base + "/" + resource.get().getResourcePlural();
    }
    return post(admin, path, o, dry).map(f -> describe(o) + ": " + f);
  }

  private static Optional<String> post(
      ApiClient admin, String path, Map<String, Object> object, boolean dryRun) throws Exception {
    List<Pair> query = new ArrayList<>();
    query.add(new Pair("fieldValidation", "Strict"));
    if (dryRun) {
      query.add(new Pair("dryRun", "All"));
    }
    Map<String, String> headers = new HashMap<>();
    headers.put("Content-Type", "application/json");
    headers.put("Accept", "application/json");
    Call call =
        admin.buildCall(
            admin.getBasePath(),
            path,
            "POST",
            query,
            List.of(),
            object,
            headers,
            Map.of(),
            Map.of(),
            new String[] {"BearerToken"},
            null);
    try (Response response = call.execute()) {
      if (response.isSuccessful()) {
        return Optional.empty();
      }
      String body = response.body() == null ? "" : response.body().string();
      return Optional.of("refused with " + response.code() + ": " + body);
    }
  }

  private static boolean hook(Map<String, Object> o) {
    Object annotations = metadata(o).get("annotations");
    return annotations instanceof Map<?, ?> map && map.containsKey("helm.sh/hook");
  }

  private static String kind(Map<String, Object> o) {
    return String.valueOf(o.get("kind"));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> metadata(Map<String, Object> o) {
    return (Map<String, Object>) o.getOrDefault("metadata", Map.of());
  }

  private static String describe(Map<String, Object> o) {
    return kind(o) + "/" + metadata(o).getOrDefault("name", "?");
  }

  private static Run helm(String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(helm);
    cmd.addAll(List.of(args));
    return run(cmd, 120);
  }

  record Run(int code, String stdout, String stderr) {
    String output() {
      return stdout + stderr;
    }
  }

  private static Run run(List<String> cmd, int timeoutSeconds) throws Exception {
    Path out = Files.createTempFile("chart-it", ".out");
    Path err = Files.createTempFile("chart-it", ".err");
    try {
      Process p =
          new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(cmd + " did not finish in " + timeoutSeconds + " s");
      }
      return new Run(
          p.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** The API server's resources by apiVersion and kind. */
  private static final class Resources {
    private final Map<String, Discovery.APIResource> byKind = new LinkedHashMap<>();

    Resources(ApiClient admin) throws ApiException {
      for (Discovery.APIResource r : new Discovery(admin).findAll()) {
        for (String version : r.getVersions()) {
          String apiVersion = r.getGroup().isEmpty() ? version : r.getGroup() + "/" + version;
          byKind.putIfAbsent(apiVersion + " " + r.getKind(), r);
        }
      }
    }

    Optional<Discovery.APIResource> find(String apiVersion, String kind) {
      return Optional.ofNullable(byKind.get(apiVersion + " " + kind));
    }
  }
}
