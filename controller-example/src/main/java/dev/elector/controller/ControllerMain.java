package dev.elector.controller;

import dev.elector.examples.CommandLines;
import dev.elector.kube.PodEnvironment;
import dev.elector.time.Scheduler;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Runs the IPPool controller until SIGTERM or SIGINT; see {@code controller-example/README.md} for
 * the flags and the {@code EVENT} lines it prints on standard output. On SIGTERM or SIGINT it steps
 * down and releases the Lease before the JVM exits (143 or 130). Exit code 2: bad flags or a
 * missing environment; the message names the flag or variable and the fix.
 */
public final class ControllerMain {
  private ControllerMain() {}

  /** {@code --uninstall}: the way back ({@link Uninstall}); the exit code. */
  private static int uninstall(ApiClient client, Flags flags) {
    try {
      Uninstall.Report report =
          new Uninstall(client, flags.config().build(), Optional.ofNullable(flags.webhookSecret()))
              .run(flags.uninstallWait());
      System.out.println("ippool-controller: uninstall: " + report);
      return 0;
    } catch (TimeoutException | IllegalStateException | IllegalArgumentException e) {
      System.err.println("ippool-controller: --uninstall: " + e.getMessage());
      return 2;
    } catch (ApiException e) {
      System.err.println(
          "ippool-controller: --uninstall: the API server refused ("
              + e.getCode()
              + " "
              + e.getResponseBody()
              + "); grant what the chart's uninstall hook grants"
              + " (deploy/controller/uninstall-rbac.yaml)");
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

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
    // before the first logger is made: slf4j-simple reads its level once
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", flags.logLevel());
    ApiClient client;
    try {
      client =
          flags.kubeconfig() == null && flags.kubecontext() == null
              ? ClientBuilder.standard().build()
              : fromFile(flags);
    } catch (IOException | RuntimeException e) {
      System.err.println(
          "ippool-controller: cannot load the Kubernetes client configuration ("
              + e.getMessage()
              + "); pass --kubeconfig PATH, set KUBECONFIG, or run in a pod");
      System.exit(2);
      return;
    }
    if (flags.uninstall()) {
      System.exit(uninstall(client, flags));
      return;
    }
    if (flags.applyCrds()) {
      try {
        CrdApply.apply(client, CrdApply.TIMEOUT);
      } catch (ApiException | IllegalStateException e) {
        System.err.println("ippool-controller: --apply-crds: " + CrdApply.describe(e));
        System.exit(2);
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    IPPoolController controller;
    try {
      controller = IPPoolController.start(client, flags.config().build());
    } catch (IllegalStateException | IllegalArgumentException e) {
      System.err.println("ippool-controller: " + e.getMessage());
      System.exit(2);
      return;
    }
    AtomicReference<WebhookCertificates> certificates = new AtomicReference<>();
    HealthServer health;
    try {
      health =
          HealthServer.start(
              flags.health().host(),
              flags.health().port(),
              () -> health(controller.health(), certificates.get()),
              controller::isSynced,
              prometheus(controller, certificates::get),
              flags.cacheDumpApi()
                  ? Map.of(
                      "/ipams",
                      () -> CacheDump.ipams(controller.cache()),
                      "/caches",
                      () -> CacheDump.caches(controller.cache()))
                  : Map.of());
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
    WebhookServer webhook = null;
    if (flags.webhookAddr() != null) {
      try {
        webhook = startWebhook(client, controller, flags, certificates);
      } catch (IOException | ApiException | RuntimeException e) {
        if (certificates.get() != null) {
          certificates.get().close();
        }
        health.close();
        controller.close();
        System.err.println(
            "ippool-controller: the admission webhook cannot start ("
                + (e instanceof ApiException a ? a.getCode() + " " + a.getResponseBody() : e)
                + "); check --webhook-addr and the certificate flags; with --register-webhooks,"
                + " apply deploy/webhook/webhooks.yaml first (the controller may update the"
                + " configurations vm-dhcp-webhook, not create them)");
        System.exit(2);
        return;
      }
    }
    WebhookServer webhookServer = webhook;
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (webhookServer != null) {
                    webhookServer.close();
                    certificates.get().close();
                  }
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

  /**
   * Starts the admission webhook: the certificate from --webhook-cert-dir (read again at each
   * check, as cert-manager renews it), else the shared --webhook-secret, else one generated for
   * this process; its CA registered with --register-webhooks. The certificate is renewed in process
   * before it ends ({@link WebhookCertificates}); {@code certificates} receives the rotator.
   */
  private static WebhookServer startWebhook(
      ApiClient client,
      IPPoolController controller,
      Flags flags,
      AtomicReference<WebhookCertificates> certificates)
      throws IOException, ApiException {
    String namespace = PodEnvironment.system().namespace().orElse("default");
    String service =
        flags.webhookService() != null
            ? flags.webhookService()
            : namespace + "/" + WebhookRegistration.DEFAULT_NAME + ":443";
    List<String> hosts;
    if (flags.webhookUrl() != null) {
      hosts = List.of(URI.create(flags.webhookUrl()).getHost());
    } else {
      String[] nsName = service.split(":")[0].split("/");
      String host = nsName[1] + "." + nsName[0];
      hosts = List.of(host + ".svc", host + ".svc.cluster.local", host);
    }
    Clock clock = Clock.systemUTC();
    WebhookCertificates.Timing timing = WebhookCertificates.Timing.DEFAULT;
    WebhookCertificates.Source source;
    if (flags.webhookCertDir() != null) {
      source = serving -> WebhookTls.load(flags.webhookCertDir());
    } else if (flags.webhookSecret() != null) {
      source =
          serving ->
              WebhookSecret.obtain(
                  client,
                  namespace,
                  flags.webhookSecret(),
                  hosts,
                  clock,
                  timing.validity(),
                  timing.renewBefore());
    } else {
      source = WebhookCertificates.inMemory(hosts, clock, timing);
    }
    WebhookRegistration registration =
        flags.registerWebhooks()
            ? new WebhookRegistration(
                WebhookRegistration.DEFAULT_NAME,
                flags.webhookUrl(),
                flags.webhookUrl() == null ? service : null,
                Map.of())
            : null;
    WebhookCertificates rotator =
        WebhookCertificates.start(
            source,
            registration == null ? null : caBundle -> registration.apply(client, caBundle, clock),
            timing,
            clock,
            daemonScheduler("ippool-webhook-cert"));
    certificates.set(rotator);
    WebhookTls tls = rotator.serving();
    WebhookServer server =
        WebhookServer.start(
            new InetSocketAddress(flags.webhookAddr().host(), flags.webhookAddr().port()),
            rotator.keys().sslContext(),
            controller.admissionReviews(),
            controller::isSynced);
    controller
        .events()
        .emit(
            "WEBHOOK",
            "addr",
            flags.webhookAddr().host() + ":" + server.port(),
            "until",
            tls.notAfter().toString());
    return server;
  }

  /** A {@link Scheduler} on one named daemon thread, for checks that run for the process's life. */
  static Scheduler daemonScheduler(String name) {
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(Threads.daemon(name));
    return (task, delayNanos) -> timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
  }

  /**
   * The controller's health with the webhook certificate's: unhealthy also when the certificate
   * ends soon without having been renewed.
   */
  static ControllerHealth health(ControllerHealth elector, WebhookCertificates certificates) {
    if (certificates == null) {
      return elector;
    }
    Optional<String> problem = certificates.problem();
    return problem.isPresent()
        ? new ControllerHealth(false, problem.get() + "; " + elector.detail())
        : new ControllerHealth(
            elector.healthy(), elector.detail() + "; " + certificates.describe());
  }

  /** The controller's elector meters, as Prometheus text for {@code /metrics}. */
  static Supplier<String> prometheus(IPPoolController controller) {
    return prometheus(controller, () -> null);
  }

  /** As above, with the webhook certificate's meters once {@code certificates} gives one. */
  static Supplier<String> prometheus(
      IPPoolController controller, Supplier<WebhookCertificates> certificates) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ControllerMetrics metrics = new ControllerMetrics(controller, registry);
    WebhookCertificateMetrics certificateMetrics =
        WebhookCertificateMetrics.bind(certificates, registry);
    return () -> {
      metrics.refresh();
      Objects.requireNonNull(certificateMetrics); // held here: the registry holds it weakly
      return registry.scrape();
    };
  }

  /** The client of --kubeconfig (else $KUBECONFIG, else ~/.kube/config) in --kubecontext. */
  private static ApiClient fromFile(Flags flags) throws IOException {
    String env = System.getenv("KUBECONFIG");
    java.nio.file.Path file =
        flags.kubeconfig() != null
            ? flags.kubeconfig()
            : env != null && !env.isBlank()
                ? java.nio.file.Path.of(env.split(java.io.File.pathSeparator)[0])
                : java.nio.file.Path.of(System.getProperty("user.home"), ".kube", "config");
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      KubeConfig config = KubeConfig.loadKubeConfig(reader);
      if (flags.kubecontext() != null && !config.setContext(flags.kubecontext())) {
        throw new IllegalArgumentException(
            "--kubecontext " + flags.kubecontext() + " is not a context of " + file);
      }
      config.setFile(file.toFile());
      return ClientBuilder.kubeconfig(config).build();
    }
  }
}
