package dev.elector.demo;

import dev.elector.dhcp.codec.MacAddress;
import dev.elector.examples.CommandLines;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The whole system on one machine, with one command: a real kube-apiserver (the local control plane
 * of {@code testenv/}, or a cluster from {@code --kubeconfig}), the CRDs and the shipped RBAC, two
 * replicas of the IPPool controller and the DHCP agent Deployment it renders, run as local
 * processes, an IPPool and a KubeVirt VirtualMachine (from which the controller makes the
 * VirtualMachineNetworkConfig), and a VM whose real DHCP client (Debian's udhcpc in a network
 * namespace) gets the address the controller allocated. Then the leading agent is killed and the
 * live timeline shows the handover; the VM renews its address from the new leader. A summary (who
 * led when, failover times, addresses served, checks) ends the run and is written as JSON.
 *
 * <p>Each step is a class of its own: {@link ControlPlaneStep}, {@link ClusterObjectsStep}, {@link
 * ControllersStep} (with the admission webhook), {@link AgentsStep}, {@link VmStep}, {@link
 * FailoverStep} and {@link SummaryStep}; they share the {@link DemoRun}. Exits 0 when every check
 * passed, 1 when one failed, 2 on bad arguments.
 */
public final class Demo {
  static final String CONTROLLER_NAMESPACE = "vm-dhcp-system";
  static final String CONTROLLER_SA = "ippool-controller";
  static final String POOL = "net-48";
  static final MacAddress VM_MAC = MacAddress.parse("52:54:00:48:00:01");

  /** The demo's settings. */
  record Options(
      boolean quick,
      boolean noNetns,
      Optional<Path> kubeconfig,
      Optional<Path> summary,
      Optional<Path> work,
      Path manifests) {

    /**
     * Reads a command line.
     *
     * @throws IllegalArgumentException naming every problem and its fix
     */
    static Options parse(String... args) {
      Cli cli = new Cli();
      CommandLine line = CommandLines.create(cli);
      CommandLines.Parsed parsed = CommandLines.parse(line, args);
      if (!parsed.problems().isEmpty()) {
        throw new IllegalArgumentException(String.join("; ", parsed.problems()));
      }
      return cli.options();
    }

    /** Elector timings of the demo's processes: short, so a failover fits in a demo. */
    List<String> timings() {
      return quick
          ? List.of("--lease-duration", "3s", "--renew-deadline", "2s", "--retry-period", "500ms")
          : List.of("--lease-duration", "4s", "--renew-deadline", "3s", "--retry-period", "1s");
    }
  }

  /** The command line, as picocli reads it. */
  @Command(
      name = "demo",
      description = {
        "Runs the IPPool controller (2 replicas) and the DHCP agents it deploys as local processes"
            + " on a real kube-apiserver, a VM with a real DHCP client, kills the leading agent,"
            + " and prints a live timeline and a summary.",
        "Exits 0 when every check passed, 1 when one failed, 2 on bad arguments."
      })
  static final class Cli {
    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "print this help and exit")
    boolean help;

    @Option(names = "--quick", description = "the shortened mode CI runs (shorter timings)")
    boolean quick;

    @Option(
        names = "--no-netns",
        description =
            "run without network namespaces even where the machine allows them (the demo does so"
                + " by itself where it does not: not root, no iproute2 or socat, or --kubeconfig)")
    boolean noNetns;

    @Option(
        names = "--kubeconfig",
        paramLabel = "PATH",
        description = "run against this cluster instead of the local control plane")
    Path kubeconfig;

    @Option(
        names = "--summary",
        paramLabel = "FILE",
        description = "where to write the summary as JSON (default: WORK/demo-summary.json)")
    Path summary;

    @Option(
        names = "--work",
        paramLabel = "DIR",
        description = "where logs and kubeconfigs go (default: a new temporary directory)")
    Path work;

    @Option(
        names = "--manifests",
        paramLabel = "DIR",
        description = "the deploy/ directory of the repository (default: ${DEFAULT-VALUE})")
    Path manifests = Path.of("deploy");

    Options options() {
      List<String> problems = new ArrayList<>();
      if (kubeconfig != null && !Files.isReadable(kubeconfig)) {
        problems.add("--kubeconfig " + kubeconfig + " cannot be read; pass a readable kubeconfig");
      }
      if (!Files.isReadable(manifests.resolve("controller/rbac.yaml"))) {
        problems.add(
            "cannot find "
                + manifests.resolve("controller/rbac.yaml")
                + "; run the demo from the repository root or pass --manifests DIR");
      }
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException(String.join("; ", problems));
      }
      return new Options(
          quick,
          noNetns,
          Optional.ofNullable(kubeconfig),
          Optional.ofNullable(summary),
          Optional.ofNullable(work),
          manifests);
    }
  }

  private final DemoRun run;

  Demo(Options options, PrintStream out) {
    this.run = new DemoRun(options, new Progress(out, System.currentTimeMillis()));
  }

  public static void main(String[] args) throws Exception {
    // The demo prints its own timeline; the libraries' INFO lines in this JVM would clutter it.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    Cli cli = new Cli();
    CommandLine line = CommandLines.create(cli);
    CommandLines.Parsed parsed = CommandLines.parse(line, args);
    if (CommandLines.printHelpOrVersion(line, parsed, System.out)) {
      return;
    }
    Options options;
    try {
      if (!parsed.problems().isEmpty()) {
        throw new IllegalArgumentException(String.join("; ", parsed.problems()));
      }
      options = cli.options();
    } catch (IllegalArgumentException e) {
      System.err.println("demo: " + e.getMessage());
      System.exit(CommandLines.USAGE_ERROR);
      return;
    }
    DemoSummary summary = new Demo(options, System.out).run();
    System.exit(summary.ok() ? 0 : 1);
  }

  /** Runs the demo and returns its summary (also printed, and written if asked). */
  DemoSummary run() throws Exception {
    DemoSummary summary = run.summary;
    summary.vmMac = VM_MAC.toString();
    run.work =
        run.options.work().isPresent()
            ? Files.createDirectories(run.options.work().get())
            : Files.createTempDirectory("elector-demo-");
    run.progress.print(
        "Elector demo: leader-elected IPPool controller and DHCP agents on a real"
            + " kube-apiserver");
    run.progress.print("logs and kubeconfigs in " + run.work);
    ControlPlaneStep controlPlane = new ControlPlaneStep(run);
    run.cluster = controlPlane.start();
    ControllersStep controllers = new ControllersStep(run);
    AgentsStep agents = new AgentsStep(run);
    VmStep vm = new VmStep(run, agents);
    try {
      controlPlane.prepare();
      ClusterObjectsStep objects = new ClusterObjectsStep(run);
      objects.ensureKubeVirt();
      controllers.start();
      controllers.webhookRefusesABadPool();
      objects.createNetworkPoolAndVm();
      LocalKubelet.Pod leader = agents.start();
      vm.firstLease(leader);
      new FailoverStep(run, agents, vm).run(leader);
      controllers.observe();
      new SummaryStep(run, agents, controllers).conclude();
    } catch (Exception | AssertionError e) {
      summary.check("the demo ran to the end (" + e + ")", false);
      run.progress.step("FAILED: " + e);
    } finally {
      vm.close();
      agents.close();
      controllers.close();
      run.lab.ifPresent(l -> l.close());
      run.cluster.close();
    }
    summary.render(run.progress);
    Path file = run.options.summary().orElse(run.work.resolve("demo-summary.json"));
    summary.write(file);
    run.progress.print("summary written to " + file);
    return summary;
  }
}
