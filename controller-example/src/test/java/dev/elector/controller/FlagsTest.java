package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlagsTest {

  private static String rejected(String... args) {
    return assertThrows(Flags.FlagException.class, () -> Flags.parse(args)).getMessage();
  }

  @Test
  void noFlagsGiveTheDefaults() {
    Flags flags = Flags.parse();
    ControllerConfig config = flags.config().build();
    assertEquals("ghcr.io/elector-dev/dhcp-agent:0.1.0", config.agentImage());
    assertEquals(2, config.agentReplicas());
    assertEquals(Duration.ofSeconds(15), config.leaseDuration());
    assertEquals("0.0.0.0:8080", flags.health().toString());
    assertNull(flags.kubeconfig());
    assertTrue(config.identity().isEmpty());
    assertEquals("IfNotPresent", config.agentImagePullPolicy());
    assertTrue(config.agentNamespace().isEmpty(), "the controller's own");
  }

  @Test
  void theAgentsNamespaceAndPullPolicyAreFlagsAndBadOnesNameTheFix() {
    ControllerConfig config =
        Flags.parse("--agent-image-pull-policy=Always", "--agent-namespace", "dhcp-agents")
            .config()
            .build();
    assertEquals("Always", config.agentImagePullPolicy());
    assertEquals("dhcp-agents", config.agentNamespace().orElseThrow());
    assertEquals("dhcp-agents", config.resolvedAgentNamespace());
    assertEquals(
        "lease-ns",
        ControllerConfig.newBuilder().leaseNamespace("lease-ns").build().resolvedAgentNamespace(),
        "by default the agents run where the controller's Lease is");
    assertTrue(
        rejected("--agent-image-pull-policy", "sometimes")
            .contains(
                "agentImagePullPolicy (--agent-image-pull-policy) 'sometimes' is none of Always,"
                    + " IfNotPresent, Never"));
    assertTrue(
        rejected("--agent-namespace", "Not_A_Namespace")
            .contains("agentNamespace (--agent-namespace) 'Not_A_Namespace' is not a namespace"));
  }

  @Test
  void flagsTakeTheirValueAfterASpaceOrAnEqualsSign() {
    ControllerConfig config =
        Flags.parse(
                "--agent-image",
                "reg/agent:2",
                "--agent-replicas=3",
                "--lease-duration",
                "6s",
                "--renew-deadline=PT4S",
                "--retry-period",
                "500ms",
                "--identity",
                "replica-a",
                "--workers",
                "4")
            .config()
            .build();
    assertEquals("reg/agent:2", config.agentImage());
    assertEquals(3, config.agentReplicas());
    assertEquals(Duration.ofSeconds(6), config.leaseDuration());
    assertEquals(Duration.ofSeconds(4), config.renewDeadline());
    assertEquals(Duration.ofMillis(500), config.retryPeriod());
    assertEquals("replica-a", config.identity().orElseThrow());
    assertEquals(4, config.workers());
  }

  @Test
  void aBadDurationNamesTheFlagAndTheForm() {
    assertEquals(
        "--lease-duration '15x' is not a duration; write it like 15s, 500ms, 2m, 1m30s"
            + " or PT15S",
        rejected("--lease-duration", "15x"));
    assertTrue(rejected("--retry-period", "0s").contains("--retry-period 0s must be positive"));
  }

  @Test
  void timingsThatBreakTheElectorRulesNameBothFlags() {
    String message = rejected("--lease-duration", "5s", "--renew-deadline", "8s");
    assertTrue(
        message.contains(
            "renewDeadline (--renew-deadline) PT8S must be shorter than"
                + " leaseDuration (--lease-duration) PT5S"),
        message);
  }

  @Test
  void otherBadValuesNameTheFlagAndTheFix() {
    assertTrue(
        rejected("--agent-replicas", "two")
            .startsWith("--agent-replicas 'two' is not a" + " whole number"));
    assertTrue(
        rejected("--agent-replicas", "0")
            .contains("agentReplicas (--agent-replicas) 0" + " must be 1 to 100"));
    assertTrue(
        rejected("--health-addr", "localhost")
            .startsWith("--health-addr 'localhost' is" + " not HOST:PORT"));
    assertTrue(
        rejected("--kubeconfig", "/no/such/file")
            .startsWith("--kubeconfig /no/such/file" + " cannot be read"));
    assertEquals(
        "--agent-image needs a value, for example --agent-image IMAGE", rejected("--agent-image"));
    assertTrue(
        rejected("--agnet-image", "x")
            .startsWith("unknown flag --agnet-image; known" + " flags: --kubeconfig"));
    assertTrue(rejected("--identity", "a", "--identity", "b").contains("given twice"));
  }

  @Test
  void helpAndVersionAreAnsweredWithoutValidatingTheRest() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);

    assertTrue(
        Flags.parse("--help", "--lease-duration", "5s", "--renew-deadline", "8s")
            .printHelpOrVersion(print));
    String usage = out.toString(StandardCharsets.UTF_8);
    assertTrue(usage.startsWith("Usage: ippool-controller [-hV]"), usage);
    for (String flag :
        List.of(
            "--kubeconfig=PATH",
            "--agent-image=IMAGE",
            "--agent-replicas=N",
            "--lease-duration=D",
            "--renew-deadline=D",
            "--retry-period=D",
            "--health-addr=HOST:PORT",
            "--identity=ID",
            "--lease-name=NAME",
            "--workers=N",
            "--version")) {
      assertTrue(usage.contains(flag), flag + " in\n" + usage);
    }
    assertTrue(usage.contains("(default 0.0.0.0:8080; port 0 picks one)"), usage);

    out.reset();
    assertTrue(Flags.parse("-V").printHelpOrVersion(print));
    assertTrue(
        out.toString(StandardCharsets.UTF_8).startsWith("ippool-controller "), out.toString());
    assertFalse(Flags.parse().printHelpOrVersion(print));
  }

  @Test
  void upstreamsFlagsHaveUpstreamsMeaning() {
    Flags flags =
        Flags.parse(
            "--no-leader-election",
            "--no-agent",
            "--no-dhcp",
            "--enable-cache-dump-api",
            "--kubecontext",
            "lab",
            "--debug",
            "--service-cidr",
            "10.96.0.0/12");
    ControllerConfig config = flags.config().build();
    assertFalse(config.leaderElection());
    assertFalse(config.agents());
    assertFalse(config.dhcp());
    assertTrue(flags.cacheDumpApi());
    assertEquals("lab", flags.kubecontext());
    assertEquals("debug", flags.logLevel());
    assertEquals("10.96.0.0/12", config.serviceCidr().orElseThrow());
    assertEquals("trace", Flags.parse("--trace").logLevel());
    ControllerConfig defaults = Flags.parse().config().build();
    assertTrue(defaults.leaderElection() && defaults.agents() && defaults.dhcp());
    assertEquals("10.53.0.0/16", defaults.serviceCidr().orElseThrow());
    assertTrue(Flags.parse("--service-cidr", "").config().build().serviceCidr().isEmpty());
  }

  @Test
  void agentsWithoutLeaderElectionAreRenderedForOneReplicaOnly() {
    assertTrue(Flags.parse().config().build().agentLeaderElection());
    assertFalse(
        Flags.parse("--agent-no-leader-election", "--agent-replicas", "1")
            .config()
            .build()
            .agentLeaderElection());
    String refused = rejected("--agent-no-leader-election");
    assertTrue(
        refused.contains(
            "agentLeaderElection false (--agent-no-leader-election) needs agentReplicas"
                + " (--agent-replicas) 1, not 2"),
        refused);
  }

  @Test
  void badServiceCidrAndWebhookFlagsNameTheFix() {
    assertTrue(
        rejected("--service-cidr", "10.96.0.0")
            .contains("serviceCidr (--service-cidr) '10.96.0.0'" + " is not an IPv4 CIDR"));
    assertTrue(rejected("--register-webhooks").contains("need --webhook-addr"));
    assertTrue(
        rejected("--webhook-addr=0.0.0.0:8443", "--webhook-cert-dir=/tls", "--webhook-secret=s")
            .contains("give one"));
    assertTrue(
        rejected("--webhook-addr=0.0.0.0:8443", "--webhook-url=http://x:1/")
            .contains("is not https://HOST:PORT without a path"));
    assertTrue(
        rejected("--webhook-addr=0.0.0.0:8443", "--webhook-service=svc")
            .contains("is not NAMESPACE/NAME[:PORT]"));
  }

  @Test
  void shardsDefaultToASingleLeaderAndTakeACount() {
    assertEquals(0, Flags.parse().config().build().shards());
    assertEquals(6, Flags.parse("--shards", "6").config().build().shards());
  }

  @Test
  void badShardSettingsNameTheFlagAndTheFix() {
    String tooMany = rejected("--shards", "65");
    assertTrue(tooMany.contains("shards (--shards) 65 must be 0 (one leader) to 64"), tooMany);
    String negative = rejected("--shards=-1");
    assertTrue(negative.contains("shards (--shards) -1"), negative);
    String noElection = rejected("--shards", "4", "--no-leader-election");
    assertTrue(noElection.contains("needs leader election; drop --no-leader-election"), noElection);
    String longName = rejected("--shards", "4", "--lease-name", "x".repeat(41));
    assertTrue(longName.contains("cannot name a shard group"), longName);
    String upper = rejected("--shards", "4", "--lease-name", "IPPool");
    assertTrue(upper.contains("leaseName (--lease-name) 'IPPool'"), upper);
    // without shards the Lease name is not a group's prefix
    assertEquals(
        41, Flags.parse("--lease-name", "x".repeat(41)).config().build().leaseName().length());
  }
}
