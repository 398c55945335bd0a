package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.examples.ProcessEvent;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.PoolCondition;
import dev.elector.testkit.kube.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AuthorizationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1ResourceAttributes;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.openapi.models.V1SubjectAccessReview;
import io.kubernetes.client.openapi.models.V1SubjectAccessReviewSpec;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The IPPool lifecycle on a real API server, with two controller replicas under the shipped RBAC:
 * create, update, pause, resume, agent readiness and delete produce the right agent Deployment,
 * status and conditions, and only the leader writes.
 */
@KubeTest
class IPPoolControllerIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static ControllerHarness harness;
  private static String ns;

  @BeforeAll
  static void start(KubeCluster cluster, KubeNamespace namespace) throws Exception {
    harness = ControllerHarness.create(cluster, "ippool-controller-it");
    ns = namespace.name();
    // upstream's agent pods, in the controllers' namespace as upstream runs them
    harness.upstreamAgentNamespace = harness.home.name();
    var rbac = new io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api(harness.admin);
    String home = harness.home.name();
    rbac.createNamespacedRole(
            home,
            new io.kubernetes.client.openapi.models.V1Role()
                .metadata(
                    new io.kubernetes.client.openapi.models.V1ObjectMeta().name("upstream-agents"))
                .rules(
                    List.of(
                        new io.kubernetes.client.openapi.models.V1PolicyRule()
                            .apiGroups(List.of(""))
                            .resources(List.of("pods"))
                            .verbs(List.of("delete")))))
        .execute();
    rbac.createNamespacedRoleBinding(
            home,
            new io.kubernetes.client.openapi.models.V1RoleBinding()
                .metadata(
                    new io.kubernetes.client.openapi.models.V1ObjectMeta().name("upstream-agents"))
                .roleRef(
                    new io.kubernetes.client.openapi.models.V1RoleRef()
                        .apiGroup("rbac.authorization.k8s.io")
                        .kind("Role")
                        .name("upstream-agents"))
                .subjects(List.of(harness.identity.subject())))
        .execute();
    harness.start("replica-a", 2);
    harness.start("replica-b", 2);
    harness.awaitLeader(WAIT);
  }

  @AfterAll
  static void stop() {
    harness.close();
  }

  private static PoolCondition condition(IPPool pool, String type) {
    return pool.getStatus() == null ? null : pool.getStatus().condition(type).orElse(null);
  }

  private static IPPool awaitCondition(String name, String type, String status, String reason)
      throws Exception {
    Await.until(
        name + " " + type + "=" + status + " (" + reason + ")",
        WAIT,
        () -> {
          PoolCondition c = condition(harness.read(ns, name), type);
          return c != null && status.equals(c.getStatus()) && reason.equals(c.getReason());
        });
    return harness.read(ns, name);
  }

  private static V1Deployment awaitDeployment(
      String pool, java.util.function.Predicate<V1Deployment> state, String what) throws Exception {
    String name = pool + "-dhcp-agent";
    Await.until(
        "Deployment " + name + " " + what, WAIT, () -> state.test(harness.deployment(ns, name)));
    return harness.deployment(ns, name);
  }

  @Test
  void leadershipShowsAsAnEventOnTheControllersLease() throws Exception {
    IPPoolController leader = harness.awaitLeader(WAIT);
    CoreV1Api core = new CoreV1Api(harness.admin);

    Await.until(
        "a LeaderElection event says " + leader.identity() + " became leader",
        WAIT,
        () ->
            core
                .listNamespacedEvent(harness.home.name())
                .fieldSelector("involvedObject.name=" + ControllerConfig.DEFAULT_LEASE_NAME)
                .execute()
                .getItems()
                .stream()
                .anyMatch(
                    e ->
                        "LeaderElection".equals(e.getReason())
                            && (leader.identity() + " became leader").equals(e.getMessage())));
  }

  @Test
  void networkReadyFollowsTheNetworkAttachmentDefinition() throws Exception {
    var crds =
        new io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi(
            "apiextensions.k8s.io", "v1", "customresourcedefinitions", harness.admin);
    String crdName = "network-attachment-definitions.k8s.cni.cncf.io";
    assertEquals(
        404,
        crds.get(crdName).getHttpStatusCode(),
        "no other test installs Multus' CRD before this one");
    harness.create(ControllerHarness.pool(ns, "network", 7));
    PoolCondition missingCrd =
        condition(
            awaitCondition("network", PoolCondition.NETWORK_READY, "False", "MultusNotInstalled"),
            PoolCondition.NETWORK_READY);
    assertTrue(missingCrd.getMessage().contains("install Multus"), missingCrd.getMessage());

    String yaml =
        java.nio.file.Files.readString(
            java.nio.file.Path.of("..", "deploy", "multus", crdName + ".yaml"));
    crds.create(io.kubernetes.client.util.generic.dynamic.Dynamics.newFromYaml(yaml))
        .throwsApiException();
    PoolCondition missing =
        condition(
            awaitCondition("network", PoolCondition.NETWORK_READY, "False", "NetworkNotFound"),
            PoolCondition.NETWORK_READY);
    assertTrue(
        missing
            .getMessage()
            .startsWith("NetworkAttachmentDefinition " + ns + "/network does not exist"),
        missing.getMessage());
    CoreV1Api core = new CoreV1Api(harness.admin);
    Await.until(
        "a NetworkNotFound Warning event on the pool",
        WAIT,
        () ->
            core
                .listNamespacedEvent(ns)
                .fieldSelector("involvedObject.name=network")
                .execute()
                .getItems()
                .stream()
                .anyMatch(
                    e -> "Warning".equals(e.getType()) && "NetworkNotFound".equals(e.getReason())));

    var nads =
        new io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi(
            NetworkAttachments.GROUP,
            NetworkAttachments.VERSION,
            NetworkAttachments.PLURAL,
            harness.admin);
    Await.until(
        "the NetworkAttachmentDefinition CRD serves",
        WAIT,
        () -> nads.list(ns).getHttpStatusCode() == 200);
    nads.create(
            io.kubernetes.client.util.generic.dynamic.Dynamics.newFromYaml(
                """
        apiVersion: k8s.cni.cncf.io/v1
        kind: NetworkAttachmentDefinition
        metadata:
          namespace: %s
          name: network
          labels: {network.harvesterhci.io/clusternetwork: vlan48}
        spec: {config: '{"cniVersion":"0.3.1","type":"bridge","bridge":"br-48"}'}
        """
                    .formatted(ns)))
        .throwsApiException();
    awaitCondition("network", PoolCondition.NETWORK_READY, "True", "NetworkFound");
    assertEquals(
        "True",
        condition(harness.read(ns, "network"), PoolCondition.REGISTERED).getStatus(),
        "a missing network is reported, not treated as an invalid spec");
    // the network carries upstream's labels naming its pool
    Await.until(
        "the NetworkAttachmentDefinition is labelled with its pool",
        WAIT,
        () -> {
          var labels = nads.get(ns, "network").getObject().getMetadata().getLabels();
          return labels != null
              && ns.equals(labels.get(NetworkAttachments.LABEL_POOL_NAMESPACE))
              && "network".equals(labels.get(NetworkAttachments.LABEL_POOL_NAME));
        });
    // its cluster network pins the agents to the nodes that carry it
    Await.until(
        "the agent Deployment requires nodes of cluster network vlan48",
        WAIT,
        () ->
            "vlan48"
                .equals(
                    AgentDeployment.clusterNetworkOf(
                        harness.deployment(ns, "network-dhcp-agent"))));
  }

  @Test
  void aNewPoolGetsItsAgentDeploymentTableAndConditions() throws Exception {
    harness.create(ControllerHarness.pool(ns, "create", 1));
    IPPool pool = awaitCondition("create", PoolCondition.REGISTERED, "True", "Registered");

    assertTrue(pool.getMetadata().getFinalizers().contains(PoolReconciler.FINALIZER));
    assertEquals(
        Map.of("10.1.0.1", "RESERVED", "10.1.0.2", "RESERVED"),
        pool.getStatus().getIpv4().getAllocated());
    assertEquals(0, pool.getStatus().getIpv4().getUsed());
    assertEquals(241, pool.getStatus().getIpv4().getAvailable());
    assertEquals("True", condition(pool, PoolCondition.CACHE_READY).getStatus());
    assertEquals("False", condition(pool, PoolCondition.STOPPED).getStatus());
    PoolCondition agent = condition(pool, PoolCondition.AGENT_READY);
    assertEquals(
        List.of("False", "NoReadyReplica", "0 of 2 agent replicas ready"),
        List.of(agent.getStatus(), agent.getReason(), agent.getMessage()));
    assertEquals(ns + "/create-dhcp-agent", pool.getStatus().getAgentDeploymentRef().toString());

    V1Deployment d = harness.deployment(ns, "create-dhcp-agent");
    assertEquals(2, d.getSpec().getReplicas());
    assertEquals(pool.getMetadata().getUid(), d.getMetadata().getOwnerReferences().get(0).getUid());
    assertTrue(d.getMetadata().getOwnerReferences().get(0).getBlockOwnerDeletion());
    assertEquals(
        "[{\"namespace\":\"" + ns + "\",\"name\":\"create\"}]",
        d.getSpec()
            .getTemplate()
            .getMetadata()
            .getAnnotations()
            .get("k8s.v1.cni.cncf.io/networks"));
    V1Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertEquals(ControllerHarness.IMAGE, c.getImage());
    assertEquals(
        List.of(
            "--ippool-ref",
            ns + "/create",
            "--network",
            ns + "/create",
            "--pod-annotations",
            "/etc/podinfo/annotations",
            "--server-ip",
            "10.1.0.2",
            "--cidr",
            "10.1.0.0/24",
            "--lock-name",
            "dhcp-agent." + ns + ".create"),
        c.getArgs());
    assertEquals("vm-dhcp-agent", d.getSpec().getTemplate().getSpec().getServiceAccountName());

    assertNotNull(
        new CoreV1Api(harness.admin).readNamespacedServiceAccount("vm-dhcp-agent", ns).execute());
    V1RoleBinding binding =
        new RbacAuthorizationV1Api(harness.admin)
            .readNamespacedRoleBinding("vm-dhcp-agent", ns)
            .execute();
    assertEquals(
        "Role/vm-dhcp-agent",
        binding.getRoleRef().getKind() + "/" + binding.getRoleRef().getName());
    assertEquals("vm-dhcp-agent", binding.getSubjects().get(0).getName());
    V1Role role =
        new RbacAuthorizationV1Api(harness.admin).readNamespacedRole("vm-dhcp-agent", ns).execute();
    assertTrue(
        role.getRules().stream()
            .anyMatch(
                r ->
                    r.getResources().contains("leases")
                        && r.getResourceNames().contains("dhcp-agent." + ns + ".create")),
        role.getRules().toString());

    harness.awaitIdle(WAIT);
    String deploymentVersion =
        harness.deployment(ns, "create-dhcp-agent").getMetadata().getResourceVersion();
    IPPoolController leader = harness.awaitLeader(WAIT);
    long statusWrites = leader.stats().poolStatusWrites.get();
    long deploymentWrites = leader.stats().deploymentWrites.get();
    harness.reconcileAgain(ns, "create", WAIT);
    // No update loop against server defaulting: reconciling the settled pool writes nothing.
    assertEquals(statusWrites, leader.stats().poolStatusWrites.get(), leader.stats().toString());
    assertEquals(
        deploymentWrites, leader.stats().deploymentWrites.get(), leader.stats().toString());
    assertEquals(
        deploymentVersion,
        harness.deployment(ns, "create-dhcp-agent").getMetadata().getResourceVersion());
  }

  @Test
  void aSpecChangeUpdatesTheDeploymentAndTheReservations() throws Exception {
    harness.create(ControllerHarness.pool(ns, "update", 2));
    IPPool before = awaitCondition("update", PoolCondition.REGISTERED, "True", "Registered");
    OffsetDateTime registeredAt =
        condition(before, PoolCondition.REGISTERED).getLastTransitionTime();

    harness.edit(
        before,
        p ->
            p.getSpec()
                .getIpv4Config()
                .serverIP("10.2.0.3")
                .getPool()
                .exclude(List.of("10.2.0.20", "10.2.0.21")));

    V1Deployment d =
        awaitDeployment(
            "update",
            x ->
                x.getSpec()
                    .getTemplate()
                    .getSpec()
                    .getContainers()
                    .get(0)
                    .getArgs()
                    .contains("10.2.0.3"),
            "serves 10.2.0.3");
    assertEquals(2, d.getSpec().getReplicas());
    Await.until(
        "the table follows the spec",
        WAIT,
        () ->
            harness
                .read(ns, "update")
                .getStatus()
                .getIpv4()
                .getAllocated()
                .equals(
                    Map.of(
                        "10.2.0.1",
                        "RESERVED",
                        "10.2.0.3",
                        "RESERVED",
                        "10.2.0.20",
                        "EXCLUDED",
                        "10.2.0.21",
                        "EXCLUDED")));
    IPPool after = harness.read(ns, "update");
    assertEquals(239, after.getStatus().getIpv4().getAvailable());
    assertEquals(
        registeredAt,
        condition(after, PoolCondition.REGISTERED).getLastTransitionTime(),
        "Registered did not flip, so its transition time stays");
  }

  @Test
  void pauseScalesTheAgentToZeroAndResumeScalesItBack() throws Exception {
    harness.create(ControllerHarness.pool(ns, "pause", 3));
    awaitCondition("pause", PoolCondition.REGISTERED, "True", "Registered");

    harness.clock.advance(Duration.ofMinutes(1));
    harness.edit(harness.read(ns, "pause"), p -> p.getSpec().paused(true));
    awaitDeployment("pause", x -> x.getSpec().getReplicas() == 0, "scaled to zero");
    IPPool paused = awaitCondition("pause", PoolCondition.STOPPED, "True", "Paused");
    assertEquals("Paused", condition(paused, PoolCondition.AGENT_READY).getReason());
    OffsetDateTime stoppedAt = condition(paused, PoolCondition.STOPPED).getLastTransitionTime();
    OffsetDateTime registeredAt =
        condition(paused, PoolCondition.REGISTERED).getLastTransitionTime();

    harness.clock.advance(Duration.ofMinutes(1));
    harness.edit(paused, p -> p.getSpec().paused(false));
    awaitDeployment("pause", x -> x.getSpec().getReplicas() == 2, "scaled back to 2");
    IPPool resumed = awaitCondition("pause", PoolCondition.STOPPED, "False", "Running");
    // The harness clock is real time plus the minute the test added, so the flip back is stamped
    // a minute and however long the resume took (seconds, truncated) after the pause.
    OffsetDateTime flippedAt = condition(resumed, PoolCondition.STOPPED).getLastTransitionTime();
    assertTrue(
        !flippedAt.isBefore(stoppedAt.plusMinutes(1))
            && flippedAt.isBefore(stoppedAt.plusMinutes(1).plus(WAIT)),
        "Stopped flipped back a minute after the pause: " + stoppedAt + " -> " + flippedAt);
    assertEquals(
        registeredAt, condition(resumed, PoolCondition.REGISTERED).getLastTransitionTime());
    assertEquals("NoReadyReplica", condition(resumed, PoolCondition.AGENT_READY).getReason());
  }

  @Test
  void agentReadyFollowsTheDeploymentsReadyReplicas() throws Exception {
    harness.create(ControllerHarness.pool(ns, "ready", 4));
    // upstream's agent of the same pool, still running
    String upstreamPod = ns + "-ready-agent";
    CoreV1Api core = new CoreV1Api(harness.admin);
    core.createNamespacedPod(
            harness.home.name(),
            new io.kubernetes.client.openapi.models.V1Pod()
                .metadata(new io.kubernetes.client.openapi.models.V1ObjectMeta().name(upstreamPod))
                .spec(
                    new io.kubernetes.client.openapi.models.V1PodSpec()
                        .overhead(
                            null) // the model's empty default is refused without a RuntimeClass
                        .containers(
                            List.of(
                                new io.kubernetes.client.openapi.models.V1Container()
                                    .name("agent")
                                    .image("upstream-agent:1")))))
        .execute();
    awaitCondition("ready", PoolCondition.AGENT_READY, "False", "NoReadyReplica");
    harness.awaitIdle(WAIT);
    assertEquals(
        upstreamPod,
        core.readNamespacedPod(upstreamPod, harness.home.name()).execute().getMetadata().getName(),
        "upstream's agent stays while this controller's agent is not ready");

    // No kubelet runs on the local control plane: report a ready replica as one would.
    V1Deployment d = harness.deployment(ns, "ready-dhcp-agent");
    d.status(new V1DeploymentStatus().replicas(2).readyReplicas(1));
    harness.apps.replaceNamespacedDeploymentStatus("ready-dhcp-agent", ns, d).execute();

    IPPool ready = awaitCondition("ready", PoolCondition.AGENT_READY, "True", "AgentReady");
    Await.until(
        "upstream's agent pod is deleted once this agent serves",
        WAIT,
        () ->
            core.listNamespacedPod(harness.home.name()).execute().getItems().stream()
                .noneMatch(p -> upstreamPod.equals(p.getMetadata().getName())));
    assertEquals(
        "1 of 2 agent replicas ready", condition(ready, PoolCondition.AGENT_READY).getMessage());
  }

  @Test
  void upstreamsFinalizerIsReplacedSoAPoolLeftByUpstreamCanBeDeleted() throws Exception {
    IPPool left = ControllerHarness.pool(ns, "from-upstream", 9);
    left.getMetadata().finalizers(List.of("wrangler.cattle.io/vm-dhcp-ippool-controller"));
    harness.create(left);
    awaitCondition("from-upstream", PoolCondition.REGISTERED, "True", "Registered");
    Await.until(
        "upstream's finalizer is replaced by this controller's",
        WAIT,
        () ->
            List.of(PoolReconciler.FINALIZER)
                .equals(harness.read(ns, "from-upstream").getMetadata().getFinalizers()));
  }

  @Test
  void deletionRemovesTheAgentDeploymentThenThePool() throws Exception {
    harness.create(ControllerHarness.pool(ns, "delete", 5));
    awaitCondition("delete", PoolCondition.REGISTERED, "True", "Registered");
    assertNotNull(harness.deployment(ns, "delete-dhcp-agent"));

    harness.pools.delete(ns, "delete").throwsApiException();

    Await.until("the pool is gone", WAIT, () -> harness.absent(() -> harness.read(ns, "delete")));
    assertTrue(
        harness.absent(() -> harness.deployment(ns, "delete-dhcp-agent")),
        "the finalizer deleted the Deployment before letting the pool go");
    assertFalse(
        String.valueOf(agentRole(ns)).contains("dhcp-agent." + ns + ".delete"),
        "the finalizer took the pool's Lease out of the agents' Role before letting the pool go");
  }

  @Test
  void theAgentsMayUseTheirPoolsAndLeasesAndNoOtherLease() throws Exception {
    String own = harness.cluster.createNamespace("agent-role").name();
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(harness.admin);
    // A binding of the ClusterRole vm-dhcp-agent, and a Role of the agents' name whose rules
    // reach every Lease: the controller replaces both.
    rbac.createNamespacedRole(
            own,
            new V1Role()
                .metadata(new V1ObjectMeta().name("vm-dhcp-agent"))
                .rules(
                    List.of(
                        new V1PolicyRule()
                            .apiGroups(List.of("coordination.k8s.io"))
                            .resources(List.of("leases"))
                            .verbs(List.of("get", "patch", "update")))))
        .execute();
    rbac.createNamespacedRoleBinding(
            own,
            new V1RoleBinding()
                .metadata(new V1ObjectMeta().name("vm-dhcp-agent"))
                .roleRef(
                    new V1RoleRef()
                        .apiGroup("rbac.authorization.k8s.io")
                        .kind("ClusterRole")
                        .name("vm-dhcp-agent"))
                .subjects(
                    List.of(
                        new RbacV1Subject()
                            .kind("ServiceAccount")
                            .name("vm-dhcp-agent")
                            .namespace(own))))
        .execute();

    harness.create(ControllerHarness.pool(own, "pool-a", 21));
    harness.create(ControllerHarness.pool(own, "pool-b", 22));
    V1Role both = AgentRole.render(own, List.of("pool-a", "pool-b"));
    Await.until(
        "the agents' Role names pool-a, pool-b and their Leases",
        WAIT,
        () -> agentRole(own) != null && AgentRole.sameRules(agentRole(own), both));
    Await.until(
        "the RoleBinding vm-dhcp-agent binds the Role",
        WAIT,
        () -> {
          V1RoleRef ref =
              rbac.readNamespacedRoleBinding("vm-dhcp-agent", own).execute().getRoleRef();
          return "Role".equals(ref.getKind());
        });

    String lockA = "dhcp-agent." + own + ".pool-a";
    String lockB = "dhcp-agent." + own + ".pool-b";
    Await.until(
        "the authorizer lets the agents patch " + lockA,
        WAIT,
        () -> agentMay(own, "patch", "leases", lockA));
    List<String> wrong = new java.util.ArrayList<>();
    for (String lock : List.of(lockA, lockB)) {
      for (String verb : List.of("get", "list", "watch", "patch", "create")) {
        expect(wrong, own, verb, "leases", lock, true);
      }
      expect(wrong, own, "update", "leases", lock, false);
      expect(wrong, own, "delete", "leases", lock, false);
    }
    for (String verb : List.of("get", "patch", "update", "delete")) {
      expect(wrong, own, verb, "leases", "other-app-leader", false);
    }
    expect(wrong, own, "list", "leases", null, false);
    expect(wrong, own, "watch", "leases", null, false);
    expect(wrong, own, "patch", "ippools", "pool-a", true);
    expect(wrong, own, "watch", "ippools", "pool-b", true);
    expect(wrong, own, "patch", "ippools", "other-pool", false);
    expect(wrong, own, "list", "ippools", null, false);
    expect(wrong, own, "create", "events", null, true);
    assertEquals(List.of(), wrong);

    harness.pools.delete(own, "pool-a").throwsApiException();
    V1Role onlyB = AgentRole.render(own, List.of("pool-b"));
    Await.until(
        "the agents' Role names pool-b only",
        WAIT,
        () -> agentRole(own) != null && AgentRole.sameRules(agentRole(own), onlyB));
    Await.until(
        "the authorizer refuses the agents " + lockA,
        WAIT,
        () -> !agentMay(own, "patch", "leases", lockA));
    assertTrue(agentMay(own, "patch", "leases", lockB));

    harness.pools.delete(own, "pool-b").throwsApiException();
    Await.until(
        "the agents' Role is deleted with the namespace's last pool",
        WAIT,
        () -> agentRole(own) == null);
  }

  /** The agents' Role of {@code namespace}, or null when there is none. */
  private static V1Role agentRole(String namespace) throws Exception {
    try {
      return new RbacAuthorizationV1Api(harness.admin)
          .readNamespacedRole("vm-dhcp-agent", namespace)
          .execute();
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return null;
      }
      throw e;
    }
  }

  private static void expect(
      List<String> wrong, String namespace, String verb, String resource, String name, boolean may)
      throws Exception {
    if (agentMay(namespace, verb, resource, name) != may) {
      wrong.add(
          "the agents "
              + (may ? "may not " : "may ")
              + verb
              + " "
              + resource
              + (name == null ? "" : " " + name));
    }
  }

  /** Asks the API server whether the agents' ServiceAccount of {@code namespace} may do it. */
  private static boolean agentMay(String namespace, String verb, String resource, String name)
      throws Exception {
    String group =
        switch (resource) {
          case "leases" -> "coordination.k8s.io";
          case "ippools" -> "network.harvesterhci.io";
          default -> "";
        };
    V1SubjectAccessReview review =
        new V1SubjectAccessReview()
            .spec(
                new V1SubjectAccessReviewSpec()
                    .user("system:serviceaccount:" + namespace + ":vm-dhcp-agent")
                    .groups(
                        List.of(
                            "system:serviceaccounts",
                            "system:serviceaccounts:" + namespace,
                            "system:authenticated"))
                    .resourceAttributes(
                        new V1ResourceAttributes()
                            .namespace(namespace)
                            .verb(verb)
                            .group(group)
                            .resource(resource)
                            .name(name)));
    return Boolean.TRUE.equals(
        new AuthorizationV1Api(harness.admin)
            .createSubjectAccessReview(review)
            .execute()
            .getStatus()
            .getAllowed());
  }

  @Test
  void onlyALeaderWrites() throws Exception {
    harness.create(ControllerHarness.pool(ns, "leader", 6));
    awaitCondition("leader", PoolCondition.REGISTERED, "True", "Registered");
    harness.awaitIdle(WAIT);
    int writes = 0;
    for (String replica : List.of("replica-a", "replica-b")) {
      boolean leading = false;
      for (ProcessEvent line : harness.events(replica)) {
        String kind = line.kind().toUpperCase(Locale.ROOT);
        if (kind.equals("LEADING")) {
          leading = true;
        } else if (kind.equals("STOPPED_LEADING")) {
          leading = false;
        } else if (List.of(
                "DEPLOYMENT",
                "POOL_STATUS",
                "CONDITION",
                "ALLOCATED",
                "NIC",
                "SERVICE_ACCOUNT",
                "ROLE",
                "ROLE_BINDING",
                "FINALIZED")
            .contains(kind)) {
          assertTrue(leading, replica + " wrote while not leading: " + line);
          writes++;
        }
      }
    }
    assertTrue(writes > 0, "the leader's writes were seen");
    for (String replica : List.of("replica-a", "replica-b")) {
      if (harness.events(replica).stream().noneMatch(e -> e.kind().equals("leading"))) {
        assertEquals(
            0,
            harness.controller(replica).stats().reconciles.get(),
            replica + " never led, so it never reconciled");
      }
    }
  }
}
