package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.Gson;
import dev.elector.controller.ControllerConfig;
import dev.elector.controller.IPPoolController;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolSpec;
import dev.elector.ippool.IPv4Config;
import dev.elector.ippool.NetworkApis;
import dev.elector.ippool.NetworkCrds;
import dev.elector.ippool.Pool;
import dev.elector.reliability.ShippedManifests.Document;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.AuthorizationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ResourceAttributes;
import io.kubernetes.client.openapi.models.V1SubjectAccessReview;
import io.kubernetes.client.openapi.models.V1SubjectAccessReviewSpec;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.options.PatchOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What each shipped RBAC file grants, asked of a real API server. Every case applies its files as
 * their documentation says, in its order, into a fresh namespace (server-side apply, as {@code
 * kubectl apply --server-side} does: an object of a later file with the name of an earlier one
 * replaces what that one set, such as a Role's rules), lets the component do what it does at run
 * time (the IPPool controller writes the agents' Role and RoleBinding), then asks through
 * SubjectAccessReviews, as the ServiceAccount the files bind, for each verb on the lock by name, on
 * the whole collection, on another application's Lease and ConfigMap, and create on events. The
 * answers must be exactly the expected table: what the documentation says the files grant, and
 * nothing more. Each answer is printed, one line per case and check.
 */
@KubeTest
class ShippedRbacIT {
  private static final String OTHER_LEASE = "other-app-leader";
  private static final String OTHER_CONFIGMAP = "other-app-config";
  private static final String SENTINEL_USER = "elector-shipped-rbac-sentinel";
  private static final AtomicInteger SENTINELS = new AtomicInteger();
  private static final String POOL = "net-48";
  private static final Gson GSON = new Gson();

  /** What a check is about. */
  enum Target {
    LOCK("the lock"),
    COLLECTION("every object of the lock's kind in the namespace"),
    OTHER_LEASE("another application's Lease"),
    OTHER_CONFIGMAP("another application's ConfigMap"),
    EVENTS("events");

    final String what;

    Target(String what) {
      this.what = what;
    }
  }

  /** One question: may the account do {@code verb} on {@code target}? */
  record Check(String verb, Target target) {}

  /** Every check of every case, in the order of the table. */
  private static final List<Check> CHECKS =
      Stream.of(
              checks(Target.LOCK, "get", "list", "watch", "patch", "create", "update", "delete"),
              checks(Target.COLLECTION, "list", "watch", "deletecollection"),
              checks(Target.OTHER_LEASE, "get", "patch", "update", "delete"),
              checks(Target.OTHER_CONFIGMAP, "get", "patch", "update", "delete"),
              checks(Target.EVENTS, "create"))
          .flatMap(List::stream)
          .toList();

  /**
   * What the component does at run time, after its files are applied and in effect and before the
   * checks: {@code checked} is the namespace of the checks, {@code aside} the other one, and {@code
   * renamed} the new names of cluster-scoped objects.
   */
  interface Runtime {
    Runtime NOTHING = (cluster, checked, aside, renamed) -> {};

    void run(KubeCluster cluster, String checked, String aside, Map<String, String> renamed)
        throws Exception;
  }

  /** Where a namespace that a file names goes: the namespace of the checks, or another one. */
  enum Place {
    CHECKED,
    ASIDE
  }

  /**
   * Files applied together, in order, and the expected answers.
   *
   * @param title what the table calls the case: its files, and which grant it shows
   * @param files paths from the repository root, applied in this order
   * @param placed where each namespace the files name goes (a fresh namespace, never the named one)
   * @param account the ServiceAccount asked about
   * @param accountHome the namespace the ServiceAccount lives in
   * @param lockResource {@code leases} or {@code configmaps}
   * @param lockName the lock's name, given the namespace of the checks
   * @param runtime what the component itself does at run time
   * @param allowed the checks expected to be allowed; every other is expected refused
   * @param note why the expected grant is what it is, where the file alone does not say
   */
  record Case(
      String title,
      List<String> files,
      Map<String, Place> placed,
      String account,
      Place accountHome,
      String lockResource,
      UnaryOperator<String> lockName,
      Runtime runtime,
      Set<Check> allowed,
      String note) {
    @Override
    public String toString() {
      return title;
    }
  }

  static Stream<Case> cases() throws IOException {
    List<Case> cases = new ArrayList<>();
    for (String kind : List.of("lease", "configmap")) {
      String dir = "deploy/" + kind + "/";
      for (List<String> optional :
          List.of(
              List.<String>of(),
              List.of("rbac-shared-watch.yaml"),
              List.of("rbac-events.yaml"),
              List.of("rbac-shared-watch.yaml", "rbac-events.yaml"))) {
        List<String> files = new ArrayList<>(List.of(dir + "rbac.yaml"));
        optional.forEach(file -> files.add(dir + file));
        Set<Check> allowed = byName("get", "list", "watch", "patch", "create");
        if (optional.contains("rbac-shared-watch.yaml")) {
          allowed.addAll(checks(Target.COLLECTION, "list", "watch"));
        }
        if (optional.contains("rbac-events.yaml")) {
          allowed.addAll(checks(Target.EVENTS, "create"));
        }
        cases.add(
            new Case(
                String.join(" + ", files),
                files,
                Map.of(),
                "my-app",
                Place.CHECKED,
                kind + "s",
                ns -> "elector-leader",
                Runtime.NOTHING,
                allowed,
                ""));
      }
    }

    String helloDeployment = "examples/hello-leader/deployment.yaml";
    cases.add(
        new Case(
            "deploy/lease/rbac.yaml + " + helloDeployment,
            List.of("deploy/lease/rbac.yaml", helloDeployment),
            Map.of(),
            serviceAccountOf(helloDeployment),
            Place.CHECKED,
            "leases",
            ns -> helloLeaderLockName(),
            Runtime.NOTHING,
            byName("get", "list", "watch", "patch", "create"),
            "the Deployment's ServiceAccount and HelloLeader.LOCK_NAME"));

    String springDeployment = "examples/spring-boot-leader/deployment.yaml";
    cases.add(
        new Case(
            "deploy/lease/rbac.yaml + " + springDeployment,
            List.of("deploy/lease/rbac.yaml", springDeployment),
            Map.of(),
            serviceAccountOf(springDeployment),
            Place.CHECKED,
            "leases",
            ns -> springBootLeaderLockName(),
            Runtime.NOTHING,
            byName("get", "list", "watch", "patch", "create"),
            "the Deployment's ServiceAccount and elector.name of application.properties"));

    Set<Check> operator = byName("get", "list", "watch", "patch", "create");
    operator.addAll(checks(Target.OTHER_CONFIGMAP, "get", "patch"));
    cases.add(
        new Case(
            "examples/josdk-operator/deploy/rbac.yaml",
            List.of("examples/josdk-operator/deploy/rbac.yaml"),
            Map.of(),
            "greeting-operator",
            Place.CHECKED,
            "leases",
            ns -> "greeting-operator",
            Runtime.NOTHING,
            operator,
            "get and patch on every ConfigMap: the reconciler writes one per Greeting, named after"
                + " it, by server-side apply"));

    cases.add(
        new Case(
            "examples/qosdk-operator/deploy/rbac.yaml",
            List.of("examples/qosdk-operator/deploy/rbac.yaml"),
            Map.of(),
            "greeting-operator",
            Place.CHECKED,
            "leases",
            ns -> "greeting-operator",
            Runtime.NOTHING,
            operator,
            "the JOSDK example's Role: the same operator on the Quarkus Operator SDK"));

    Set<Check> onFabric8Seven = byName("get", "list", "watch", "patch", "create");
    onFabric8Seven.addAll(checks(Target.OTHER_CONFIGMAP, "get"));
    cases.add(
        new Case(
            "examples/josdk-fabric8-7/rbac.yaml",
            List.of("examples/josdk-fabric8-7/rbac.yaml"),
            Map.of(),
            "my-operator",
            Place.CHECKED,
            "leases",
            ns -> "elector-leader",
            Runtime.NOTHING,
            onFabric8Seven,
            "get on every ConfigMap: its operator watches them and writes one per term"));

    cases.add(
        new Case(
            "examples/quarkus-leader/rbac.yaml",
            List.of("examples/quarkus-leader/rbac.yaml"),
            Map.of(),
            "quarkus-leader",
            Place.CHECKED,
            "leases",
            ns -> "quarkus-leader",
            Runtime.NOTHING,
            byName("get", "list", "watch", "patch", "create"),
            "its lock is quarkus.application.name"));

    // The controller holds the verbs of the agents' Lease Role on every Lease of its namespace,
    // so that the API server lets it write that Role (whose rules name Leases the controller
    // learns from the pools); the agents run in its namespace, so it holds none elsewhere.
    Set<Check> controller = byName("get", "list", "watch", "patch", "create");
    controller.addAll(checks(Target.COLLECTION, "list", "watch"));
    controller.addAll(checks(Target.OTHER_LEASE, "get", "patch"));
    controller.addAll(checks(Target.EVENTS, "create"));
    cases.add(
        new Case(
            "deploy/controller/rbac.yaml",
            List.of("deploy/controller/rbac.yaml"),
            Map.of("vm-dhcp-system", Place.CHECKED),
            "ippool-controller",
            Place.CHECKED,
            "leases",
            ns -> ControllerConfig.DEFAULT_LEASE_NAME,
            Runtime.NOTHING,
            controller,
            "the controller in its own namespace; its Role ippool-controller-agents holds the"
                + " agents' lease verbs on every Lease there, only to grant them by name; no update,"
                + " no delete"));
    cases.add(
        new Case(
            "deploy/controller/rbac.yaml, the controller in a pool's namespace",
            List.of("deploy/controller/rbac.yaml"),
            Map.of("vm-dhcp-system", Place.ASIDE),
            "ippool-controller",
            Place.ASIDE,
            "leases",
            ns -> ControllerConfig.DEFAULT_LEASE_NAME,
            Runtime.NOTHING,
            new java.util.HashSet<>(checks(Target.EVENTS, "create")),
            "from its ClusterRole: events only; no lease verb outside its own namespace, where the"
                + " agents run"));

    // --uninstall leads the controller's Lease, then deletes it and the agents' Leases (whose names
    // follow the pools): every Lease of its namespace, and nothing outside it.
    Set<Check> uninstall = byName("get", "list", "watch", "patch", "create", "delete");
    uninstall.addAll(checks(Target.COLLECTION, "list", "watch"));
    uninstall.addAll(checks(Target.OTHER_LEASE, "get", "patch", "delete"));
    cases.add(
        new Case(
            "deploy/controller/uninstall-rbac.yaml",
            List.of("deploy/controller/uninstall-rbac.yaml"),
            Map.of("vm-dhcp-system", Place.CHECKED),
            "ippool-controller-uninstall",
            Place.CHECKED,
            "leases",
            ns -> ControllerConfig.DEFAULT_LEASE_NAME,
            Runtime.NOTHING,
            uninstall,
            "the uninstall leads the controller's Lease, then deletes it and the agents' Leases;"
                + " no update, no events"));

    Set<Check> agentRole = byName("get", "list", "watch", "patch", "create");
    agentRole.addAll(checks(Target.EVENTS, "create"));
    cases.add(
        new Case(
            "deploy/controller/rbac.yaml, the agents' Role as the controller writes it",
            List.of("deploy/controller/rbac.yaml"),
            Map.of("vm-dhcp-system", Place.CHECKED),
            "vm-dhcp-agent",
            Place.CHECKED,
            "leases",
            ns -> "dhcp-agent." + ns + "." + POOL,
            ShippedRbacIT::controllerRendersAPool,
            agentRole,
            "the Lease Role and RoleBinding the controller wrote in its own namespace, where the"
                + " agents run, running under this file, for the pool "
                + POOL
                + ": by name on the pool's Lease (the Deployment's --lock-name); create cannot be"
                + " named"));

    Set<Check> agent = byName("get", "list", "watch", "patch", "create");
    agent.addAll(checks(Target.EVENTS, "create"));
    cases.add(
        new Case(
            "deploy/dhcp-agent/rbac.yaml",
            List.of("deploy/dhcp-agent/rbac.yaml"),
            Map.of("default", Place.CHECKED),
            "vm-dhcp-agent",
            Place.CHECKED,
            "leases",
            ns -> "dhcp-agent.default.net-48",
            Runtime.NOTHING,
            agent,
            "the lock name the file grants"));
    return cases.stream();
  }

  @Test
  void everyShippedRbacFileHasACase() throws IOException {
    Set<String> covered =
        cases().flatMap(c -> c.files().stream()).collect(Collectors.toCollection(TreeSet::new));
    for (String file : ShippedManifests.RBAC_FILES) {
      assertTrue(covered.contains(file), file + " is applied by no case of ShippedRbacIT");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void grantsExactlyWhatItsDocumentationSays(Case c, KubeCluster cluster) throws Exception {
    ApiClient admin = cluster.admin();
    String checked = cluster.createNamespace("shipped-rbac").name();
    String aside =
        c.placed().containsValue(Place.ASIDE) || c.accountHome() == Place.ASIDE
            ? cluster.createNamespace("shipped-rbac-aside").name()
            : checked;
    Map<String, String> namespaces = new LinkedHashMap<>();
    c.placed()
        .forEach((named, place) -> namespaces.put(named, place == Place.CHECKED ? checked : aside));

    List<Document> documents = new ArrayList<>();
    for (String file : c.files()) {
      documents.addAll(ShippedManifests.documents(file));
    }
    // Cluster-scoped objects get names of their own, so that cases and runs never share one.
    Map<String, String> renamed = new LinkedHashMap<>();
    for (Document document : documents) {
      if (!kind(document.kind()).namespaced()) {
        renamed.put(document.name(), document.name() + "-" + checked);
      }
    }
    for (Document document : documents) {
      apply(admin, placed(document, checked, namespaces, renamed));
    }
    awaitAuthorizerCaches(admin, checked, !renamed.isEmpty());
    if (c.runtime() != Runtime.NOTHING) {
      c.runtime().run(cluster, checked, aside, renamed);
      awaitAuthorizerCaches(admin, checked, false);
    }

    String accountNamespace = c.accountHome() == Place.CHECKED ? checked : aside;
    String lock = c.lockName().apply(checked);
    List<String> mismatches = new ArrayList<>();
    StringBuilder table = new StringBuilder();
    table.append("RBAC ").append(c.title());
    if (!c.note().isEmpty()) {
      table.append(" -- ").append(c.note());
    }
    table.append('\n');
    for (Check check : CHECKS) {
      String resource = resourceOf(check.target(), c.lockResource());
      String name = nameOf(check.target(), lock);
      boolean allowed =
          allowed(
              admin,
              "system:serviceaccount:" + accountNamespace + ":" + c.account(),
              List.of(
                  "system:serviceaccounts",
                  "system:serviceaccounts:" + accountNamespace,
                  "system:authenticated"),
              checked,
              check.verb(),
              groupOf(resource),
              resource,
              name);
      boolean expected = c.allowed().contains(check);
      String question = check.verb() + " " + resource + (name == null ? "" : " \"" + name + "\"");
      table.append(
          String.format(
              "RBAC %s | %s | %-52s | %s%s%n",
              c.title(),
              c.account(),
              question,
              allowed ? "allowed" : "refused",
              allowed == expected ? "" : " (expected " + (expected ? "allowed" : "refused") + ")"));
      if (allowed != expected) {
        mismatches.add(
            c.title()
                + ": the ServiceAccount "
                + c.account()
                + (allowed ? " may " : " may not ")
                + question
                + " ("
                + check.target().what
                + ") in namespace "
                + checked
                + "; expected "
                + (expected ? "allowed" : "refused"));
      }
    }
    System.out.print(table);
    assertEquals(List.of(), mismatches, String.join("\n", mismatches));
  }

  // ---------------------------------------------------------------- the cases' parts

  private static List<Check> checks(Target target, String... verbs) {
    return Arrays.stream(verbs).map(verb -> new Check(verb, target)).toList();
  }

  private static Set<Check> byName(String... verbs) {
    return new LinkedHashSet<>(checks(Target.LOCK, verbs));
  }

  private static String serviceAccountOf(String deploymentFile) throws IOException {
    for (Document document : ShippedManifests.documents(deploymentFile)) {
      if (document.kind().equals("Deployment")) {
        Object account = path(document.content(), "spec", "template", "spec", "serviceAccountName");
        if (account != null) {
          return account.toString();
        }
      }
    }
    throw new IllegalStateException(deploymentFile + " names no serviceAccountName");
  }

  private static String springBootLeaderLockName() {
    String properties = "examples/spring-boot-leader/src/main/resources/application.properties";
    try {
      Matcher m =
          Pattern.compile("(?m)^elector\\.name=(\\S+)$")
              .matcher(Files.readString(ShippedManifests.file(properties), StandardCharsets.UTF_8));
      if (m.find()) {
        return m.group(1);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + properties, e);
    }
    throw new IllegalStateException(properties + " has no elector.name=...");
  }

  private static String helloLeaderLockName() {
    String source =
        "examples/hello-leader/src/main/java/dev/elector/examples/hello/HelloLeader.java";
    try {
      Matcher m =
          Pattern.compile("LOCK_NAME\\s*=\\s*\"([^\"]+)\"")
              .matcher(Files.readString(ShippedManifests.file(source), StandardCharsets.UTF_8));
      if (m.find()) {
        return m.group(1);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + source, e);
    }
    throw new IllegalStateException(source + " has no LOCK_NAME = \"...\"");
  }

  /**
   * Runs the IPPool controller as the ServiceAccount the file binds, in {@code checked} (its Lease
   * and its agents there), until it has rendered the agent of the pool {@value #POOL} of {@code
   * checked}: the agent Deployment, and the agents' Lease Role and RoleBinding, written by the
   * controller's code under the shipped rules. The Deployment must give the agent the Lease the
   * case checks.
   */
  private static void controllerRendersAPool(
      KubeCluster cluster, String checked, String aside, Map<String, String> renamed)
      throws Exception {
    ApiClient admin = cluster.admin();
    NetworkCrds.install(admin, Duration.ofSeconds(30));
    String token =
        new CoreV1Api(admin)
            .createNamespacedServiceAccountToken(
                "ippool-controller",
                checked,
                new AuthenticationV1TokenRequest()
                    .spec(new V1TokenRequestSpec().expirationSeconds(3600L)))
            .execute()
            .getStatus()
            .getToken();
    NetworkApis.ipPools(admin)
        .create(
            new IPPool()
                .metadata(new V1ObjectMeta().namespace(checked).name(POOL))
                .spec(
                    new IPPoolSpec()
                        .networkName(checked + "/" + POOL)
                        .ipv4Config(
                            new IPv4Config()
                                .cidr("192.168.48.0/24")
                                .serverIP("192.168.48.2")
                                .router("192.168.48.1")
                                .pool(new Pool().start("192.168.48.10").end("192.168.48.250")))))
        .throwsApiException();
    AppsV1Api apps = new AppsV1Api(admin);
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(admin);
    // the agents run in the controller's namespace, named as upstream names them
    String deployment = checked + "-" + POOL + "-agent";
    IPPoolController controller =
        IPPoolController.start(
            cluster.clientWithToken(token),
            ControllerConfig.newBuilder()
                .identity("shipped-rbac")
                .leaseNamespace(checked)
                .leaseDuration(Duration.ofSeconds(3))
                .renewDeadline(Duration.ofSeconds(2))
                .retryPeriod(Duration.ofMillis(500))
                .events(line -> {})
                .build());
    try {
      Await.until(
          "the controller renders the agent of " + checked + "/" + POOL + " and binds its Role",
          Duration.ofSeconds(60),
          () -> {
            try {
              apps.readNamespacedDeployment(deployment, checked).execute();
              rbac.readNamespacedRole("vm-dhcp-agent-leases", checked).execute();
              return "Role"
                  .equals(
                      rbac.readNamespacedRoleBinding("vm-dhcp-agent-leases", checked)
                          .execute()
                          .getRoleRef()
                          .getKind());
            } catch (ApiException e) {
              if (e.getCode() == 404) {
                return false;
              }
              throw e;
            }
          });
    } finally {
      controller.close();
    }
    List<String> args =
        apps.readNamespacedDeployment(deployment, checked)
            .execute()
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0)
            .getArgs();
    int at = args.indexOf("--lock-name");
    assertTrue(at >= 0, "the agent Deployment names no --lock-name: " + args);
    assertEquals("dhcp-agent." + checked + "." + POOL, args.get(at + 1), "the agent's Lease");
  }

  private static String resourceOf(Target target, String lockResource) {
    return switch (target) {
      case LOCK, COLLECTION -> lockResource;
      case OTHER_LEASE -> "leases";
      case OTHER_CONFIGMAP -> "configmaps";
      case EVENTS -> "events";
    };
  }

  private static String nameOf(Target target, String lock) {
    return switch (target) {
      case LOCK -> lock;
      case OTHER_LEASE -> OTHER_LEASE;
      case OTHER_CONFIGMAP -> OTHER_CONFIGMAP;
      case COLLECTION, EVENTS -> null;
    };
  }

  private static String groupOf(String resource) {
    return resource.equals("leases") ? "coordination.k8s.io" : "";
  }

  // ---------------------------------------------------------------- applying

  /** How to reach a kind the shipped files hold. */
  private record Kind(String group, String version, String plural, boolean namespaced) {}

  private static final Map<String, Kind> KINDS =
      Map.of(
          "ServiceAccount", new Kind("", "v1", "serviceaccounts", true),
          "Role", new Kind("rbac.authorization.k8s.io", "v1", "roles", true),
          "RoleBinding", new Kind("rbac.authorization.k8s.io", "v1", "rolebindings", true),
          "ClusterRole", new Kind("rbac.authorization.k8s.io", "v1", "clusterroles", false),
          "ClusterRoleBinding",
              new Kind("rbac.authorization.k8s.io", "v1", "clusterrolebindings", false),
          "Deployment", new Kind("apps", "v1", "deployments", true));

  private static Kind kind(String kind) {
    Kind known = KINDS.get(kind);
    if (known == null) {
      throw new IllegalStateException(
          "ShippedRbacIT cannot apply a " + kind + "; add it to ShippedRbacIT.KINDS");
    }
    return known;
  }

  /**
   * The document as it is applied: namespaced objects without a namespace go to {@code checked} (as
   * {@code kubectl apply -n} puts them), a namespace the file names goes where the case places it,
   * and cluster-scoped objects and references to them take their new names.
   */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> placed(
      Document document,
      String checked,
      Map<String, String> namespaces,
      Map<String, String> renamed) {
    Map<String, Object> object = document.content();
    Map<String, Object> metadata = (Map<String, Object>) object.get("metadata");
    if (kind(document.kind()).namespaced()) {
      String named = document.namespace();
      metadata.put("namespace", named == null ? checked : moved(document, named, namespaces));
    } else {
      metadata.put("name", renamed.get(document.name()));
    }
    if (object.get("roleRef") instanceof Map<?, ?> ref
        && "ClusterRole".equals(ref.get("kind"))
        && renamed.containsKey(String.valueOf(ref.get("name")))) {
      ((Map<String, Object>) ref).put("name", renamed.get(String.valueOf(ref.get("name"))));
    }
    for (Map<String, Object> subject : document.list("subjects")) {
      if (subject.get("namespace") != null) {
        subject.put("namespace", moved(document, subject.get("namespace").toString(), namespaces));
      }
    }
    for (Map<String, Object> rule : document.list("rules")) {
      if (rule.get("resources") instanceof List<?> resources
          && resources.contains("clusterroles")
          && rule.get("resourceNames") instanceof List<?> names) {
        rule.put(
            "resourceNames",
            names.stream()
                .map(n -> renamed.getOrDefault(String.valueOf(n), String.valueOf(n)))
                .toList());
      }
    }
    return object;
  }

  private static String moved(Document document, String named, Map<String, String> namespaces) {
    String to = namespaces.get(named);
    if (to == null) {
      throw new IllegalStateException(
          document.file()
              + " names the namespace "
              + named
              + "; give its case a place for it in ShippedRbacIT");
    }
    return to;
  }

  /** Server-side apply, as {@code kubectl apply --server-side} does. */
  private static void apply(ApiClient admin, Map<String, Object> object) throws ApiException {
    Kind kind = kind(String.valueOf(object.get("kind")));
    @SuppressWarnings("unchecked")
    Map<String, Object> metadata = (Map<String, Object>) object.get("metadata");
    String name = String.valueOf(metadata.get("name"));
    DynamicKubernetesApi api =
        new DynamicKubernetesApi(kind.group(), kind.version(), kind.plural(), admin);
    V1Patch patch = new V1Patch(GSON.toJson(object));
    PatchOptions options = new PatchOptions().fieldManager("kubectl");
    (kind.namespaced()
            ? api.patch(
                String.valueOf(metadata.get("namespace")),
                name,
                V1Patch.PATCH_FORMAT_APPLY_YAML,
                patch,
                options)
            : api.patch(name, V1Patch.PATCH_FORMAT_APPLY_YAML, patch, options))
        .throwsApiException();
  }

  /**
   * Waits until the authorizer has seen every object applied or created: it reads Roles,
   * ClusterRoles and their bindings from caches that each follow one kind in order, so once a new
   * sentinel of each kind, made last, takes effect, so has everything made before it.
   */
  private static void awaitAuthorizerCaches(ApiClient admin, String namespace, boolean cluster)
      throws ApiException {
    String sentinel = "elector-sentinel-" + namespace + "-" + SENTINELS.incrementAndGet();
    Map<String, Object> rule =
        Map.of(
            "apiGroups", List.of(""),
            "resources", List.of("configmaps"),
            "resourceNames", List.of(sentinel),
            "verbs", List.of("get"));
    List<String> kinds = cluster ? List.of("Role", "ClusterRole") : List.of("Role");
    for (String roleKind : kinds) {
      boolean namespaced = roleKind.equals("Role");
      Map<String, Object> metadata =
          namespaced
              ? Map.of("name", sentinel, "namespace", namespace)
              : Map.of("name", sentinel + "-cluster");
      Map<String, Object> role = new LinkedHashMap<>();
      role.put("apiVersion", "rbac.authorization.k8s.io/v1");
      role.put("kind", roleKind);
      role.put("metadata", metadata);
      role.put(
          "rules",
          List.of(
              namespaced
                  ? rule
                  : Map.of(
                      "apiGroups", List.of(""),
                      "resources", List.of("configmaps"),
                      "resourceNames", List.of(sentinel + "-cluster"),
                      "verbs", List.of("get"))));
      Map<String, Object> binding = new LinkedHashMap<>();
      binding.put("apiVersion", "rbac.authorization.k8s.io/v1");
      binding.put("kind", roleKind + "Binding");
      binding.put("metadata", metadata);
      binding.put(
          "roleRef",
          Map.of(
              "apiGroup",
              "rbac.authorization.k8s.io",
              "kind",
              roleKind,
              "name",
              metadata.get("name")));
      binding.put(
          "subjects",
          List.of(
              Map.of(
                  "apiGroup", "rbac.authorization.k8s.io", "kind", "User", "name", SENTINEL_USER)));
      apply(admin, role);
      apply(admin, binding);
      String name = String.valueOf(metadata.get("name"));
      String named = namespaced ? sentinel : sentinel + "-cluster";
      Await.until(
          "the authorizer sees the " + roleKind + " " + name,
          Duration.ofSeconds(30),
          () ->
              allowed(admin, SENTINEL_USER, List.of(), namespace, "get", "", "configmaps", named));
    }
  }

  // ---------------------------------------------------------------- asking

  private static boolean allowed(
      ApiClient admin,
      String user,
      List<String> groups,
      String namespace,
      String verb,
      String group,
      String resource,
      String name)
      throws ApiException {
    V1SubjectAccessReview review =
        new V1SubjectAccessReview()
            .apiVersion("authorization.k8s.io/v1")
            .kind("SubjectAccessReview")
            .spec(
                new V1SubjectAccessReviewSpec()
                    .user(user)
                    .groups(groups)
                    .resourceAttributes(
                        new V1ResourceAttributes()
                            .namespace(namespace)
                            .verb(verb)
                            .group(group)
                            .resource(resource)
                            .name(name)));
    V1SubjectAccessReview answer =
        new AuthorizationV1Api(admin).createSubjectAccessReview(review).execute();
    return Boolean.TRUE.equals(answer.getStatus().getAllowed());
  }

  private static Object path(Map<String, Object> map, String... keys) {
    Object at = map;
    for (String key : keys) {
      if (!(at instanceof Map<?, ?> m)) {
        return null;
      }
      at = m.get(key);
    }
    return at;
  }
}
