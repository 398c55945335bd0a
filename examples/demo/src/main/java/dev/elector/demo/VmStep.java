package dev.elector.demo;

import static dev.elector.demo.Demo.VM_MAC;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The VM: a namespace on the pool's segment whose DHCP client gets the allocated address; or, where
 * there are no network namespaces, the VM's lease as the leading agent's /leases shows it.
 */
final class VmStep implements AutoCloseable {
  private final DemoRun run;
  private final AgentsStep agents;
  private VmClient client;

  VmStep(DemoRun run, AgentsStep agents) {
    this.run = run;
    this.agents = agents;
  }

  /** The VM's DHCP client, when the machine runs one. */
  Optional<VmClient> client() {
    return Optional.ofNullable(client);
  }

  /**
   * Boots the VM and checks that it got the address the controller allocated from {@code leader}.
   */
  void firstLease(LocalKubelet.Pod leader) throws Exception {
    DemoSummary summary = run.summary;
    if (run.lab.isEmpty()) {
      summary.boundIp = leaseOf(leader);
      summary.boundFrom = leader.name() + " (/leases)";
      run.progress.step(
          "the leading agent "
              + leader.name()
              + " would serve "
              + summary.boundIp
              + " to "
              + VM_MAC
              + " (from its /leases)");
      summary.check(
          "the leader's lease cache holds exactly the address the controller allocated",
          summary.allocatedIp.equals(summary.boundIp));
      return;
    }
    client = new VmClient(run.lab.get(), "vm1", VM_MAC, run.work);
    client.start();
    run.progress.step("VM vm-1 boots: udhcpc runs on its NIC " + VM_MAC);
    Map<String, String> bound = client.await("bound", Duration.ofSeconds(30));
    summary.boundIp = bound.get("ip");
    summary.boundFrom =
        agents.replier(VM_MAC, "ACKED", Long.MIN_VALUE).orElse("?")
            + " (server "
            + bound.get("serverid")
            + ")";
    run.progress.step(
        "VM vm-1 is bound to "
            + bound.get("ip")
            + "/"
            + bound.get("mask")
            + ", router "
            + bound.get("router")
            + ", dns "
            + bound.get("dns")
            + ", lease "
            + bound.get("lease")
            + " s, from server "
            + bound.get("serverid"));
    summary.check(
        "the VM's DHCP client got exactly the address the controller allocated",
        summary.allocatedIp.equals(summary.boundIp));
    summary.check(
        "the leader holds the server address on its NIC",
        leader.host().map(h -> h.addresses().contains("192.168.48.2/24")).orElse(false));
  }

  /** The VM's address in an agent's /leases (the agent must run without namespaces). */
  String leaseOf(LocalKubelet.Pod pod) throws Exception {
    EventLine started =
        pod.log().awaitFirst(e -> e.kind().equals("started"), Duration.ofSeconds(10), "started");
    String body =
        run.http
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + started.get("health") + "/leases"))
                    .build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
            .body();
    JsonObject dump = JsonParser.parseString(body).getAsJsonObject();
    JsonElement leases = dump.get("leases");
    JsonElement ip =
        leases == null || !leases.isJsonObject()
            ? null
            : leases.getAsJsonObject().get(VM_MAC.toString());
    return ip == null || ip.isJsonNull() ? "none" : ip.getAsString();
  }

  @Override
  public void close() {
    if (client != null) {
      client.close();
    }
  }
}
