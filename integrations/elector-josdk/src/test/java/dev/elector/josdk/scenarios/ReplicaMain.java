package dev.elector.josdk.scenarios;

import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.fabric8.Fabric8LeaseLock;
import dev.elector.josdk.TermScopedOperator;
import dev.elector.kube.KubeLock;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * One replica of the Greeting operator. With {@code --elector elector} (the default) it leads on
 * Elector's fabric8 Lease lock and runs a fresh JOSDK operator per term (elector-josdk's {@link
 * TermScopedOperator}); with {@code --elector josdk} it uses JOSDK's built-in leader election
 * instead, for comparison. Prints {@code EVENT} lines (see {@link Events}) on standard output;
 * SIGTERM closes the elector, which stops the operator and releases the Lease.
 *
 * <pre>
 * java dev.elector.josdk.scenarios.ReplicaMain [--kubeconfig FILE] [--namespace NS]
 *     [--identity ID] [--lease NAME] [--elector elector|josdk] [--josdk-exit-on-stop true|false]
 *     [--lease-duration 15s] [--renew-deadline 10s] [--retry-period 2s]
 * </pre>
 *
 * <p>The namespace is that of the Lease and of the watched Greetings: {@code --namespace}, else
 * {@code POD_NAMESPACE}; the identity {@code --identity}, else {@code POD_NAME}.
 */
public final class ReplicaMain {
  private ReplicaMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> flags = parse(args);
    String namespace = flags.getOrDefault("namespace", System.getenv("POD_NAMESPACE"));
    String identity = flags.getOrDefault("identity", System.getenv("POD_NAME"));
    if (namespace == null || identity == null) {
      throw new IllegalArgumentException(
          "the namespace and identity are unknown; pass"
              + " --namespace and --identity, or set POD_NAMESPACE and POD_NAME");
    }
    String lease = flags.getOrDefault("lease", "greeting-operator");
    Duration leaseDuration = duration(flags.getOrDefault("lease-duration", "15s"));
    Duration renewDeadline = duration(flags.getOrDefault("renew-deadline", "10s"));
    Duration retryPeriod = duration(flags.getOrDefault("retry-period", "2s"));
    Events events = new Events(identity, System.out, System::nanoTime);
    KubernetesClient client = client(flags.get("kubeconfig"));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> events.print("EXIT"), "exit-event"));

    if (flags.getOrDefault("elector", "elector").equals("josdk")) {
      runWithJosdkElection(
          client,
          namespace,
          identity,
          lease,
          leaseDuration,
          renewDeadline,
          retryPeriod,
          Boolean.parseBoolean(flags.getOrDefault("josdk-exit-on-stop", "true")),
          events);
      return;
    }
    KubeLock lock =
        Fabric8LeaseLock.newBuilder(client)
            .namespace(namespace)
            .name(lease)
            .identity(identity)
            .build();
    TermScopedOperator operator =
        TermScopedOperator.newBuilder()
            .client(client)
            .lock(lock)
            .electorConfig(
                c ->
                    c.leaseDuration(leaseDuration)
                        .renewDeadline(renewDeadline)
                        .retryPeriod(retryPeriod))
            .reconcilers(
                (o, term) ->
                    o.register(
                        new GreetingReconciler(
                            identity, term::isActive, term::fencingToken, events),
                        c -> c.settingNamespace(namespace)))
            .listener(new PrintingListener(events))
            .start();
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  operator.close(); // the operator stops first, then the Lease is released
                  closed.countDown();
                },
                "close-elector"));
    events.print("STARTED", "elector", "elector");
    closed.await();
  }

  /** Prints the term's operator lifecycle as {@code EVENT} lines. */
  private static final class PrintingListener implements TermScopedOperator.Listener {
    private final Events events;

    PrintingListener(Events events) {
      this.events = events;
    }

    @Override
    public void operatorStarting(Term term) {
      events.print("LEADING", "token", term.fencingToken(), "activeUntil", term.activeUntilNanos());
    }

    @Override
    public void operatorStarted(Term term) {
      events.print("OPERATOR_STARTED", "token", term.fencingToken());
    }

    @Override
    public void operatorStartFailed(Term term, RuntimeException failure) {
      events.print("OPERATOR_START_FAILED", "token", term.fencingToken());
    }

    @Override
    public void operatorStopping(Term term, TermEnd reason) {
      events.print(
          "TERM_ENDED",
          "token",
          term.fencingToken(),
          "reason",
          reason,
          "activeUntil",
          term.activeUntilNanos());
    }

    @Override
    public void operatorStopped(Term term, TermEnd reason) {
      events.print("STOPPED", "token", term.fencingToken(), "reason", reason);
    }
  }

  /** JOSDK's own leader election, as JOSDK documents it, with callbacks that print events. */
  private static void runWithJosdkElection(
      KubernetesClient client,
      String namespace,
      String identity,
      String lease,
      Duration leaseDuration,
      Duration renewDeadline,
      Duration retryPeriod,
      boolean exitOnStop,
      Events events)
      throws InterruptedException {
    Operator operator =
        new Operator(
            o ->
                o.withKubernetesClient(client)
                    .withLeaderElectionConfiguration(
                        LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(lease)
                            .withLeaseNamespace(namespace)
                            .withIdentity(identity)
                            .withLeaseDuration(leaseDuration)
                            .withRenewDeadline(renewDeadline)
                            .withRetryPeriod(retryPeriod)
                            .withExitOnStopLeading(exitOnStop)
                            .withLeaderCallbacks(
                                new LeaderCallbacks(
                                    () -> events.print("LEADING"),
                                    () -> events.print("STOPPED"),
                                    leader -> events.print("NEW_LEADER", "leader", leader)))
                            .build()));
    operator.register(
        new GreetingReconciler(identity, () -> true, () -> 0, events),
        c -> c.settingNamespace(namespace));
    operator.start();
    events.print("STARTED", "elector", "josdk");
    new CountDownLatch(1).await();
  }

  private static KubernetesClient client(String kubeconfig) throws IOException {
    if (kubeconfig == null) {
      return new KubernetesClientBuilder().build();
    }
    String yaml = Files.readString(Path.of(kubeconfig), StandardCharsets.UTF_8);
    return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(yaml)).build();
  }

  static Duration duration(String text) {
    if (text.endsWith("ms")) {
      return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
    }
    if (text.endsWith("s")) {
      return Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1)));
    }
    throw new IllegalArgumentException(
        "duration " + text + " needs a unit; write e.g. 15s or 500ms");
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> flags = new HashMap<>();
    List<String> rest = new ArrayList<>(List.of(args));
    while (!rest.isEmpty()) {
      String flag = rest.remove(0);
      if (!flag.startsWith("--") || rest.isEmpty()) {
        throw new IllegalArgumentException(
            "expected --flag value, got " + flag + "; see the usage in ReplicaMain's Javadoc");
      }
      flags.put(flag.substring(2), rest.remove(0));
    }
    return flags;
  }
}
