package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ippool.IPPool;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentDeploymentTest {

  private static IPPool pool() {
    return new IPPool()
        .metadata(new V1ObjectMeta().namespace("tenant-a").name("net-48").uid("0c9e-uid"))
        .spec(PoolValidationTest.good().networkName("nads/vlan-48"));
  }

  private static V1Deployment render(IPPool pool, String image, int replicas) {
    return render(pool, image, replicas, false);
  }

  private static V1Deployment render(IPPool pool, String image, int replicas, boolean noDhcp) {
    return render(pool, image, replicas, noDhcp, AgentPlacement.DEFAULT, null);
  }

  private static V1Deployment render(
      IPPool pool,
      String image,
      int replicas,
      boolean noDhcp,
      AgentPlacement placement,
      String clusterNetwork) {
    return AgentDeployment.render(
        pool, "vm-dhcp-system", image, "IfNotPresent", replicas, noDhcp, placement, clusterNetwork);
  }

  private static V1Container agent(V1Deployment d) {
    return d.getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  @Test
  void theDeploymentLivesInTheAgentNamespaceNamedAsUpstreamNamesItsAgentAndNamesItsPool() {
    V1Deployment d = render(pool(), "img:1", 2);
    assertEquals("vm-dhcp-system", d.getMetadata().getNamespace());
    assertEquals("tenant-a-net-48-agent", d.getMetadata().getName());
    assertTrue(
        d.getMetadata().getOwnerReferences() == null
            || d.getMetadata().getOwnerReferences().isEmpty(),
        "an owner reference cannot reach the pool's namespace");
    assertEquals(
        "tenant-a/net-48", d.getMetadata().getAnnotations().get(AgentDeployment.POOL_ANNOTATION));
    assertEquals("tenant-a/net-48", AgentDeployment.poolOf(d));
    assertEquals(2, d.getSpec().getReplicas());
    assertEquals(
        Map.of(
            "app.kubernetes.io/name",
            "vm-dhcp-agent",
            "network.harvesterhci.io/ippool",
            "net-48",
            "network.harvesterhci.io/ippool-namespace",
            "tenant-a"),
        d.getSpec().getSelector().getMatchLabels(),
        "pools of one name in two namespaces select apart");
  }

  @Test
  void aDeploymentIsThisPoolsAgentOnlyWhenManagedHereAndNamingThePoolOrNone() {
    V1Deployment d = render(pool(), "img:1", 2);
    assertTrue(AgentDeployment.agentOf(d, "tenant-a/net-48"));
    assertFalse(AgentDeployment.agentOf(d, "tenant-b/net-48"));
    V1Deployment unnamed = KubeObjects.copy(d, V1Deployment.class);
    unnamed.getMetadata().annotations(null);
    assertTrue(AgentDeployment.agentOf(unnamed, "tenant-a/net-48"), "adopted");
    assertTrue(AgentDeployment.differs(unnamed, d), "and its annotation set");
    V1Deployment foreign = KubeObjects.copy(d, V1Deployment.class);
    foreign.getMetadata().labels(Map.of("app.kubernetes.io/name", "vm-dhcp-agent"));
    assertFalse(AgentDeployment.agentOf(foreign, "tenant-a/net-48"));
  }

  @Test
  void thePullPolicyIsSetExplicitlySoTheServersDefaultIsNoDifferenceButAChangeIs() {
    V1Deployment rendered = render(pool(), "img:latest", 2);
    assertEquals("IfNotPresent", agent(rendered).getImagePullPolicy());
    V1Deployment always =
        AgentDeployment.render(
            pool(),
            "vm-dhcp-system",
            "img:latest",
            "Always",
            2,
            false,
            AgentPlacement.DEFAULT,
            null);
    assertEquals("Always", agent(always).getImagePullPolicy());
    assertTrue(AgentDeployment.differs(always, rendered), "a changed value is written");
    assertFalse(AgentDeployment.onlyReplicasDiffer(always, rendered));
    // the server keeps an explicit policy (it would default a :latest image to Always)
    V1Deployment live = KubeObjects.copy(rendered, V1Deployment.class);
    assertFalse(AgentDeployment.differs(live, rendered));
  }

  @Test
  void thePodTemplateAttachesTheNetworkAndRunsTheAgentWithItsPool() {
    V1Deployment d = render(pool(), "img:1", 2);
    assertEquals(
        "[{\"namespace\":\"nads\",\"name\":\"vlan-48\"}]",
        d.getSpec().getTemplate().getMetadata().getAnnotations().get("k8s.v1.cni.cncf.io/networks"),
        "Multus names the interface");
    assertEquals("vm-dhcp-agent", d.getSpec().getTemplate().getSpec().getServiceAccountName());
    V1Container c = agent(d);
    assertEquals("img:1", c.getImage());
    assertEquals(
        List.of(
            "--ippool-ref",
            "tenant-a/net-48",
            "--network",
            "nads/vlan-48",
            "--pod-annotations",
            "/etc/podinfo/annotations",
            "--server-ip",
            "192.168.0.2",
            "--cidr",
            "192.168.0.0/24",
            "--lock-name",
            "dhcp-agent.tenant-a.net-48"),
        c.getArgs());
    var volume = d.getSpec().getTemplate().getSpec().getVolumes().get(0);
    assertEquals(
        "metadata.annotations",
        volume.getDownwardAPI().getItems().get(0).getFieldRef().getFieldPath());
    assertEquals("annotations", volume.getDownwardAPI().getItems().get(0).getPath());
    assertEquals(volume.getName(), c.getVolumeMounts().get(0).getName());
    assertEquals("/etc/podinfo", c.getVolumeMounts().get(0).getMountPath());
    List<V1EnvVar> env = c.getEnv();
    assertEquals("IPPOOL_REF", env.get(0).getName());
    assertEquals("tenant-a/net-48", env.get(0).getValue());
    assertEquals("metadata.namespace", env.get(1).getValueFrom().getFieldRef().getFieldPath());
    assertEquals("POD_NAME", env.get(2).getName());
    assertEquals("metadata.name", env.get(2).getValueFrom().getFieldRef().getFieldPath());
    assertEquals("POD_UID", env.get(3).getName());
    assertEquals("metadata.uid", env.get(3).getValueFrom().getFieldRef().getFieldPath());
    assertEquals("AGENT_IMAGE", env.get(4).getName());
    assertEquals(c.getImage(), env.get(4).getValue());
    assertEquals("health", c.getPorts().get(0).getName());
    assertEquals(8080, c.getPorts().get(0).getContainerPort());
    assertEquals("/healthz", c.getLivenessProbe().getHttpGet().getPath());
    assertEquals("/readyz", c.getReadinessProbe().getHttpGet().getPath());
    assertEquals("health", c.getReadinessProbe().getHttpGet().getPort().getStrValue());
    assertEquals(List.of("NET_ADMIN"), c.getSecurityContext().getCapabilities().getAdd());
  }

  @Test
  void serverDefaultsAreNotADifference() {
    V1Deployment rendered = render(pool(), "img:1", 2);
    V1Deployment live = KubeObjects.copy(rendered, V1Deployment.class);
    live.getMetadata()
        .resourceVersion("42")
        .putLabelsItem("team", "blue")
        .putAnnotationsItem("deployment.kubernetes.io/revision", "1");
    live.getSpec().revisionHistoryLimit(10).progressDeadlineSeconds(600);
    live.getSpec().getTemplate().getSpec().restartPolicy("Always").dnsPolicy("ClusterFirst");
    V1Container c = agent(live);
    c.imagePullPolicy("IfNotPresent").terminationMessagePath("/dev/termination-log");
    c.getLivenessProbe().timeoutSeconds(1).periodSeconds(10).getHttpGet().scheme("HTTP");
    c.getEnv().get(1).getValueFrom().getFieldRef().apiVersion("v1");
    var podinfo = live.getSpec().getTemplate().getSpec().getVolumes().get(0).getDownwardAPI();
    podinfo.defaultMode(420).getItems().get(0).getFieldRef().apiVersion("v1");
    assertFalse(AgentDeployment.differs(live, rendered));
  }

  @Test
  void aMissingPodinfoVolumeIsADifference() {
    V1Deployment rendered = render(pool(), "img:1", 2);
    V1Deployment live = KubeObjects.copy(rendered, V1Deployment.class);
    live.getSpec().getTemplate().getSpec().volumes(null);
    assertTrue(AgentDeployment.differs(live, rendered));
    V1Deployment unmounted = KubeObjects.copy(rendered, V1Deployment.class);
    agent(unmounted).volumeMounts(null);
    assertTrue(AgentDeployment.differs(unmounted, rendered));
  }

  @Test
  void ownedFieldsAreDifferences() {
    V1Deployment rendered = render(pool(), "img:1", 2);
    assertTrue(AgentDeployment.differs(render(pool(), "img:2", 2), rendered));
    IPPool moved = pool();
    moved.getSpec().getIpv4Config().serverIP("192.168.0.3");
    assertTrue(AgentDeployment.differs(render(moved, "img:1", 2), rendered));
    V1Deployment scaled = render(pool(), "img:1", 0);
    assertTrue(AgentDeployment.differs(scaled, rendered));
    assertTrue(AgentDeployment.onlyReplicasDiffer(scaled, rendered));
    assertFalse(AgentDeployment.onlyReplicasDiffer(render(moved, "img:1", 0), rendered));
  }

  @Test
  void theLockIsTheAgentsDefaultLeaseCutToAnObjectName() {
    assertEquals("dhcp-agent.tenant-a.net-48", AgentDeployment.lockName("tenant-a", "net-48"));
    // "dhcp-agent." (11) + "ns" + "." = 14 characters, then the pool name: the 253rd character
    // is the dot after "a" x 238, which is dropped with the rest.
    String longPool = "a".repeat(238) + ".b".repeat(20);
    String lock = AgentDeployment.lockName("ns", longPool);
    assertEquals("dhcp-agent.ns." + "a".repeat(238), lock);
    assertEquals(252, lock.length());
  }

  @Test
  void longPoolNamesGiveShortStableNames() {
    String longName = "a".repeat(60) + ".b";
    String name = AgentDeployment.name("tenant-a", longName);
    assertTrue(name.length() <= 52, name);
    assertTrue(name.startsWith("tenant-a-aaa"), name);
    assertTrue(name.endsWith("-agent"), name);
    assertEquals(name, AgentDeployment.name("tenant-a", longName));
    assertFalse(name.equals(AgentDeployment.name("tenant-a", "a".repeat(60) + ".c")));
    // upstream's name is ambiguous: a-b/c and a/b-c share one; the second is told it is taken
    assertEquals(AgentDeployment.name("a-b", "c"), AgentDeployment.name("a", "b-c"));
    IPPool first = pool();
    first.getMetadata().namespace("a-b").name("c");
    assertFalse(AgentDeployment.agentOf(render(first, "img:1", 1), "a/b-c"));
    String legacy = AgentDeployment.legacyName(longName);
    assertTrue(legacy.length() <= 52 && legacy.endsWith("-dhcp-agent"), legacy);
    assertEquals("net-48-dhcp-agent", AgentDeployment.legacyName("net-48"));
    assertTrue(AgentDeployment.poolLabel("x".repeat(80)).length() <= 63);
  }

  @Test
  void withoutLeaderElectionTheAgentsServeAtOnceAndThatIsADifference() {
    V1Deployment electing = render(pool(), "img:1", 1);
    V1Deployment solo =
        AgentDeployment.render(
            pool(),
            "vm-dhcp-system",
            "img:1",
            "IfNotPresent",
            1,
            false,
            false,
            AgentPlacement.DEFAULT,
            null);
    List<String> args = solo.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
    assertEquals("--no-leader-election", args.get(args.size() - 1));
    assertFalse(
        electing
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0)
            .getArgs()
            .contains("--no-leader-election"));
    assertTrue(AgentDeployment.differs(electing, solo));
  }

  @Test
  void withNoDhcpTheAgentsRunNoServerAndThatIsADifference() {
    V1Deployment serving = render(pool(), "img:1", 2);
    V1Deployment quiet = render(pool(), "img:1", 2, true);
    List<String> args = quiet.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
    assertEquals("--no-dhcp", args.get(args.size() - 1));
    assertFalse(
        serving
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0)
            .getArgs()
            .contains("--no-dhcp"));
    assertTrue(AgentDeployment.differs(serving, quiet));
  }

  @Test
  void agentsGoOnlyToNodesOfTheClusterNetworkAndNeverShareANodeByDefault() {
    V1Deployment d = render(pool(), "img:1", 2, false, AgentPlacement.DEFAULT, "mgmt-vlan");
    var affinity = d.getSpec().getTemplate().getSpec().getAffinity();
    var requirement =
        affinity
            .getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms()
            .get(0)
            .getMatchExpressions()
            .get(0);
    assertEquals(
        List.of("network.harvesterhci.io/mgmt-vlan", "In", List.of("true")),
        List.of(requirement.getKey(), requirement.getOperator(), requirement.getValues()));
    var apart = affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
    assertEquals(1, apart.size());
    assertEquals("kubernetes.io/hostname", apart.get(0).getTopologyKey());
    assertEquals(
        d.getSpec().getSelector().getMatchLabels(),
        apart.get(0).getLabelSelector().getMatchLabels(),
        "the replicas of this pool's agent repel each other, not other pools' agents");
    assertEquals("mgmt-vlan", AgentDeployment.clusterNetworkOf(d));
    assertTrue(
        AgentDeployment.differs(render(pool(), "img:1", 2), d),
        "a network that gains its cluster network label moves the agents");
  }

  @Test
  void withoutAClusterNetworkThereIsNoNodeAffinityAndPreferredSpreadIsSoft() {
    AgentPlacement soft = new AgentPlacement(Map.of(), List.of(), null, false);
    V1Deployment d = render(pool(), "img:1", 3, false, soft, null);
    var affinity = d.getSpec().getTemplate().getSpec().getAffinity();
    assertEquals(null, affinity.getNodeAffinity());
    var required =
        affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
    assertTrue(required == null || required.isEmpty(), String.valueOf(required));
    var preferred =
        affinity.getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution();
    assertEquals(100, preferred.get(0).getWeight());
    assertEquals("kubernetes.io/hostname", preferred.get(0).getPodAffinityTerm().getTopologyKey());
    assertEquals(null, AgentDeployment.clusterNetworkOf(d));
    assertTrue(AgentDeployment.differs(render(pool(), "img:1", 3), d));
  }

  @Test
  void nodeSelectorTolerationsAndResourcesComeFromTheFlagsAndCountAsOwned() {
    AgentPlacement placement =
        new AgentPlacement(
            AgentPlacement.parseNodeSelector("{\"zone\":\"a\",\"disk\":\"ssd\"}"),
            AgentPlacement.parseTolerations(
                "[{\"key\":\"dedicated\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]"),
            AgentPlacement.parseResources(
                "{\"requests\":{\"cpu\":\"0.01\",\"memory\":\"64Mi\"},\"limits\":{\"memory\":\"128Mi\"}}"),
            true);
    V1Deployment d = render(pool(), "img:1", 2, false, placement, "vlan");
    var pod = d.getSpec().getTemplate().getSpec();
    assertEquals(Map.of("zone", "a", "disk", "ssd"), pod.getNodeSelector());
    assertEquals("dedicated", pod.getTolerations().get(0).getKey());
    assertEquals("NoSchedule", pod.getTolerations().get(0).getEffect());
    assertEquals("10m", agent(d).getResources().getRequests().get("cpu").toSuffixedString());
    assertEquals("128Mi", agent(d).getResources().getLimits().get("memory").toSuffixedString());
    assertFalse(AgentDeployment.differs(d, render(pool(), "img:1", 2, false, placement, "vlan")));
    assertTrue(
        AgentDeployment.differs(
            d,
            render(
                pool(),
                "img:1",
                2,
                false,
                new AgentPlacement(Map.of(), List.of(), null, true),
                "vlan")));
    // the server's form of an unset resources field is {}, which is no difference
    V1Deployment plain = render(pool(), "img:1", 2, false, AgentPlacement.DEFAULT, "vlan");
    V1Deployment served = render(pool(), "img:1", 2, false, AgentPlacement.DEFAULT, "vlan");
    agent(served).resources(new io.kubernetes.client.openapi.models.V1ResourceRequirements());
    assertFalse(AgentDeployment.differs(served, plain));
  }

  @Test
  void badPlacementFlagsAreRefusedNamingTheFlag() {
    var e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> AgentPlacement.parseTolerations("{\"key\":1}"));
    assertTrue(
        e.getMessage().startsWith("--agent-tolerations '{\"key\":1}' is not valid JSON"),
        e.getMessage());
    var spread =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> AgentPlacement.parseSpread("soft"));
    assertTrue(spread.getMessage().contains("neither required nor preferred"), spread.getMessage());
  }

  @Test
  void theHoldAnnotationKeepsTheRunningAgentImageAndNothingElse() {
    V1Deployment running = render(pool(), "agent:1", 2);
    IPPool held = pool();
    held.getMetadata().putAnnotationsItem(AgentDeployment.HOLD_UPGRADE_ANNOTATION, "");
    assertEquals("agent:1", AgentDeployment.imageFor(held, running, "agent:2"));
    assertEquals(
        "agent:2",
        AgentDeployment.imageFor(pool(), running, "agent:2"),
        "without the annotation the agent is upgraded");
    assertEquals(
        "agent:2",
        AgentDeployment.imageFor(held, null, "agent:2"),
        "a pool without an agent gets the configured image");
  }
}
