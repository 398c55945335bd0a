package dev.elector.dhcp.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.server.Ipv4Cidr;
import dev.elector.ippool.IPPoolRef;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AgentConfigTest {

  private static AgentConfig parse(Map<String, String> env, String... args) {
    return AgentConfig.parse(args, env);
  }

  @Test
  void readsEveryFlag() {
    AgentConfig config =
        parse(
            Map.of(),
            "--ippool-ref",
            "default/net-48",
            "--nic",
            "net1",
            "--server-ip",
            "192.0.2.1",
            "--cidr",
            "192.0.2.0/24",
            "--kubeconfig",
            "/k",
            "--health-addr",
            "127.0.0.1:9090",
            "--expose-leases",
            "--identity",
            "a",
            "--lease-duration=3s",
            "--renew-deadline",
            "2s",
            "--retry-period",
            "500ms",
            "--dhcp-port",
            "1067",
            "--lock-name",
            "my-lock");

    assertEquals(new IPPoolRef("default", "net-48"), config.pool());
    assertEquals(Optional.of("net1"), config.nic());
    assertEquals(Optional.of(Ipv4Address.parse("192.0.2.1")), config.serverIp());
    assertEquals(Optional.of(Ipv4Cidr.parse("192.0.2.0/24")), config.cidr());
    assertEquals(Optional.of(Path.of("/k")), config.kubeconfig());
    assertEquals(9090, config.healthAddress().getPort());
    assertTrue(config.exposeLeases());
    assertEquals(Optional.of("a"), config.identity());
    assertEquals(Duration.ofSeconds(3), config.leaseDuration());
    assertEquals(Duration.ofSeconds(2), config.renewDeadline());
    assertEquals(Duration.ofMillis(500), config.retryPeriod());
    assertEquals(1067, config.dhcpPort());
    assertEquals("my-lock", config.lockName());
  }

  @Test
  void takesThePoolFromIppoolRefAndDefaultsTheRest() {
    AgentConfig config = parse(Map.of("IPPOOL_REF", "tenant-a/vlan-10"), "--nic", "net1");

    assertEquals(new IPPoolRef("tenant-a", "vlan-10"), config.pool());
    assertEquals("dhcp-agent.tenant-a.vlan-10", config.lockName());
    assertEquals(Duration.ofSeconds(15), config.leaseDuration());
    assertEquals(Duration.ofSeconds(10), config.renewDeadline());
    assertEquals(Duration.ofSeconds(2), config.retryPeriod());
    assertEquals(67, config.dhcpPort());
    assertEquals(AgentConfig.DEFAULT_HEALTH, config.healthAddress());
    assertEquals(Optional.empty(), config.serverIp());
  }

  @Test
  void leaderElectionIsOnUnlessNoLeaderElectionIsGiven() {
    assertTrue(parse(Map.of("IPPOOL_REF", "a/b"), "--dry-run").leaderElection());
    assertFalse(
        parse(Map.of("IPPOOL_REF", "a/b"), "--dry-run", "--no-leader-election").leaderElection(),
        "upstream's agent flag: serve at once, without a Lease");
  }

  @Test
  void theFlagWinsOverTheEnvironment() {
    assertEquals(
        "net-1",
        parse(Map.of("IPPOOL_REF", "a/b"), "--ippool-ref", "default/net-1", "--dry-run")
            .pool()
            .name());
  }

  @Test
  void aDryRunNeedsNoNic() {
    assertEquals(Optional.empty(), parse(Map.of(), "--ippool-ref", "a/b", "--dry-run").nic());
  }

  @Test
  void theNetworkStandsInForTheNicUntilItsInterfaceIsLookedUp() {
    AgentConfig config = parse(Map.of(), "--ippool-ref", "a/b", "--network", "default/net-48");

    assertEquals(Optional.of("default/net-48"), config.network());
    assertEquals(Optional.empty(), config.nic());
    assertEquals(AgentConfig.DEFAULT_POD_ANNOTATIONS, config.podAnnotations());
    AgentConfig resolved = config.withNic("net2");
    assertEquals(Optional.of("net2"), resolved.nic());
    assertEquals(config.pool(), resolved.pool());
    assertEquals(config.network(), resolved.network());
    assertEquals(config.lockName(), resolved.lockName());
    assertEquals(config.leaseDuration(), resolved.leaseDuration());
  }

  @Test
  void aNetworkMustBeNamespaceSlashName() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> parse(Map.of(), "--ippool-ref", "a/b", "--network", "net-48"));

    assertTrue(
        e.getMessage()
            .contains(
                "--network 'net-48' is not NAMESPACE/NAME of a" + " NetworkAttachmentDefinition"),
        e.getMessage());
  }

  @Test
  void listsEveryProblemWithItsFlagAndFix() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                parse(
                    Map.of(),
                    "--server-ip",
                    "10.0.0.1",
                    "--cidr",
                    "192.0.2.0/24",
                    "--lease-duration",
                    "fifteen",
                    "--retry-period",
                    "0s",
                    "--health-addr",
                    "8080",
                    "--frobnicate",
                    "x",
                    "stray"));

    String message = e.getMessage();
    assertTrue(
        message.contains(
            "IPPool reference is missing: pass --ippool-ref NAMESPACE/NAME or" + " set IPPOOL_REF"),
        message);
    assertTrue(
        message.contains("--network or --nic is missing: pass --network NAMESPACE/NAME"), message);
    assertTrue(message.contains("--server-ip 10.0.0.1 is outside --cidr 192.0.2.0/24"), message);
    assertTrue(
        message.contains("--lease-duration 'fifteen' is not a duration; write it like 15s"),
        message);
    assertTrue(message.contains("--retry-period 0s must be positive"), message);
    assertTrue(message.contains("--health-addr '8080' is not HOST:PORT"), message);
    assertTrue(message.contains("unknown flag --frobnicate"), message);
    assertTrue(message.contains("unexpected argument 'stray'"), message);
  }

  @Test
  void rejectsAMalformedPoolReferenceAndABadInterfaceName() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> parse(Map.of(), "--ippool-ref", "net-48", "--nic", "a very long interface name"));

    assertTrue(
        e.getMessage().contains("'net-48' is not of the form NAMESPACE/NAME"), e.getMessage());
    assertTrue(e.getMessage().contains("is not a network interface name"), e.getMessage());
  }

  @Test
  void rejectsAddressesThatAreNotIpv4() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                parse(
                    Map.of(),
                    "--ippool-ref",
                    "a/b",
                    "--dry-run",
                    "--server-ip",
                    "300.1.1.1",
                    "--cidr",
                    "192.0.2.0"));

    assertTrue(
        e.getMessage()
            .contains("--server-ip '300.1.1.1' is not an IPv4 address like" + " 192.0.2.1"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains("--cidr '192.0.2.0' is not a network like 192.0.2.0/24"),
        e.getMessage());
  }

  @Test
  void rejectsAFlagGivenTwiceOrWithoutValue() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> parse(Map.of(), "--ippool-ref", "a/b", "--nic", "x", "--nic", "y", "--cidr"));

    assertTrue(e.getMessage().contains("--nic is given twice"), e.getMessage());
    assertTrue(e.getMessage().contains("--cidr needs a value"), e.getMessage());
  }

  @Test
  void helpListsEveryFlagWithItsDefault() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);

    assertTrue(AgentConfig.printHelpOrVersion(new String[] {"--nic", "bad name", "--help"}, print));
    String usage = out.toString(StandardCharsets.UTF_8);
    assertTrue(usage.startsWith("Usage: dhcp-agent [-hV]"), usage);
    for (String flag :
        List.of(
            "--ippool-ref=NAMESPACE/NAME",
            "--network=NAMESPACE/NAME",
            "--pod-annotations=PATH",
            "--nic=IFACE",
            "--server-ip=IP",
            "--cidr=CIDR",
            "--dry-run",
            "--kubeconfig=PATH",
            "--health-addr=HOST:PORT",
            "--expose-leases",
            "--lock-name=NAME",
            "--identity=ID",
            "--lease-duration=D",
            "--renew-deadline=D",
            "--retry-period=D",
            "--dhcp-port=N",
            "--version")) {
      assertTrue(usage.contains(flag), flag + " in\n" + usage);
    }
    assertTrue(usage.contains("(default 0.0.0.0:8080)"), usage);
    assertTrue(usage.contains("(default 15s)"), usage);
    assertTrue(usage.contains("/etc/podinfo/annotations)"), usage);

    out.reset();
    assertTrue(AgentConfig.printHelpOrVersion(new String[] {"--version"}, print));
    assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("dhcp-agent "), out.toString());
    assertFalse(AgentConfig.printHelpOrVersion(new String[] {"--dry-run"}, print));
  }

  @Test
  void upstreamsFlagsAreAcceptedWithUpstreamsMeaning() {
    AgentConfig config =
        parse(
            Map.of("IPPOOL_REF", "default/net-48"),
            "--no-dhcp",
            "--enable-cache-dump-api",
            "--kubecontext",
            "lab",
            "--debug");
    assertTrue(config.noDhcp(), "--no-dhcp needs neither --network nor --nic");
    assertTrue(config.exposeLeases(), "--enable-cache-dump-api is --expose-leases");
    assertEquals(Optional.of("lab"), config.kubecontext());
    assertEquals("debug", config.logLevel());
    assertEquals("trace", parse(Map.of(), "--ippool-ref=a/b", "--nic=n", "--trace").logLevel());
    AgentConfig fromEnv =
        parse(
            Map.of("IPPOOL_REF", "a/b", "KUBECONTEXT", "other", "VM_DHCP_AGENT_DEBUG", "true"),
            "--nic=n");
    assertEquals(Optional.of("other"), fromEnv.kubecontext());
    assertEquals("debug", fromEnv.logLevel());
    assertEquals("info", parse(Map.of(), "--ippool-ref=a/b", "--nic=n").logLevel());
  }
}
