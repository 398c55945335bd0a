package dev.elector.controller;

import dev.elector.ElectorConfigException;
import dev.elector.examples.CommandLines;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/**
 * Runs the IPPool controller until SIGTERM or SIGINT; see {@code controller-example/README.md} for
 * the flags and the {@code EVENT} lines it prints on standard output. On SIGTERM or SIGINT it steps
 * down and releases the Lease before the JVM exits (143 or 130). Exit code 2: bad flags or a
 * missing environment; the message names the flag or variable and the fix.
 */
public final class ControllerMain {
  private ControllerMain() {}

  /** Entry point. */
  public static void main(String[] args) {
    Flags flags;
    try {
      flags = Flags.parse(args);
    } catch (Flags.FlagException e) {
      e.getMessage().lines().forEach(line -> System.err.println("ippool-controller: " + line));
      System.err.println("run with --help for the list of flags");
      System.exit(CommandLines.USAGE_ERROR);
      return;
    }
    if (flags.printHelpOrVersion(System.out)) {
      return;
    }
    ApiClient client;
    try {
      client = flags.kubeconfig() == null ? ClientBuilder.standard().build() : fromFile(flags);
    } catch (IOException | RuntimeException e) {
      System.err.println(
          "ippool-controller: cannot load the Kubernetes client configuration ("
              + e.getMessage()
              + "); pass --kubeconfig PATH, set KUBECONFIG, or run in a pod");
      System.exit(2);
      return;
    }
    IPPoolController controller;
    try {
      controller = IPPoolController.start(client, flags.config().build());
    } catch (IllegalStateException | ElectorConfigException e) {
      System.err.println("ippool-controller: " + e.getMessage());
      System.exit(2);
      return;
    }
    HealthServer health;
    try {
      health =
          HealthServer.start(
              flags.health().host(),
              flags.health().port(),
              controller::health,
              controller::isSynced,
              prometheus(controller));
    } catch (IOException e) {
      controller.close();
      System.err.println(
          "ippool-controller: --health-addr "
              + flags.health()
              + " cannot be"
              + " bound ("
              + e.getMessage()
              + "); pick a free address, for example 127.0.0.1:0");
      System.exit(2);
      return;
    }
    controller.events().emit("HEALTH", "addr", flags.health().host() + ":" + health.port());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  health.close();
                  controller.close();
                  stopped.countDown();
                },
                "ippool-controller-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The controller's elector meters, as Prometheus text for {@code /metrics}. */
  static Supplier<String> prometheus(IPPoolController controller) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ControllerMetrics metrics = new ControllerMetrics(controller, registry);
    return () -> {
      metrics.refresh();
      return registry.scrape();
    };
  }

  private static ApiClient fromFile(Flags flags) throws IOException {
    try (Reader reader = Files.newBufferedReader(flags.kubeconfig(), StandardCharsets.UTF_8)) {
      KubeConfig config = KubeConfig.loadKubeConfig(reader);
      config.setFile(flags.kubeconfig().toFile());
      return ClientBuilder.kubeconfig(config).build();
    }
  }
}
