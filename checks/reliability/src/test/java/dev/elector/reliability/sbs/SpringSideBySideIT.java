package dev.elector.reliability.sbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodStatus;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Elector's Spring Boot starter beside Spring Cloud Kubernetes' leader: the same application
 * (benchmarks/spring-side-by-side/app, built once on each) as three replicas of each side, one side
 * after the other on the same API server, each replica a process behind a {@code FaultProxy} of its
 * own. Run by benchmarks/spring-side-by-side/run.sh; excluded from the default build.
 *
 * <p>Spring Cloud Kubernetes' leader reads the candidate's Pod (named by {@code HOSTNAME}) and its
 * readiness, and this control plane has no kubelet: the test creates a Pod object per replica, sets
 * its Ready condition through the status subresource, and sets it False the moment the replica's
 * process has exited, as a kubelet would at best. Elector does not read Pods; its Pods are made the
 * same way for symmetry.
 *
 * <p>Per side and pass: start to first leader; API requests per second, one leader and two
 * followers (the API server's apiserver_request_total, all resources, over a window with nothing
 * else running); a 409 on renewal (an outside write to the lock object); the leader's API calls
 * slowed past the renew deadline; the API server unreachable for longer than the lease; graceful
 * handover (SIGTERM of the leader); crash failover (SIGKILL of the next leader). Overlap of leading
 * intervals and leader-only job runs while another replica led, by {@link LeaderTimeline}. Figures:
 * FIGURE lines, also in target/spring-side-by-side-figures.txt. Elector is held to no overlap, no
 * job run while another led, a leader back after the outage, and a handover on SIGTERM in under a
 * second; Spring Cloud Kubernetes' outcome is recorded, not asserted.
 *
 * <p>{@code -Delector.sbs.pass=short|defaults|both} (default both: short timings first), {@code
 * -Delector.sbs.dir=} the side-by-side folder.
 */
@KubeTest
class SpringSideBySideIT {
  private static final Path FIGURES = Path.of("target", "spring-side-by-side-figures.txt");
  private static final Path DIR =
      Path.of(System.getProperty("elector.sbs.dir", "../../benchmarks/spring-side-by-side"));
  private static final String PASS = System.getProperty("elector.sbs.pass", "both");
  private static final Pattern REQUESTS =
      Pattern.compile("^apiserver_request_total\\{([^}]*)\\}\\s+([0-9.eE+]+)$");

  /** When each replica's Pod was set not Ready after its process exited. */
  private static final Map<String, Long> NOT_READY = new java.util.concurrent.ConcurrentHashMap<>();

  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  /** One pass's timings and fault sizes. */
  private record Pass(
      String name,
      Duration firstLeaderCap,
      Duration window,
      Duration observe,
      Duration latency,
      Duration slowFor,
      Duration downFor,
      Duration recoveryCap,
      Duration handoverCap,
      Duration failoverCap) {}

  private static final Pass SHORT =
      new Pass(
          "short",
          Duration.ofSeconds(40),
          Duration.ofSeconds(20),
          Duration.ofSeconds(8),
          Duration.ofMillis(1500),
          Duration.ofSeconds(8),
          Duration.ofSeconds(7),
          Duration.ofSeconds(20),
          Duration.ofSeconds(20),
          Duration.ofSeconds(30));

  private static final Pass DEFAULTS =
      new Pass(
          "defaults",
          Duration.ofSeconds(150),
          Duration.ofSeconds(60),
          Duration.ofSeconds(65),
          Duration.ofSeconds(6),
          Duration.ofSeconds(25),
          Duration.ofSeconds(20),
          Duration.ofSeconds(90),
          Duration.ofSeconds(90),
          Duration.ofSeconds(150));

  /** One side: its application folder, its lock object and its arguments for a pass. */
  private enum Side {
    SCK("sck-app", "ConfigMap leaders"),
    ELECTOR("elector-app", "Lease sbs");

    final String app;
    final String lock;

    Side(String app, String lock) {
      this.app = app;
      this.lock = lock;
    }

    String label() {
      return this == SCK ? "sck" : "elector";
    }

    List<String> args(String namespace, Pass pass) {
      List<String> args = new ArrayList<>(List.of("--spring.main.cloud-platform=kubernetes"));
      if (this == SCK) {
        // the defaults, but for the role (required) and the namespace (never a silent default)
        args.add("--spring.cloud.kubernetes.leader.role=sbs");
        args.add("--spring.cloud.kubernetes.leader.namespace=" + namespace);
        args.add("--spring.cloud.kubernetes.client.namespace=" + namespace);
        if (pass == SHORT) {
          // its one timing: how often a candidate looks at the ConfigMap (default 60 s)
          args.add("--spring.cloud.kubernetes.leader.update-period=1s");
        }
      } else {
        args.add("--spring.application.name=sbs");
        args.add("--elector.namespace=" + namespace);
        if (pass == SHORT) {
          args.add("--elector.lease-duration=3s");
          args.add("--elector.renew-deadline=2s");
          args.add("--elector.retry-period=500ms");
        }
      }
      return args;
    }
  }

  @Test
  void sideBySide(KubeCluster cluster) throws Exception {
    for (Side side : Side.values()) {
      assertTrue(
          Files.isDirectory(DIR.resolve(side.app).resolve("target/lib")),
          "build " + DIR.resolve(side.app) + " first (run.sh does)");
    }
    List<Pass> passes =
        switch (PASS) {
          case "short" -> List.of(SHORT);
          case "defaults" -> List.of(DEFAULTS);
          default -> List.of(SHORT, DEFAULTS);
        };
    List<String> problems = new ArrayList<>();
    for (Pass pass : passes) {
      for (Side side : Side.values()) {
        problems.addAll(run(cluster, side, pass));
      }
    }
    assertEquals(List.of(), problems, "Elector's starter");
  }

  /** One side in one pass; returns what Elector broke (nothing is asserted for SCK). */
  private List<String> run(KubeCluster cluster, Side side, Pass pass) throws Exception {
    String s = pass.name() + " " + side.label();
    String ns = cluster.createNamespace("sbs-" + side.label() + "-" + pass.name()).name();
    Path dir = Path.of("target", "spring-side-by-side", ns);
    Files.createDirectories(dir);
    ApiClient admin = cluster.admin();
    CoreV1Api core = new CoreV1Api(admin);
    try {
      core.createNamespacedServiceAccount(
              ns, new V1ServiceAccount().metadata(new V1ObjectMeta().name("default")))
          .execute();
    } catch (ApiException e) {
      if (e.getCode() != 409) {
        throw e;
      }
    }
    List<BootReplica> replicas = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    figure(s, "versions", versions(side));
    figure(s, "arguments", String.join(" ", side.args(ns, pass)));
    try {
      long t0 = System.nanoTime();
      for (int i = 1; i <= 3; i++) {
        String name = side.label() + "-" + i;
        createReadyPod(core, ns, name);
        BootReplica r =
            BootReplica.start(
                name,
                DIR.resolve(side.app),
                cluster.server(),
                cluster.adminKubeconfigYaml(),
                dir,
                side.args(ns, pass));
        // the kubelet's part: the Pod turns not Ready once the container has exited
        r.process
            .onExit()
            .thenRun(
                () -> {
                  setReady(core, ns, name, false);
                  NOT_READY.put(ns + "/" + name, System.nanoTime());
                });
        replicas.add(r);
      }

      // start to first leader
      boolean led = awaitQuietly(pass.firstLeaderCap(), () -> leader(replicas).isPresent());
      Optional<BootReplica> first = leader(replicas);
      figure(
          s,
          "start-to-first-leader",
          first
              .map(r -> ms(r.first("LEADING", t0).nanos() - t0) + " (" + r + ")")
              .orElse("no leader within " + pass.firstLeaderCap().toSeconds() + " s"));
      first.ifPresent(
          r ->
              figure(
                  s,
                  "ready-to-first-leader",
                  ms(r.first("LEADING", t0).nanos() - r.first("STARTED", t0).nanos())
                      + " (the leader's own ApplicationReadyEvent to its grant)"));
      if (!led) {
        if (side == Side.ELECTOR) {
          problems.add(s + ": no first leader");
        }
        return problems;
      }

      // API requests per second, one leader and two followers
      Await.until(
          "all three replicas started",
          Duration.ofSeconds(60),
          () -> replicas.stream().allMatch(r -> r.has("STARTED")));
      Thread.sleep(2000); // start-up requests settle; the window is what is measured
      requestsPerSecond(admin, s, "requests-per-second", pass.window());

      // a 409 on renewal: an outside write to the lock object
      BootReplica leader = leader(replicas).orElseThrow();
      long touched = touchLock(admin, side, ns);
      Thread.sleep(pass.observe().toMillis()); // the observation window the figures cover
      long end = System.nanoTime();
      figure(s, "conflict lock-written-by-another-client", side.lock);
      figure(s, "conflict leader-revoked", revoked(leader, touched));
      BootReplica.Event regrant = leaderSince(replicas, touched);
      figure(
          s,
          "conflict next-grant",
          regrant == null
              ? "none"
              : regrant.fields().get("identity")
                  + " "
                  + ms(regrant.nanos() - touched)
                  + " after the write");
      figure(
          s, "conflict leader-at-the-end", leader(replicas).map(Object::toString).orElse("none"));
      checkSafety(s + " conflict", side, replicas, touched, end, problems);

      // the leader's API calls slowed past the renew deadline
      leader = leader(replicas).orElse(null);
      if (leader != null) {
        BootReplica slowed = leader;
        long slow = System.nanoTime();
        slowed.proxy.latency(pass.latency(), Duration.ZERO);
        awaitQuietly(pass.slowFor(), () -> newLeaderEvent(replicas, slowed, slow) != null);
        sleepUntil(slow + pass.slowFor().toNanos());
        long healed = System.nanoTime();
        slowed.proxy.heal();
        Thread.sleep(pass.observe().toMillis()); // the observation window the figures cover
        end = System.nanoTime();
        figure(
            s,
            "slow latency",
            pass.latency().toMillis() + " ms per chunk each way for " + ms(healed - slow));
        figure(s, "slow old-leader-revoked", revoked(slowed, slow));
        figure(s, "slow new-leader", newLeader(replicas, slowed, slow));
        figure(s, "slow leader-at-the-end", leader(replicas).map(Object::toString).orElse("none"));
        checkSafety(s + " slow", side, replicas, slow, end, problems);
        if (side == Side.ELECTOR
            && !slowed.events("REVOKED").stream().anyMatch(e -> e.nanos() >= slow)) {
          problems.add(s + " slow: the slowed leader was not revoked");
        }
      } else {
        figure(s, "slow", "not run: no leader");
      }

      // the API server unreachable for longer than the lease
      Optional<BootReplica> before0 = leader(replicas);
      long down = System.nanoTime();
      replicas.forEach(r -> r.proxy.refuse().reset());
      sleepUntil(down + pass.downFor().toNanos());
      long back = System.nanoTime();
      replicas.forEach(r -> r.proxy.heal());
      awaitQuietly(pass.recoveryCap(), () -> leaderSince(replicas, back) != null);
      Thread.sleep(Math.min(pass.observe().toMillis(), 10_000)); // the observation window
      end = System.nanoTime();
      BootReplica.Event again = leaderSince(replicas, back);
      figure(s, "outage down-for", ms(back - down));
      figure(s, "outage leader-before", before0.map(Object::toString).orElse("none"));
      figure(s, "outage leader-revoked", before0.map(r -> revoked(r, down)).orElse("-"));
      figure(
          s,
          "outage leader-after",
          leader(replicas).map(Object::toString).orElse("none")
              + (again != null
                  ? ", granted " + ms(again.nanos() - back) + " after the server returned"
                  : ", no new grant within " + pass.recoveryCap().toSeconds() + " s"));
      figure(
          s,
          "outage processes",
          replicas.stream().map(r -> r + (r.process.isAlive() ? " running" : " exited")).toList());
      checkSafety(s + " outage", side, replicas, down, end, problems);
      // are the candidates still polling, or did the outage stop them?
      requestsPerSecond(admin, s, "outage requests-per-second-after", pass.window());
      if (side == Side.ELECTOR && leader(replicas).isEmpty()) {
        problems.add(s + " outage: no leader after the server returned");
      }

      // graceful handover: SIGTERM of the leader
      leader = leader(replicas).orElse(null);
      if (leader != null) {
        BootReplica old = leader;
        long term = old.terminate();
        awaitQuietly(pass.handoverCap(), () -> newLeaderEvent(replicas, old, term) != null);
        end = System.nanoTime();
        BootReplica.Event next = newLeaderEvent(replicas, old, term);
        figure(
            s,
            "sigterm-to-next-leader",
            next == null
                ? "none within " + pass.handoverCap().toSeconds() + " s"
                : ms(next.nanos() - term));
        figure(s, "sigterm old-leader-revoked", revoked(old, term));
        awaitQuietly(Duration.ofSeconds(30), () -> !old.process.isAlive());
        figure(
            s,
            "sigterm old-process",
            old.process.isAlive()
                ? "still running"
                : "exited " + ms(old.endedNanos() - term) + " after SIGTERM");
        figure(
            s,
            "sigterm pod-not-ready",
            NOT_READY.containsKey(ns + "/" + old.name)
                ? ms(NOT_READY.get(ns + "/" + old.name) - term) + " after SIGTERM"
                : "not set");
        checkSafety(s + " sigterm", side, replicas, term, end, problems);
        if (side == Side.ELECTOR
            && (next == null || next.nanos() - term > Duration.ofSeconds(1).toNanos())) {
          problems.add(s + ": SIGTERM handed over in no less than a second");
        }
      } else {
        figure(s, "sigterm-to-next-leader", "not run: no leader");
      }

      // crash failover: SIGKILL of the leader
      leader = leader(replicas).orElse(null);
      if (leader != null) {
        BootReplica old = leader;
        long killed = old.kill();
        awaitQuietly(pass.failoverCap(), () -> newLeaderEvent(replicas, old, killed) != null);
        end = System.nanoTime();
        BootReplica.Event next = newLeaderEvent(replicas, old, killed);
        figure(
            s,
            "sigkill-to-next-leader",
            next == null
                ? "none within " + pass.failoverCap().toSeconds() + " s"
                : ms(next.nanos() - killed));
        figure(
            s,
            "sigkill pod-not-ready",
            NOT_READY.containsKey(ns + "/" + old.name)
                ? ms(NOT_READY.get(ns + "/" + old.name) - killed) + " after SIGKILL"
                : "not set");
        checkSafety(s + " sigkill", side, replicas, killed, end, problems);
        if (side == Side.ELECTOR && next == null) {
          problems.add(s + ": no leader after SIGKILL");
        }
      } else {
        figure(s, "sigkill-to-next-leader", "not run: no leader");
      }
      long now = System.nanoTime();
      figure(
          s,
          "whole-run overlap-of-leading-intervals",
          ms(LeaderTimeline.overlapNanos(replicas, t0, now)));
      figure(
          s,
          "whole-run jobs-while-another-led",
          LeaderTimeline.jobsWhileAnotherLed(replicas, t0, now).size());
      figure(
          s,
          "whole-run grants",
          replicas.stream().mapToLong(r -> r.events("LEADING").size()).sum());
      return problems;
    } finally {
      replicas.forEach(BootReplica::close);
    }
  }

  /** The API requests per second of the running replicas over {@code window}. */
  private static void requestsPerSecond(ApiClient admin, String s, String name, Duration window)
      throws IOException, InterruptedException {
    Map<String, Double> before = requestCounts(admin);
    long w0 = System.nanoTime();
    Thread.sleep(window.toMillis()); // the window whose requests are counted
    long w1 = System.nanoTime();
    Map<String, Double> after = requestCounts(admin);
    double seconds = (w1 - w0) / 1e9;
    Map<String, Double> rates = new TreeMap<>();
    after.forEach((k, v) -> rates.put(k, (v - before.getOrDefault(k, 0.0)) / seconds));
    rates.values().removeIf(v -> v < 0.005);
    figure(
        s,
        name,
        String.format(
            Locale.ROOT,
            "%.2f/s over %.0f s, by resource and verb: %s",
            rates.values().stream().mapToDouble(Double::doubleValue).sum(),
            seconds,
            format(rates)));
  }

  private static void checkSafety(
      String s, Side side, List<BootReplica> replicas, long from, long to, List<String> problems) {
    List<LeaderTimeline.Overlap> overlaps = LeaderTimeline.overlaps(replicas, from, to);
    List<String> jobs = LeaderTimeline.jobsWhileAnotherLed(replicas, from, to);
    figure(
        s,
        "overlap-of-leading-intervals",
        ms(overlaps.stream().mapToLong(LeaderTimeline.Overlap::nanos).sum())
            + (overlaps.isEmpty() ? "" : " (" + overlaps.get(0) + ")"));
    figure(
        s,
        "jobs-while-another-led",
        jobs.size() + (jobs.isEmpty() ? "" : " (" + jobs.get(0) + ", ...)"));
    if (side == Side.ELECTOR) {
      overlaps.forEach(o -> problems.add(s + ": " + o));
      jobs.forEach(j -> problems.add(s + ": " + j));
    }
  }

  private static Optional<BootReplica> leader(List<BootReplica> replicas) {
    return replicas.stream().filter(BootReplica::leading).findFirst();
  }

  /** The first grant at or after {@code since} to a replica other than {@code old}. */
  private static BootReplica.Event newLeaderEvent(
      List<BootReplica> replicas, BootReplica old, long since) {
    return replicas.stream()
        .filter(r -> r != old)
        .map(r -> r.first("LEADING", since))
        .filter(e -> e != null)
        .min((a, b) -> Long.compare(a.nanos(), b.nanos()))
        .orElse(null);
  }

  private static String newLeader(List<BootReplica> replicas, BootReplica old, long since) {
    BootReplica.Event e = newLeaderEvent(replicas, old, since);
    return e == null
        ? "none"
        : e.fields().get("identity")
            + " granted "
            + ms(e.nanos() - since)
            + " after the fault began";
  }

  private static BootReplica.Event leaderSince(List<BootReplica> replicas, long since) {
    return replicas.stream()
        .map(r -> r.first("LEADING", since))
        .filter(e -> e != null)
        .min((a, b) -> Long.compare(a.nanos(), b.nanos()))
        .orElse(null);
  }

  private static String revoked(BootReplica r, long since) {
    BootReplica.Event e = r.first("REVOKED", since);
    return e == null ? "no (" + r + ")" : "yes, " + ms(e.nanos() - since) + " after (" + r + ")";
  }

  private static void createReadyPod(CoreV1Api core, String ns, String name) throws ApiException {
    core.createNamespacedPod(
            ns,
            new V1Pod()
                .metadata(new V1ObjectMeta().name(name).putLabelsItem("app", "sbs"))
                .spec(
                    new V1PodSpec()
                        .automountServiceAccountToken(false)
                        .overhead(null) // the model's empty map reads as an overhead
                        .addContainersItem(new V1Container().name("app").image("sbs:local"))))
        .execute();
    setReady(core, ns, name, true);
  }

  /** Sets the Pod's phase and Ready condition through the status subresource. */
  private static void setReady(CoreV1Api core, String ns, String name, boolean ready) {
    for (int attempt = 0; attempt < 5; attempt++) {
      try {
        V1Pod pod = core.readNamespacedPod(name, ns).execute();
        String status = ready ? "True" : "False";
        pod.status(
            new V1PodStatus()
                .phase(ready ? "Running" : "Failed")
                .addConditionsItem(
                    new V1PodCondition()
                        .type("Ready")
                        .status(status)
                        .lastTransitionTime(OffsetDateTime.now()))
                .addConditionsItem(
                    new V1PodCondition()
                        .type("ContainersReady")
                        .status(status)
                        .lastTransitionTime(OffsetDateTime.now())));
        core.replaceNamespacedPodStatus(name, ns, pod).execute();
        return;
      } catch (ApiException e) {
        if (e.getCode() != 409) {
          System.out.println("could not set " + name + " Ready=" + ready + ": " + e.getCode());
          return;
        }
      }
    }
  }

  /**
   * Writes the lock object from outside (an annotation), so its resourceVersion moves on and the
   * leader's next update of it, if it writes one, conflicts.
   */
  private static long touchLock(ApiClient admin, Side side, String ns) throws ApiException {
    long at = System.nanoTime();
    if (side == Side.SCK) {
      CoreV1Api core = new CoreV1Api(admin);
      V1ConfigMap map = core.readNamespacedConfigMap("leaders", ns).execute();
      map.getMetadata().putAnnotationsItem("sbs.elector.dev/touched", Long.toString(at));
      core.replaceNamespacedConfigMap("leaders", ns, map).execute();
    } else {
      CoordinationV1Api leases = new CoordinationV1Api(admin);
      V1Lease lease = leases.readNamespacedLease("sbs", ns).execute();
      lease.getMetadata().putAnnotationsItem("sbs.elector.dev/touched", Long.toString(at));
      leases.replaceNamespacedLease("sbs", ns, lease).execute();
    }
    return at;
  }

  /** apiserver_request_total summed by resource and verb, for the resources a replica uses. */
  private static Map<String, Double> requestCounts(ApiClient admin) throws IOException {
    okhttp3.Request request =
        new okhttp3.Request.Builder().url(admin.getBasePath() + "/metrics").build();
    String text;
    try (okhttp3.Response response = admin.getHttpClient().newCall(request).execute()) {
      assertNotNull(response.body());
      text = response.body().string();
      assertEquals(200, response.code(), "GET /metrics: " + text);
    }
    Map<String, Double> counts = new HashMap<>();
    for (String line : text.split("\n")) {
      Matcher m = REQUESTS.matcher(line.trim());
      if (!m.matches()) {
        continue;
      }
      Map<String, String> labels = new HashMap<>();
      Matcher l = LABEL.matcher(m.group(1));
      while (l.find()) {
        labels.put(l.group(1), l.group(2));
      }
      String resource = labels.getOrDefault("resource", "");
      if (List.of("configmaps", "leases", "pods", "events").contains(resource)) {
        String sub = labels.getOrDefault("subresource", "");
        counts.merge(
            resource + (sub.isEmpty() ? "" : "/" + sub) + " " + labels.getOrDefault("verb", "?"),
            Double.parseDouble(m.group(2)),
            Double::sum);
      }
    }
    return counts;
  }

  private static String versions(Side side) throws IOException {
    try (var files = Files.list(DIR.resolve(side.app).resolve("target/lib"))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(
              f ->
                  f.startsWith("spring-boot-3")
                      || f.startsWith("spring-boot-4")
                      || f.startsWith("spring-integration-core")
                      || f.startsWith("spring-cloud-kubernetes-fabric8-leader")
                      || f.startsWith("kubernetes-client-7")
                      || f.startsWith("client-java-2")
                      || f.startsWith("elector-spring-boot-autoconfigure"))
          .sorted()
          .map(f -> f.replace(".jar", ""))
          .toList()
          .toString();
    }
  }

  private static String format(Map<String, Double> rates) {
    StringBuilder b = new StringBuilder();
    rates.forEach(
        (k, v) ->
            b.append(b.length() == 0 ? "" : ", ")
                .append(k)
                .append(' ')
                .append(String.format(Locale.ROOT, "%.2f", v)));
    return b.length() == 0 ? "none" : b.toString();
  }

  /** Whether {@code what} holds within {@code cap}; not holding is an outcome, not a failure. */
  private static boolean awaitQuietly(Duration cap, java.util.function.BooleanSupplier what) {
    try {
      org.awaitility.Awaitility.await()
          .atMost(cap)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(50))
          .until(what::getAsBoolean);
      return true;
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      return what.getAsBoolean();
    }
  }

  private static void sleepUntil(long nanos) throws InterruptedException {
    long left = nanos - System.nanoTime();
    if (left > 0) {
      Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
    }
  }

  static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.0f ms", nanos / 1e6);
  }

  static void figure(String scenario, String name, Object value) {
    String line = String.format(Locale.ROOT, "FIGURE %s %s %s", scenario, name, value);
    System.out.println(line);
    try {
      Files.createDirectories(FIGURES.getParent());
      Files.writeString(
          FIGURES,
          line + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      System.out.println("could not write " + FIGURES + ": " + e);
    }
  }
}
