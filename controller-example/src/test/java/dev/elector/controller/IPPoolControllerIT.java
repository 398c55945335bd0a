package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.examples.ProcessEvent;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.NetworkApis;
import dev.elector.ippool.PodRef;
import dev.elector.ippool.PoolCondition;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.AuthorizationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
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
import io.kubernetes.client.util.PatchUtils;
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
    // what the chart's earlierLayoutCleanup grants, here only in the pools' namespace: delete on
    // Deployments, for the earlier layout's agents (the shipped RBAC deletes only in its own)
    rbac.createNamespacedRole(
            ns,
            new io.kubernetes.client.openapi.models.V1Role()
                .metadata(
                    new io.kubernetes.client.openapi.models.V1ObjectMeta().name("earlier-layout"))
                .rules(
                    List.of(
                        new io.kubernetes.client.openapi.models.V1PolicyRule()
                            .apiGroups(List.of("apps"))
                            .resources(List.of("deployments"))
                            .verbs(List.of("delete")))))
        .execute();
    rbac.createNamespacedRoleBinding(
            ns,
            new io.kubernetes.client.openapi.models.V1RoleBinding()
                .metadata(
                    new io.kubernetes.client.openapi.models.V1ObjectMeta().name("earlier-layout"))
                .roleRef(
                    new io.kubernetes.client.openapi.models.V1RoleRef()
                        .apiGroup("rbac.authorization.k8s.io")
                        .kind("Role")
                        .name("earlier-layout"))
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
    String name = AgentDeployment.name(ns, pool);
    Await.until("Deployment " + name + " " + what, WAIT, () -> state.test(harness.agent(ns, pool)));
    return harness.agent(ns, pool);
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
        () -> "vlan48".equals(AgentDeployment.clusterNetworkOf(harness.agent(ns, "network"))));
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
    String home = harness.home.name();
    assertEquals(
        home + "/" + ns + "-create-agent", pool.getStatus().getAgentDeploymentRef().toString());

    // in the controller's namespace, named as upstream names its agent, naming the pool
    V1Deployment d = harness.agent(ns, "create");
    assertEquals(home, d.getMetadata().getNamespace());
    assertEquals(ns + "-create-agent", d.getMetadata().getName());
    assertEquals(2, d.getSpec().getReplicas());
    assertEquals(
        ns + "/create", d.getMetadata().getAnnotations().get(AgentDeployment.POOL_ANNOTATION));
    assertEquals(ns, d.getMetadata().getLabels().get(AgentDeployment.LABEL_POOL_NAMESPACE));
    assertEquals("create", d.getMetadata().getLabels().get(AgentDeployment.LABEL_POOL));
    assertEquals(
        "[{\"namespace\":\"" + ns + "\",\"name\":\"create\"}]",
        d.getSpec().getTemplate().getMetadata().getAnnotations().get("k8s.v1.cni.cncf.io/networks"),
        "the NetworkAttachmentDefinition of the pool's namespace, from the agents' namespace");
    V1Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertEquals(ControllerHarness.IMAGE, c.getImage());
    assertEquals("IfNotPresent", c.getImagePullPolicy());
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
        new CoreV1Api(harness.admin).readNamespacedServiceAccount("vm-dhcp-agent", home).execute());
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(harness.admin);
    V1RoleBinding binding = rbac.readNamespacedRoleBinding("vm-dhcp-agent", ns).execute();
    assertEquals(
        "Role/vm-dhcp-agent",
        binding.getRoleRef().getKind() + "/" + binding.getRoleRef().getName());
    assertEquals(
        home + "/vm-dhcp-agent",
        binding.getSubjects().get(0).getNamespace() + "/" + binding.getSubjects().get(0).getName(),
        "the pool's namespace binds the agents of the controller's namespace");
    V1Role role = rbac.readNamespacedRole("vm-dhcp-agent", ns).execute();
    assertTrue(
        role.getRules().stream()
            .anyMatch(
                r ->
                    r.getResources().contains("ippools")
                        && r.getResourceNames().contains("create")),
        role.getRules().toString());
    V1RoleBinding leaseBinding =
        rbac.readNamespacedRoleBinding("vm-dhcp-agent-leases", home).execute();
    assertEquals("vm-dhcp-agent-leases", leaseBinding.getRoleRef().getName());
    assertTrue(
        String.valueOf(leaseRole()).contains("dhcp-agent." + ns + ".create"),
        "the Lease Role of the controller's namespace names the pool's Lease");

    harness.awaitIdle(WAIT);
    String deploymentVersion = harness.agent(ns, "create").getMetadata().getResourceVersion();
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
        harness.agent(ns, "create").getMetadata().getResourceVersion(),
        "the server's defaults (imagePullPolicy among them) are no difference");
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

    // the agents' leader writes its pod to status.agentPodRef (a merge patch of status); the
    // controller's own status writes keep it: here one that restores the conditions removed
    PodRef agentPod =
        new PodRef().namespace(harness.home.name()).name("agent-0").uid("u-0").image("agent:1");
    PatchUtils.patch(
        Object.class,
        () ->
            new CustomObjectsApi(harness.admin)
                .patchNamespacedCustomObjectStatus(
                    NetworkApis.GROUP,
                    NetworkApis.VERSION,
                    ns,
                    NetworkApis.IPPOOLS,
                    "pause",
                    new V1Patch(
                        "{\"status\": {\"conditions\": null, \"agentPodRef\": "
                            + JSON.serialize(agentPod)
                            + "}}"))
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH,
        harness.admin);
    IPPool rewritten = awaitCondition("pause", PoolCondition.REGISTERED, "True", "Registered");
    assertEquals(agentPod, rewritten.getStatus().getAgentPodRef());

    harness.clock.advance(Duration.ofMinutes(1));
    harness.edit(harness.read(ns, "pause"), p -> p.getSpec().paused(true));
    awaitDeployment("pause", x -> x.getSpec().getReplicas() == 0, "scaled to zero");
    IPPool paused = awaitCondition("pause", PoolCondition.STOPPED, "True", "Paused");
    assertEquals(null, paused.getStatus().getAgentPodRef(), "no agent pod serves a paused pool");
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
    V1Deployment d = harness.agent(ns, "ready");
    d.status(new V1DeploymentStatus().replicas(2).readyReplicas(1));
    harness
        .apps
        .replaceNamespacedDeploymentStatus(d.getMetadata().getName(), harness.home.name(), d)
        .execute();

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
  void aSecondPoolOnAServedNetworkServesNothingAndIsDeletedWithoutManualSteps() throws Exception {
    String network = ns + "/served";
    harness.create(ControllerHarness.pool(ns, "served", 40));
    awaitCondition("served", PoolCondition.REGISTERED, "True", "Registered");
    harness.create(
        ControllerHarness.vmConfig(
            ns, "on-served", List.of(ControllerHarness.nic(network, "52:54:00:40:00:01"))));
    Await.until("on-served has its address", WAIT, () -> harness.allocated(ns, "on-served"));
    String address =
        harness
            .readConfig(ns, "on-served")
            .getStatus()
            .getNetworkConfigs()
            .get(0)
            .getAllocatedIPAddress();

    // no webhook runs here: the duplicate gets in, as it would while the webhook is down
    IPPool duplicate = ControllerHarness.pool(ns, "served-dup", 41);
    duplicate.getSpec().networkName(network);
    harness.create(duplicate);
    IPPool marked =
        awaitCondition("served-dup", PoolCondition.REGISTERED, "False", OnePoolPerNetwork.REASON);
    assertTrue(
        condition(marked, PoolCondition.REGISTERED)
            .getMessage()
            .contains("served by IPPool " + ns + "/served"),
        "the duplicate names the pool that serves its network");
    assertTrue(
        harness.absent(() -> harness.agent(ns, "served-dup")),
        "no second DHCP server on the network");
    assertNotNull(harness.agent(ns, "served"), "the older pool keeps its agent");
    assertEquals(
        "True", condition(harness.read(ns, "served"), PoolCondition.REGISTERED).getStatus());
    assertTrue(harness.allocated(ns, "on-served"), "the network's VM config is not in Error");

    harness.pools.delete(ns, "served-dup").throwsApiException();
    Await.until(
        "the duplicate is gone, its finalizer removed by the controller",
        WAIT,
        () -> harness.absent(() -> harness.read(ns, "served-dup")));
    assertEquals(
        address,
        harness
            .readConfig(ns, "on-served")
            .getStatus()
            .getNetworkConfigs()
            .get(0)
            .getAllocatedIPAddress(),
        "the VM kept its address throughout");
    assertNotNull(harness.agent(ns, "served"), "the serving pool's agent was never touched");
  }

  @Test
  void deletionRemovesTheAgentDeploymentThenThePool() throws Exception {
    harness.create(ControllerHarness.pool(ns, "delete", 5));
    awaitCondition("delete", PoolCondition.REGISTERED, "True", "Registered");
    assertNotNull(harness.agent(ns, "delete"));

    harness.pools.delete(ns, "delete").throwsApiException();

    Await.until("the pool is gone", WAIT, () -> harness.absent(() -> harness.read(ns, "delete")));
    assertTrue(
        harness.absent(() -> harness.agent(ns, "delete")),
        "the finalizer deleted the Deployment before letting the pool go");
    assertFalse(
        String.valueOf(leaseRole()).contains("dhcp-agent." + ns + ".delete"),
        "the finalizer took the pool's Lease out of the agents' Role before letting the pool go");
  }

  @Test
  void anAgentOfTheEarlierLayoutGoesOnceTheNewOneServes() throws Exception {
    harness.create(ControllerHarness.pool(ns, "moved", 11));
    IPPool pool = awaitCondition("moved", PoolCondition.REGISTERED, "True", "Registered");
    // what an earlier version ran: <pool>-dhcp-agent in the pool's namespace, owned by the pool
    String legacy = AgentDeployment.legacyName("moved");
    V1Deployment old = KubeObjects.copy(harness.agent(ns, "moved"), V1Deployment.class);
    old.status(null)
        .metadata(
            new V1ObjectMeta()
                .namespace(ns)
                .name(legacy)
                .labels(old.getMetadata().getLabels())
                .ownerReferences(
                    List.of(
                        new io.kubernetes.client.openapi.models.V1OwnerReference()
                            .apiVersion("network.harvesterhci.io/v1alpha1")
                            .kind("IPPool")
                            .name("moved")
                            .uid(pool.getMetadata().getUid())
                            .controller(true))));
    harness.apps.createNamespacedDeployment(ns, old).execute();
    harness.reconcileAgain(ns, "moved", WAIT);
    harness.awaitIdle(WAIT);
    assertNotNull(
        harness.deployment(ns, legacy), "the earlier agent serves until the new one is ready");

    V1Deployment d = harness.agent(ns, "moved");
    d.status(new V1DeploymentStatus().replicas(2).readyReplicas(1));
    harness
        .apps
        .replaceNamespacedDeploymentStatus(d.getMetadata().getName(), harness.home.name(), d)
        .execute();
    Await.until(
        "the earlier layout's agent Deployment is deleted once the new one serves",
        WAIT,
        () -> harness.absent(() -> harness.deployment(ns, legacy)));
    assertNotNull(harness.agent(ns, "moved"));
  }

  @Test
  void anAgentDeploymentWhosePoolIsGoneIsDeletedButNotAForeignOne() throws Exception {
    harness.create(ControllerHarness.pool(ns, "template", 12));
    awaitCondition("template", PoolCondition.REGISTERED, "True", "Registered");
    String home = harness.home.name();
    // no owner reference reaches across namespaces: the controller collects its orphans itself
    V1Deployment orphan = KubeObjects.copy(harness.agent(ns, "template"), V1Deployment.class);
    orphan
        .status(null)
        .metadata(
            new V1ObjectMeta()
                .namespace(home)
                .name(AgentDeployment.name(ns, "gone"))
                .labels(orphan.getMetadata().getLabels())
                .annotations(Map.of(AgentDeployment.POOL_ANNOTATION, ns + "/gone")));
    V1Deployment foreign = KubeObjects.copy(orphan, V1Deployment.class);
    foreign
        .getMetadata()
        .name(AgentDeployment.name(ns, "not-ours"))
        .labels(Map.of(AgentDeployment.LABEL_NAME, AgentDeployment.APP))
        .annotations(Map.of(AgentDeployment.POOL_ANNOTATION, ns + "/not-ours"));
    harness.apps.createNamespacedDeployment(home, foreign).execute();
    harness.apps.createNamespacedDeployment(home, orphan).execute();
    Await.until(
        "the orphaned agent Deployment is deleted",
        WAIT,
        () -> harness.absent(() -> harness.deployment(home, AgentDeployment.name(ns, "gone"))));
    harness.awaitIdle(WAIT);
    assertNotNull(
        harness.deployment(home, AgentDeployment.name(ns, "not-ours")),
        "a Deployment this controller does not manage stays");
    assertNotNull(harness.agent(ns, "template"));
  }

  @Test
  void anOrphanLeftWhileNoReplicaLedIsDeletedWhenATermStarts() throws Exception {
    harness.create(ControllerHarness.pool(ns, "template-2", 13));
    awaitCondition("template-2", PoolCondition.REGISTERED, "True", "Registered");
    String home = harness.home.name();
    harness.stop("replica-a");
    harness.stop("replica-b");
    // made while no replica runs: its informer event comes before any term, so only the sweep of
    // the term's start finds it
    V1Deployment orphan = KubeObjects.copy(harness.agent(ns, "template-2"), V1Deployment.class);
    String name = AgentDeployment.name(ns, "gone-while-down");
    orphan
        .status(null)
        .metadata(
            new V1ObjectMeta()
                .namespace(home)
                .name(name)
                .labels(orphan.getMetadata().getLabels())
                .annotations(Map.of(AgentDeployment.POOL_ANNOTATION, ns + "/gone-while-down")));
    harness.apps.createNamespacedDeployment(home, orphan).execute();
    harness.start("replica-a", 2);
    harness.start("replica-b", 2);
    harness.awaitLeader(WAIT);
    Await.until(
        "the orphan is deleted at the start of the term",
        WAIT,
        () -> harness.absent(() -> harness.deployment(home, name)));
  }

  @Test
  void theAgentsMayUseTheirPoolsAndLeasesAndNoOtherLease() throws Exception {
    String own = harness.cluster.createNamespace("agent-role").name();
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(harness.admin);
    // A binding of the ClusterRole vm-dhcp-agent to the namespace's own agents (as earlier
    // layouts had), and a Role of the agents' name whose rules reach every Lease: the controller
    // replaces both.
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
        "the agents' Role names pool-a and pool-b",
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

    String home = harness.home.name();
    Await.until(
        "the RoleBinding vm-dhcp-agent binds the agents of " + home,
        WAIT,
        () ->
            home.equals(
                rbac.readNamespacedRoleBinding("vm-dhcp-agent", own)
                    .execute()
                    .getSubjects()
                    .get(0)
                    .getNamespace()));
    String lockA = "dhcp-agent." + own + ".pool-a";
    String lockB = "dhcp-agent." + own + ".pool-b";
    Await.until(
        "the authorizer lets the agents patch " + lockA,
        WAIT,
        () -> agentMay(home, "patch", "leases", lockA));
    List<String> wrong = new java.util.ArrayList<>();
    for (String lock : List.of(lockA, lockB)) {
      for (String verb : List.of("get", "list", "watch", "patch", "create")) {
        expect(wrong, home, verb, "leases", lock, true);
      }
      expect(wrong, home, "update", "leases", lock, false);
      expect(wrong, home, "delete", "leases", lock, false);
      // Leases live in the agents' namespace only
      expect(wrong, own, "patch", "leases", lock, false);
    }
    for (String verb : List.of("get", "patch", "update", "delete")) {
      expect(wrong, home, verb, "leases", "other-app-leader", false);
      expect(wrong, home, verb, "leases", ControllerConfig.DEFAULT_LEASE_NAME, false);
    }
    expect(wrong, home, "list", "leases", null, false);
    expect(wrong, home, "watch", "leases", null, false);
    expect(wrong, own, "patch", "ippools", "pool-a", true);
    expect(wrong, own, "watch", "ippools", "pool-b", true);
    expect(wrong, own, "patch", "ippools", "other-pool", false);
    expect(wrong, own, "list", "ippools", null, false);
    expect(wrong, home, "create", "events", null, true);
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
        () -> !agentMay(home, "patch", "leases", lockA));
    assertTrue(agentMay(home, "patch", "leases", lockB));
    assertFalse(agentMay(own, "patch", "ippools", "pool-a"));

    harness.pools.delete(own, "pool-b").throwsApiException();
    Await.until(
        "the agents' Role is deleted with the namespace's last pool",
        WAIT,
        () -> agentRole(own) == null);
  }

  /** The agents' Lease Role in the controller's namespace, or null when there is none. */
  private static V1Role leaseRole() throws Exception {
    try {
      return new RbacAuthorizationV1Api(harness.admin)
          .readNamespacedRole(AgentRole.LEASES, harness.home.name())
          .execute();
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return null;
      }
      throw e;
    }
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

  /**
   * Asks the API server whether the agents' ServiceAccount (in the controller's namespace) may do
   * it in {@code namespace}.
   */
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
                    .user("system:serviceaccount:" + harness.home.name() + ":vm-dhcp-agent")
                    .groups(
                        List.of(
                            "system:serviceaccounts",
                            "system:serviceaccounts:" + harness.home.name(),
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
  void theControllerDeletesDeploymentsOnlyInTheNamespaceItsAgentsRunIn() throws Exception {
    String home = harness.home.name();
    String elsewhere = harness.cluster.createNamespace("no-agents").name();
    assertTrue(controllerMay(home, "delete", "deployments"), "its own agents, where they run");
    assertTrue(controllerMay(elsewhere, "watch", "deployments"), "it watches agents everywhere");
    assertFalse(
        controllerMay(elsewhere, "delete", "deployments"),
        "no delete on Deployments anywhere else (the earlier layout's cleanup is granted apart)");
    assertFalse(controllerMay(elsewhere, "patch", "leases"), "no lease verb outside its namespace");
  }

  /** Asks the API server whether the controller's identity may do it in {@code namespace}. */
  private static boolean controllerMay(String namespace, String verb, String resource)
      throws Exception {
    String group =
        switch (resource) {
          case "deployments" -> "apps";
          case "leases" -> "coordination.k8s.io";
          default -> "";
        };
    List<String> groups = new java.util.ArrayList<>(List.of("system:authenticated"));
    if (harness.identity.username().startsWith("system:serviceaccount:")) {
      groups.add("system:serviceaccounts");
      groups.add("system:serviceaccounts:" + harness.home.name());
    }
    V1SubjectAccessReview review =
        new V1SubjectAccessReview()
            .spec(
                new V1SubjectAccessReviewSpec()
                    .user(harness.identity.username())
                    .groups(groups)
                    .resourceAttributes(
                        new V1ResourceAttributes()
                            .namespace(namespace)
                            .verb(verb)
                            .group(group)
                            .resource(resource)));
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
