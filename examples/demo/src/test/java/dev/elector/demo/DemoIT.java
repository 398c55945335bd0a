package dev.elector.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.elector.dhcp.lab.NetLab;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's main command in its shortened mode, end to end: local control plane, controllers,
 * agents from the rendered Deployment, a VM with a real DHCP client, the leader killed. Checks the
 * summary the demo writes, and that it printed its timeline and result.
 */
class DemoIT {
  @TempDir Path work;

  @Test
  void theDemoRunsEndToEndAndItsSummaryHoldsUp() throws Exception {
    NetLab.Result tools =
        NetLab.run(
            300,
            "bash",
            System.getenv()
                .getOrDefault(
                    "DHCP_CLIENT_INSTALL_SCRIPT",
                    "../../dhcp-agent-example/scripts/install-dhcp-client.sh"));
    assertTrue(tools.ok(), "installing the lab tools failed: " + tools.output());
    runAndCheck(NetLab.unavailableReason().isEmpty());
  }

  @Test
  void withoutNetworkNamespacesTheDemoSaysWhatItDoesInsteadAndStillChecksTheFailover()
      throws Exception {
    String output = runAndCheck(false, "--no-netns");

    assertTrue(
        output.contains("network namespaces are not available here: --no-netns was" + " given"),
        output);
    assertTrue(output.contains("reads the VM's lease from the leader's /leases"), output);
  }

  private String runAndCheck(boolean realDhcp, String... extra) throws Exception {
    Path summaryFile = work.resolve("summary-" + extra.length + ".json");
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "--quick",
                "--summary",
                summaryFile.toString(),
                "--work",
                work.resolve("run-" + extra.length).toString(),
                "--manifests",
                "../../deploy"));
    args.addAll(java.util.List.of(extra));

    DemoSummary summary =
        new Demo(
                Demo.Options.parse(args.toArray(String[]::new)),
                new PrintStream(printed, true, StandardCharsets.UTF_8))
            .run();

    String output = printed.toString(StandardCharsets.UTF_8);
    System.out.println(output);
    JsonObject json = JsonParser.parseString(Files.readString(summaryFile)).getAsJsonObject();
    assertTrue(json.get("ok").getAsBoolean(), "the demo's checks failed:\n" + output);
    assertTrue(summary.ok());
    JsonObject vm = json.getAsJsonObject("vm");
    String allocated = vm.get("allocatedIp").getAsString();
    assertTrue(allocated.startsWith("192.168.48."), allocated);
    assertEquals(allocated, vm.get("renewedIp").getAsString());
    assertEquals(realDhcp, json.get("dhcp").getAsString().startsWith("real client"));
    if (realDhcp) {
      assertEquals(allocated, vm.get("boundIp").getAsString());
      assertTrue(json.getAsJsonObject("servedTo").has(allocated));
      assertEquals(
          "[\"" + Demo.VM_MAC + "\"]", json.getAsJsonObject("servedTo").get(allocated).toString());
    }
    JsonObject failover = json.getAsJsonObject("failoverMillis");
    long serving = failover.get("kill -> new leader serving").getAsLong();
    assertTrue(serving > 0 && serving < 15_000, "failover " + serving + " ms");
    assertNotNull(json.get("killed").getAsString());
    long agentTerms =
        json.getAsJsonArray("terms").asList().stream()
            .filter(t -> t.getAsJsonObject().get("role").getAsString().equals("agent"))
            .count();
    assertTrue(agentTerms >= 2, "the killed leader's term and its successor's");
    assertTrue(
        output.contains("the controller made VirtualMachineNetworkConfig ")
            && output.contains("/vm-1 from the VirtualMachine: " + Demo.VM_MAC + " on "),
        "the VM config comes from the VirtualMachine:\n" + output);
    assertTrue(
        json.getAsJsonObject("checks").size() >= (realDhcp ? 13 : 10),
        json.getAsJsonObject("checks").toString());
    assertTrue(
        output.contains("the admission webhook refused IPPool ")
            && output.contains("/bad-pool (serverIP = router): admission webhook ")
            && output.contains("is the router's address"),
        "the API server called the replicas' webhook, which refused the bad pool:\n" + output);
    assertTrue(output.contains("where to look (read while it ran)"), output);
    assertTrue(
        output.contains("leader_election_master_status{name=\"ippool-controller\"} 1.0"),
        "client-go's gauge of the leading controller, as read during the run:\n" + output);
    assertTrue(output.contains("Normal Allocated " + allocated + " to " + Demo.VM_MAC), output);
    assertFalse(
        output.contains("MultusNotInstalled") || output.contains("NetworkNotFound"),
        "the demo gives its pool a NetworkAttachmentDefinition:\n" + output);
    assertTrue(output.contains("RESULT: OK"), output);
    assertTrue(output.contains("LEADS the agents"), "the live timeline was printed");
    assertFalse(output.contains("FAILED"), output);
    return output;
  }
}
