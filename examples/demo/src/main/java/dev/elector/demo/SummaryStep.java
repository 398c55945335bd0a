package dev.elector.demo;

import java.util.List;

/**
 * The end: the terms of every agent and controller from their events, the addresses served, and the
 * checks that no address went to two MACs and no two processes of a role led at once.
 */
final class SummaryStep {
  private final DemoRun run;
  private final AgentsStep agents;
  private final ControllersStep controllers;

  SummaryStep(DemoRun run, AgentsStep agents, ControllersStep controllers) {
    this.run = run;
    this.agents = agents;
    this.controllers = controllers;
  }

  void conclude() {
    DemoSummary summary = run.summary;
    for (LocalKubelet.Pod pod : agents.pods()) {
      addTerms(pod.log().events(), "agent", pod.name(), pod.alive() ? null : "killed");
      for (EventLine e : pod.log().events()) {
        if (e.kind().equals("reply") && List.of("OFFERED", "ACKED").contains(e.get("kind"))) {
          summary.served(e.get("ip"), e.get("mac"), e.get("kind"));
        }
      }
    }
    for (ProcessLog log : controllers.logs()) {
      addTerms(log.events(), "controller", log.source(), null);
    }
    summary.check(
        "no address was handed to two MACs",
        summary.servedTo.values().stream().allMatch(macs -> macs.size() == 1));
    summary.check("no two agents led at once", !summary.overlapping("agent"));
    summary.check("no two controllers led at once", !summary.overlapping("controller"));
    if (run.lab.isEmpty()) {
      summary.notes.add("no DHCP packets were exchanged on this machine; see the DHCP line");
    }
  }

  /** One term per leading event, ended by the next stop; {@code fate} ends one still open. */
  private void addTerms(List<EventLine> events, String role, String who, String fate) {
    long startMillis = run.progress.startMillis();
    EventLine open = null;
    for (EventLine e : events) {
      if (e.kind().equals("leading")) {
        open = e;
      } else if ((e.kind().equals("stopped") || e.kind().equals("stopped_leading"))
          && open != null) {
        run.summary.terms.add(
            new DemoSummary.Term(
                who,
                role,
                Long.parseLong(open.get("token")),
                (open.epochMillis() - startMillis) / 1000.0,
                (e.epochMillis() - startMillis) / 1000.0,
                e.get("reason")));
        open = null;
      }
    }
    if (open != null) {
      double end = fate == null ? -1 : (run.killedAtMillis - startMillis) / 1000.0;
      run.summary.terms.add(
          new DemoSummary.Term(
              who,
              role,
              Long.parseLong(open.get("token")),
              (open.epochMillis() - startMillis) / 1000.0,
              end,
              fate == null ? "leading at the end" : fate));
    }
  }
}
