package dev.elector.demo;

import static dev.elector.demo.Demo.VM_MAC;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;

/**
 * The failover: once the standby agents have their lease cache, the leading agent is killed without
 * warning; the step measures from the kill to the new leader's election, its serving and its first
 * answer to the VM, and checks the VM kept its address.
 */
final class FailoverStep {
  private final DemoRun run;
  private final AgentsStep agents;
  private final VmStep vm;

  FailoverStep(DemoRun run, AgentsStep agents, VmStep vm) {
    this.run = run;
    this.agents = agents;
    this.vm = vm;
  }

  void run(LocalKubelet.Pod leader) throws Exception {
    DemoSummary summary = run.summary;
    for (LocalKubelet.Pod standby : agents.pods()) {
      if (standby != leader && standby.alive()) {
        standby
            .log()
            .awaitFirst(e -> e.kind().equals("synced"), Duration.ofSeconds(30), "synced event");
      }
    }
    run.progress.step(
        "killing the leading agent "
            + leader.name()
            + " without warning (SIGKILL;"
            + (leader.host().isPresent()
                ? " its network namespace vanishes, as with a crashed node)"
                : " as with a crashed node)"));
    long killed = System.nanoTime();
    run.killedAtMillis = System.currentTimeMillis();
    summary.killed = leader.name();
    agents.kubelet().crash(leader);
    for (LocalKubelet.Pod pod : agents.replaceLost()) {
      run.progress.step("the Deployment replaces the lost pod: " + pod.name() + " starts");
    }
    LocalKubelet.Pod next = agents.awaitServing(leader);
    EventLine leading = first(next, "leading", killed);
    EventLine serving = first(next, "serving", killed);
    summary.failoverMillis.put(
        "kill -> new leader elected", (leading.monoNanos() - killed) / 1_000_000);
    summary.failoverMillis.put(
        "kill -> new leader serving", (serving.monoNanos() - killed) / 1_000_000);
    if (vm.client().isPresent()) {
      VmClient client = vm.client().get();
      client.forget("renew");
      client.renewNow();
      Map<String, String> renewed = client.await("renew", Duration.ofSeconds(30));
      EventLine answer =
          next.log()
              .awaitFirst(
                  e -> e.kind().equals("reply") && e.monoNanos() > killed,
                  Duration.ofSeconds(10),
                  "reply after the kill");
      summary.renewedIp = renewed.get("ip");
      summary.renewedFrom = next.name() + " (server " + renewed.get("serverid") + ")";
      summary.failoverMillis.put(
          "kill -> first answer of the new leader", (answer.monoNanos() - killed) / 1_000_000);
      run.progress.step(
          "VM vm-1 renewed " + renewed.get("ip") + " from the new leader " + next.name());
      summary.check(
          "the VM kept its address after the failover",
          summary.allocatedIp.equals(summary.renewedIp));
      summary.check(
          "the new leader answered the VM's renewal",
          agents.replier(VM_MAC, "ACKED", killed).map(next.name()::equals).orElse(false));
      summary.check(
          "the server address moved to the new leader's NIC",
          next.host().map(h -> h.addresses().contains("192.168.48.2/24")).orElse(false));
    } else {
      summary.renewedIp = vm.leaseOf(next);
      summary.renewedFrom = next.name() + " (/leases)";
      summary.check(
          "the new leader's lease cache holds the VM's address",
          summary.allocatedIp.equals(summary.renewedIp));
    }
    summary.check(
        "a failover time was measured",
        summary.failoverMillis.get("kill -> new leader serving") > 0);
  }

  private static EventLine first(LocalKubelet.Pod pod, String kind, long afterNanos)
      throws IOException {
    return pod.log().events().stream()
        .filter(e -> e.kind().equals(kind) && e.monoNanos() > afterNanos)
        .findFirst()
        .orElseThrow(() -> new IOException(pod.name() + " printed no " + kind + " event"));
  }
}
