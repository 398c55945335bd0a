package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.Gson;
import dev.elector.CallOutcome;
import dev.elector.ElectorConfig;
import dev.elector.ElectorStats;
import dev.elector.LockCall;
import dev.elector.TermEnd;
import dev.elector.testenv.HaControlPlane;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * API Priority and Fairness under overload. One API server with few seats ({@code
 * --max-requests-inflight=10 --max-mutating-requests-inflight=5}, so that two cores suffice to
 * saturate it) and a short queue wait ({@code --request-timeout=4s}: APF rejects with 429 a request
 * that waited a quarter of it, 1 s), and a load generator, a ServiceAccount of its own, running
 * {@link #LOADERS} concurrent LISTs of about 1 MB without pause. An Elector leader at the default
 * timings renews meanwhile: first with no FlowSchema of ours (its requests queue in "workload-low"
 * with the flood), then with {@code deploy/apf/flowschema.yaml} applied for its ServiceAccount.
 * Figures: renewal latency, longest renewal gap, lost terms, the load's 429s. The test checks, from
 * the API server's X-Kubernetes-PF-PriorityLevel-UID header, that the lock's GET and PATCH run in
 * "workload-low" without the schema and in the shipped priority level with it, and that with it APF
 * turned none of the lock's requests away: the server's {@code
 * apiserver_flowcontrol_rejected_requests_total} counts no rejection in the shipped level (and
 * counts the flood's in workload-low, which shows the metric is read), and no renewal failed with
 * an answer (a 429 is one). Lost terms are a figure, not a check: on a machine whose two cores are
 * starved by other work, a renewal can miss its deadline for want of CPU in the test's own JVM (the
 * flood's 320 threads run there), which no FlowSchema can prevent. {@link #WINDOW} per phase; three
 * minutes with {@code -Delector.ha.long=true}.
 */
class ApfOverloadIT {
  static final Path SHIPPED_APF = Path.of("..", "..", "deploy", "apf", "flowschema.yaml");

  /** More than one flow's hand of 6 queues of 50 in workload-low holds: APF rejects the rest. */
  static final int LOADERS = 320;

  static final int CONFIGMAPS = 100;
  static final Duration WINDOW = HaPlane.LONG ? Duration.ofMinutes(3) : Duration.ofSeconds(20);

  @Test
  void aListFloodDelaysRenewalsUntilTheShippedFlowSchemaSeparatesThem() throws Exception {
    try (HaControlPlane plane =
        HaPlane.start(
            1,
            i ->
                List.of(
                    "--max-requests-inflight=10",
                    "--max-mutating-requests-inflight=5",
                    // APF rejects a request that waited in its queue for a quarter of the request
                    // timeout: 1 s here instead of 15 s, so that the flood's queues overflow.
                    "--request-timeout=4s"))) {
      KubeCluster cluster = plane.cluster();
      KubeNamespace data = cluster.createNamespace("apf-load");
      CoreV1Api core = new CoreV1Api(cluster.admin());
      String blob = "x".repeat(10_000);
      for (int i = 0; i < CONFIGMAPS; i++) {
        core.createNamespacedConfigMap(
                data.name(),
                new V1ConfigMap()
                    .apiVersion("v1")
                    .kind("ConfigMap")
                    .metadata(new V1ObjectMeta().name("load-" + i))
                    .data(Map.of("blob", blob)))
            .execute();
      }
      KubeIdentity loader = cluster.newIdentity(data, "load-generator");
      cluster.grant(
          loader,
          data,
          List.of(
              new V1PolicyRule()
                  .apiGroups(List.of(""))
                  .resources(List.of("configmaps"))
                  .verbs(List.of("list"))));

      Phase without = phase(cluster, plane, data, loader, "apf-no-flowschema", false);
      Phase with = phase(cluster, plane, data, loader, "apf-shipped-flowschema", true);
      assertTrue(
          without.load429 + without.loadOk > 0 && with.load429 + with.loadOk > 0,
          "the load generator made no request");
      assertTrue(
          without.load429 > 0,
          "APF rejected none of the flood: the overload did not reach APF's limits");
      assertTrue(
          without.rejectedInWorkloadLow > 0,
          "the API server's metrics count no APF rejection in workload-low, though the flood got "
              + without.load429
              + " 429s: apiserver_flowcontrol_rejected_requests_total was not read");
      assertEquals(
          0,
          with.rejectedInShippedLevel,
          "APF rejected requests in the shipped priority level "
              + SHIPPED_LEVEL
              + ": its seats or queues do not hold the lock's requests");
      assertEquals(
          0,
          with.failedRenewals,
          "renewals failed with an answer from the API server (a 429 from APF is one) despite the"
              + " shipped FlowSchema");
    }
  }

  static final String SHIPPED_LEVEL = "elector-leader-election";

  record Phase(
      long slowestMillis,
      long lostTerms,
      long failedRenewals,
      long loadOk,
      long load429,
      long rejectedInWorkloadLow,
      long rejectedInShippedLevel) {}

  private Phase phase(
      KubeCluster cluster,
      HaControlPlane plane,
      KubeNamespace data,
      KubeIdentity loader,
      String scenario,
      boolean flowSchema)
      throws Exception {
    KubeNamespace namespace = cluster.createNamespace(scenario);
    try (Cohort cohort = new Cohort(cluster, namespace)) {
      // The default timings, and the lock's default call bound.
      cohort.requestTimeout(ElectorConfig.DEFAULT_RENEW_DEADLINE.dividedBy(2));
      Cohort.Member leader =
          cohort.add(
              "leader",
              b ->
                  b.leaseDuration(ElectorConfig.DEFAULT_LEASE_DURATION)
                      .renewDeadline(ElectorConfig.DEFAULT_RENEW_DEADLINE)
                      .retryPeriod(ElectorConfig.DEFAULT_RETRY_PERIOD)
                      .maxBackoff(ElectorConfig.DEFAULT_MAX_BACKOFF));
      cohort.awaitLeader(Duration.ofSeconds(30));
      if (flowSchema) {
        applyShippedFlowSchema(cluster.admin(), leader.identity, namespace);
      }
      // Which priority level the lock's own requests land in, as the API server reports it.
      String expected = flowSchema ? SHIPPED_LEVEL : "workload-low";
      String uid = priorityLevelUid(cluster.admin(), expected);
      for (String method : List.of("GET", "PATCH")) {
        AtomicReference<String> seen = new AtomicReference<>();
        Waiting.until(
            Duration.ofSeconds(20),
            Duration.ofMillis(100),
            () -> {
              seen.set(priorityLevelOf(cluster, leader.identity, namespace, method));
              return Optional.of(seen.get()).filter(uid::equals);
            },
            () ->
                "the lock's "
                    + method
                    + " runs in priority level "
                    + seen.get()
                    + ", not "
                    + expected
                    + " ("
                    + uid
                    + ")");
      }
      Figures.record(scenario, "lock-requests-priority-level", expected);
      leader.renewals.reset();
      ElectorStats before = leader.stats();
      Map<String, Long> rejectedBefore = rejectedByPriorityLevel(cluster.admin());
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong ok = new AtomicLong();
      AtomicLong throttled = new AtomicLong();
      AtomicLong other = new AtomicLong();
      OkHttpClient http = cluster.clientWithToken(loader.token()).getHttpClient();
      String url = plane.server() + "/api/v1/namespaces/" + data.name() + "/configmaps";
      List<Thread> loaders = new ArrayList<>();
      for (int i = 0; i < LOADERS; i++) {
        Thread t =
            new Thread(
                () -> {
                  while (!stop.get()) {
                    Request request =
                        new Request.Builder()
                            .url(url)
                            .header("Authorization", "Bearer " + loader.token())
                            .build();
                    try (Response response = http.newCall(request).execute()) {
                      response.body().source().readAll(okio.Okio.blackhole());
                      (response.code() == 200 ? ok : response.code() == 429 ? throttled : other)
                          .incrementAndGet();
                    } catch (Exception e) {
                      other.incrementAndGet();
                    }
                  }
                },
                "apf-load-" + i);
        t.setDaemon(true);
        t.start();
        loaders.add(t);
      }
      long start = System.nanoTime();
      Thread.sleep(WINDOW.toMillis()); // the overload's window itself
      stop.set(true);
      for (Thread t : loaders) {
        t.join(Duration.ofSeconds(30).toMillis());
      }
      Duration window = Duration.ofNanos(System.nanoTime() - start);
      ElectorStats after = leader.stats();
      long lost =
          after.termsEndedBy().getOrDefault(TermEnd.RENEW_DEADLINE_EXCEEDED, 0L)
              - before.termsEndedBy().getOrDefault(TermEnd.RENEW_DEADLINE_EXCEEDED, 0L);
      long renewals = after.calls(LockCall.RENEW) - before.calls(LockCall.RENEW);
      long meanMillis =
          renewals == 0
              ? 0
              : after.latency(LockCall.RENEW).minus(before.latency(LockCall.RENEW)).toMillis()
                  / renewals;
      long failed = after.consecutiveFailures();
      long failedRenewals =
          after.calls(LockCall.RENEW, CallOutcome.FAILED)
              - before.calls(LockCall.RENEW, CallOutcome.FAILED);
      Map<String, Long> rejectedAfter = rejectedByPriorityLevel(cluster.admin());
      long rejectedLow = growth(rejectedBefore, rejectedAfter, "workload-low");
      long rejectedShipped = growth(rejectedBefore, rejectedAfter, SHIPPED_LEVEL);
      Figures.record(scenario, "window", Figures.millis(window));
      Figures.record(
          scenario,
          "load-lists",
          ok.get()
              + " ok ("
              + Figures.perSecond(ok.get(), window)
              + "), "
              + throttled.get()
              + " 429, "
              + other.get()
              + " other");
      Figures.record(scenario, "renewals", renewals + ", mean " + meanMillis + " ms");
      Figures.record(
          scenario,
          "slowest-renewal",
          Figures.millis(leader.renewals.slowest())
              + " (longest gap "
              + Figures.millis(leader.renewals.longestGap())
              + ")");
      Figures.record(
          scenario,
          "lost-terms",
          lost
              + " (renewals failed with an answer "
              + failedRenewals
              + ", failures in a row at the end "
              + failed
              + ")");
      Figures.record(
          scenario,
          "apf-rejections",
          "workload-low " + rejectedLow + ", " + SHIPPED_LEVEL + " " + rejectedShipped);
      cohort.timeline.assertNoOverlap();
      return new Phase(
          leader.renewals.slowest().toMillis(),
          lost,
          failedRenewals,
          ok.get(),
          throttled.get(),
          rejectedLow,
          rejectedShipped);
    }
  }

  /**
   * The API server's {@code apiserver_flowcontrol_rejected_requests_total}, summed over flow
   * schemas and reasons, per priority level.
   */
  static Map<String, Long> rejectedByPriorityLevel(ApiClient admin) throws Exception {
    Request get = new Request.Builder().url(admin.getBasePath() + "/metrics").build();
    try (Response response = admin.getHttpClient().newCall(get).execute()) {
      if (!response.isSuccessful()) {
        throw new AssertionError("GET /metrics failed: " + response.code());
      }
      return rejectedByPriorityLevel(response.body().string());
    }
  }

  static Map<String, Long> rejectedByPriorityLevel(String metrics) {
    Map<String, Long> rejected = new java.util.TreeMap<>();
    Pattern line =
        Pattern.compile(
            "^apiserver_flowcontrol_rejected_requests_total\\{[^}]*priority_level=\"([^\"]+)\"[^}]*\\}"
                + " ([0-9.eE+]+)$",
            Pattern.MULTILINE);
    Matcher m = line.matcher(metrics);
    while (m.find()) {
      rejected.merge(m.group(1), (long) Double.parseDouble(m.group(2)), Long::sum);
    }
    return rejected;
  }

  private static long growth(Map<String, Long> before, Map<String, Long> after, String level) {
    return after.getOrDefault(level, 0L) - before.getOrDefault(level, 0L);
  }

  /** The UID of priority level {@code name}. */
  private static String priorityLevelUid(ApiClient admin, String name) throws Exception {
    Request get =
        new Request.Builder()
            .url(
                admin.getBasePath()
                    + "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/"
                    + name)
            .build();
    try (Response response = admin.getHttpClient().newCall(get).execute()) {
      Map<?, ?> object = new Gson().fromJson(response.body().string(), Map.class);
      return (String) ((Map<?, ?>) object.get("metadata")).get("uid");
    }
  }

  /**
   * The UID of the priority level a request of {@code who} on the lock ran in (the API server's
   * X-Kubernetes-PF-PriorityLevel-UID header): a GET, or an empty merge PATCH.
   */
  private static String priorityLevelOf(
      KubeCluster cluster, KubeIdentity who, KubeNamespace namespace, String method)
      throws Exception {
    Request.Builder request =
        new Request.Builder()
            .url(
                cluster.server()
                    + "/apis/coordination.k8s.io/v1/namespaces/"
                    + namespace.name()
                    + "/leases/"
                    + Cohort.LOCK)
            .header("Authorization", "Bearer " + who.token());
    if (method.equals("PATCH")) {
      request.patch(RequestBody.create("{}", MediaType.get("application/merge-patch+json")));
    }
    OkHttpClient http = cluster.clientWithToken(who.token()).getHttpClient();
    try (Response response = http.newCall(request.build()).execute()) {
      if (!response.isSuccessful()) {
        throw new AssertionError(method + " on the lock failed: " + response.code());
      }
      return String.valueOf(response.header("X-Kubernetes-PF-PriorityLevel-UID"));
    }
  }

  /** Applies deploy/apf/flowschema.yaml with its placeholders replaced by {@code who}'s. */
  private static void applyShippedFlowSchema(
      ApiClient admin, KubeIdentity who, KubeNamespace namespace) throws Exception {
    String account = who.subject().getName();
    String text =
        Files.readString(SHIPPED_APF)
            .replace("name: my-app", "name: " + account)
            .replace("my-namespace", namespace.name());
    Gson gson = new Gson();
    for (Object document : new Yaml().loadAll(text)) {
      @SuppressWarnings("unchecked")
      Map<String, Object> object = (Map<String, Object>) document;
      String kind = (String) object.get("kind");
      String plural = kind.equals("FlowSchema") ? "flowschemas" : "prioritylevelconfigurations";
      @SuppressWarnings("unchecked")
      Map<String, Object> metadata = (Map<String, Object>) object.get("metadata");
      String base = admin.getBasePath() + "/apis/flowcontrol.apiserver.k8s.io/v1/" + plural;
      // A previous phase or run may have created it: replace by delete and create.
      Request delete =
          new Request.Builder().url(base + "/" + metadata.get("name")).delete().build();
      admin.getHttpClient().newCall(delete).execute().close(); // 404 when absent: fine
      Request create =
          new Request.Builder()
              .url(base)
              .post(RequestBody.create(gson.toJson(object), MediaType.get("application/json")))
              .build();
      try (Response response = admin.getHttpClient().newCall(create).execute()) {
        if (response.code() != 201) {
          throw new IllegalStateException(
              "creating the shipped "
                  + kind
                  + " failed: "
                  + response.code()
                  + " "
                  + response.body().string());
        }
      }
    }
  }
}
