package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.configmap.ConfigMapLock;
import dev.elector.k8s.LeaseLock;
import dev.elector.lock.LeaderLock;
import dev.elector.testkit.LeadershipTimeline;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import dev.elector.time.MonotonicClock;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Lock records an outside writer could leave behind, each read by two fresh candidates: not JSON,
 * wrong types, negative, zero, missing or absurd lease durations, an empty holder, timestamps in
 * odd formats or far in the past or future. Never a crash; a foreign record is never overwritten
 * before it could have expired (at least this candidate's own lease after it was first seen, or the
 * record's longer lease); a release that shows its holder wrote it (an acquisition time apart from
 * its release time, as Elector's own release keeps) is taken at once, any other release (an empty
 * holder with no times, or client-go's release, whose two times are one) only after this
 * candidate's own lease; a record with an absurd lease is honoured. The other data of the object is
 * kept.
 */
@KubeTest
class BadRecordsIT {
  private static final Duration OWN_LEASE = Cohort.LEASE;
  private static final Duration WINDOW = Duration.ofSeconds(14);

  /** When a takeover may happen: not before {@code earliest}; by {@code latest} (null: never). */
  private record Expect(Duration earliest, Duration latest) {
    static Expect notBefore(Duration earliest) {
      return new Expect(earliest, earliest.plus(Duration.ofSeconds(3)));
    }

    static Expect atOnce() {
      return new Expect(Duration.ZERO, Duration.ofSeconds(2));
    }

    static Expect never() {
      return new Expect(WINDOW, null);
    }
  }

  private record Case(String name, String annotation, Expect expect) {}

  private static final String GHOST = "\"holderIdentity\":\"ghost\"";
  private static final String NOW = "\"renewTime\":\"" + OffsetDateTime.now(ZoneOffset.UTC) + "\"";

  private static final List<Case> CONFIGMAP_CASES =
      List.of(
          new Case("not-json", "{holderIdentity: ghost", Expect.notBefore(OWN_LEASE)),
          new Case("json-array", "[1,2,3]", Expect.notBefore(OWN_LEASE)),
          new Case(
              "holder-not-string",
              "{\"holderIdentity\":42,\"leaseDurationSeconds\":3}",
              Expect.notBefore(OWN_LEASE)),
          new Case(
              "negative-duration",
              "{" + GHOST + ",\"leaseDurationSeconds\":-5," + NOW + "}",
              Expect.notBefore(OWN_LEASE)),
          new Case(
              "zero-duration",
              "{" + GHOST + ",\"leaseDurationSeconds\":0," + NOW + "}",
              Expect.notBefore(OWN_LEASE)),
          new Case("no-duration", "{" + GHOST + "," + NOW + "}", Expect.notBefore(OWN_LEASE)),
          new Case(
              "fractional-duration",
              "{" + GHOST + ",\"leaseDurationSeconds\":2.5}",
              Expect.notBefore(OWN_LEASE)),
          new Case(
              "one-second-duration",
              "{" + GHOST + ",\"leaseDurationSeconds\":1," + NOW + "}",
              Expect.notBefore(OWN_LEASE)),
          new Case(
              "longer-duration",
              "{" + GHOST + ",\"leaseDurationSeconds\":8," + NOW + "}",
              Expect.notBefore(Duration.ofSeconds(8))),
          new Case(
              "absurd-duration",
              "{" + GHOST + ",\"leaseDurationSeconds\":9223372036854775807}",
              Expect.never()),
          new Case(
              "huge-duration",
              "{" + GHOST + ",\"leaseDurationSeconds\":1000000000000}",
              Expect.never()),
          new Case(
              "empty-holder",
              "{\"holderIdentity\":\"\",\"leaseDurationSeconds\":3}",
              Expect.notBefore(OWN_LEASE)),
          new Case(
              "blank-holder",
              "{\"holderIdentity\":\"   \",\"leaseDurationSeconds\":3}",
              Expect.notBefore(OWN_LEASE)),
          new Case(
              "client-go-release",
              "{\"holderIdentity\":\"\",\"leaseDurationSeconds\":1,"
                  + "\"acquireTime\":\"2026-12-06T10:00:05Z\","
                  + "\"renewTime\":\"2026-12-06T10:00:05Z\",\"leaderTransitions\":3}",
              Expect.notBefore(OWN_LEASE)),
          new Case(
              "holders-own-release",
              "{\"holderIdentity\":\"\",\"leaseDurationSeconds\":1,"
                  + "\"acquireTime\":\"2026-12-06T10:00:00.000001Z\","
                  + "\"renewTime\":\"2026-12-06T10:00:05.000001Z\",\"leaderTransitions\":3}",
              Expect.atOnce()),
          new Case(
              "odd-timestamps",
              "{"
                  + GHOST
                  + ",\"leaseDurationSeconds\":3,\"acquireTime\":"
                  + "\"2026-13-45T99:99:99Z\",\"renewTime\":\"yesterday\"}",
              Expect.notBefore(OWN_LEASE)),
          new Case(
              "numeric-timestamps",
              "{" + GHOST + ",\"leaseDurationSeconds\":3,\"renewTime\":" + "1700000000}",
              Expect.notBefore(OWN_LEASE)),
          new Case(
              "renewed-far-in-the-future",
              "{"
                  + GHOST
                  + ",\"leaseDurationSeconds\":3,"
                  + "\"renewTime\":\"2999-01-01T00:00:00Z\"}",
              Expect.notBefore(OWN_LEASE)),
          new Case(
              "renewed-long-ago",
              "{"
                  + GHOST
                  + ",\"leaseDurationSeconds\":3,"
                  + "\"renewTime\":\"1970-01-01T00:00:00Z\"}",
              Expect.notBefore(OWN_LEASE)),
          new Case(
              "negative-transitions",
              "{" + GHOST + ",\"leaseDurationSeconds\":3," + "\"leaderTransitions\":-7}",
              Expect.notBefore(OWN_LEASE)),
          new Case(
              "transitions-not-a-number",
              "{" + GHOST + ",\"leaseDurationSeconds\":3," + "\"leaderTransitions\":\"seven\"}",
              Expect.notBefore(OWN_LEASE)),
          new Case(
              "huge-holder",
              "{\"holderIdentity\":\"" + "x".repeat(100_000) + "\",\"leaseDurationSeconds\":3}",
              Expect.notBefore(OWN_LEASE)));

  private record Running(
      String what,
      Expect expect,
      LeadershipTimeline timeline,
      List<LeaderElector> electors,
      long startNanos) {}

  @Test
  void noBadConfigMapRecordCrashesACandidateOrIsOverwrittenBeforeItCouldHaveExpired(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    ApiClient admin = cluster.admin();
    CoreV1Api core = new CoreV1Api(admin);
    List<Running> running = new ArrayList<>();
    for (Case c : CONFIGMAP_CASES) {
      String name = "bad-" + c.name();
      core.createNamespacedConfigMap(
              namespace.name(),
              new V1ConfigMap()
                  .apiVersion("v1")
                  .kind("ConfigMap")
                  .metadata(
                      new V1ObjectMeta()
                          .name(name)
                          .annotations(Map.of(ConfigMapLock.ANNOTATION, c.annotation())))
                  .data(Map.of("keep", "this")))
          .execute();
      running.add(
          start(
              "configmap " + c.name(),
              c.expect(),
              id ->
                  ConfigMapLock.newBuilder(admin)
                      .namespace(namespace.name())
                      .name(name)
                      .identity(id)
                      .build()));
    }
    check(running);
    for (Case c : CONFIGMAP_CASES) {
      V1ConfigMap after =
          core.readNamespacedConfigMap("bad-" + c.name(), namespace.name()).execute();
      assertTrue(
          "this".equals(after.getData().get("keep")), c.name() + " lost the ConfigMap's data");
    }
  }

  @Test
  void noBadLeaseRecordCrashesACandidateOrIsOverwrittenBeforeItCouldHaveExpired(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    ApiClient admin = cluster.admin();
    CoordinationV1Api leases = new CoordinationV1Api(admin);
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    Map<String, V1LeaseSpec> specs = new java.util.LinkedHashMap<>();
    specs.put("empty-holder", new V1LeaseSpec().holderIdentity("").leaseDurationSeconds(3));
    specs.put("no-holder", new V1LeaseSpec().leaseDurationSeconds(3));
    specs.put(
        "holders-own-release",
        new V1LeaseSpec()
            .holderIdentity("")
            .leaseDurationSeconds(1)
            .acquireTime(now.minusSeconds(5))
            .renewTime(now)
            .leaseTransitions(3));
    specs.put("no-duration", new V1LeaseSpec().holderIdentity("ghost").renewTime(now));
    specs.put(
        "longest-duration",
        new V1LeaseSpec()
            .holderIdentity("ghost")
            .leaseDurationSeconds(Integer.MAX_VALUE)
            .renewTime(now));
    specs.put(
        "renewed-far-in-the-future",
        new V1LeaseSpec()
            .holderIdentity("ghost")
            .leaseDurationSeconds(3)
            .renewTime(OffsetDateTime.parse("2999-01-01T00:00:00Z")));
    specs.put(
        "renewed-long-ago",
        new V1LeaseSpec()
            .holderIdentity("ghost")
            .leaseDurationSeconds(3)
            .renewTime(OffsetDateTime.parse("1970-01-01T00:00:00Z")));
    specs.put("zero-duration", new V1LeaseSpec().holderIdentity("ghost").leaseDurationSeconds(0));
    specs.put(
        "negative-duration", new V1LeaseSpec().holderIdentity("ghost").leaseDurationSeconds(-5));
    specs.put(
        "negative-transitions",
        new V1LeaseSpec().holderIdentity("ghost").leaseDurationSeconds(3).leaseTransitions(-7));
    Map<String, Expect> expect =
        Map.of(
            "empty-holder",
            Expect.notBefore(OWN_LEASE),
            "no-holder",
            Expect.notBefore(OWN_LEASE),
            "holders-own-release",
            Expect.atOnce(),
            "longest-duration",
            Expect.never());
    List<Running> running = new ArrayList<>();
    for (Map.Entry<String, V1LeaseSpec> spec : specs.entrySet()) {
      String name = "bad-" + spec.getKey();
      try {
        leases
            .createNamespacedLease(
                namespace.name(),
                new V1Lease()
                    .apiVersion("coordination.k8s.io/v1")
                    .kind("Lease")
                    .metadata(new V1ObjectMeta().name(name))
                    .spec(spec.getValue()))
            .execute();
      } catch (ApiException e) {
        Figures.record(
            "bad-records",
            "lease-" + spec.getKey(),
            "refused by the API server (" + e.getCode() + ")");
        continue;
      }
      running.add(
          start(
              "lease " + spec.getKey(),
              expect.getOrDefault(spec.getKey(), Expect.notBefore(OWN_LEASE)),
              id ->
                  LeaseLock.newBuilder(admin)
                      .namespace(namespace.name())
                      .name(name)
                      .identity(id)
                      .build()));
    }
    assertTrue(running.size() >= 6, "most cases reach the candidates: " + running.size());
    check(running);
  }

  private Running start(String what, Expect expect, Function<String, LeaderLock> lock) {
    LeadershipTimeline timeline = new LeadershipTimeline(MonotonicClock.system());
    long start = System.nanoTime();
    List<LeaderElector> electors = new ArrayList<>();
    for (String id : List.of("a", "b")) {
      electors.add(
          LeaderElector.start(
              ElectorConfig.newBuilder()
                  .lock(lock.apply(id))
                  .leaseDuration(Cohort.LEASE)
                  .renewDeadline(Cohort.RENEW_DEADLINE)
                  .retryPeriod(Cohort.RETRY)
                  .maxBackoff(Cohort.MAX_BACKOFF)
                  .callbacks(LeaderCallbacks.of(t -> {}, (t, r) -> {}))
                  .listener(timeline.listenerFor(id))
                  .build()));
    }
    return new Running(what, expect, timeline, electors, start);
  }

  private void check(List<Running> running) throws InterruptedException {
    Thread.sleep(WINDOW.toMillis()); // the observation window itself: each record is watched for it
    List<String> problems = new ArrayList<>();
    for (Running r : running) {
      List<LeadershipTimeline.Interval> terms = r.timeline().terms();
      String outcome =
          terms.isEmpty()
              ? "not taken in " + Figures.millis(WINDOW)
              : "taken after "
                  + Figures.millis(Duration.ofNanos(terms.get(0).startNanos() - r.startNanos()));
      Figures.record("bad-records", r.what(), outcome);
      for (LeaderElector e : r.electors()) {
        if (!e.stats().healthy()) {
          problems.add(r.what() + ": unhealthy: " + e.stats().status());
        }
      }
      try {
        r.timeline().assertNoTwoLeaders();
      } catch (AssertionError e) {
        problems.add(r.what() + ": " + e.getMessage());
      }
      if (r.expect().latest() == null) {
        if (!terms.isEmpty()) {
          problems.add(r.what() + ": a record with an absurd lease was overwritten: " + outcome);
        }
        continue;
      }
      if (terms.isEmpty()) {
        problems.add(r.what() + ": never taken over");
        continue;
      }
      Duration after = Duration.ofNanos(terms.get(0).startNanos() - r.startNanos());
      if (after.compareTo(r.expect().earliest()) < 0) {
        problems.add(
            r.what() + ": overwritten after " + after + ", before " + r.expect().earliest());
      }
      if (after.compareTo(r.expect().latest()) > 0) {
        problems.add(
            r.what() + ": taken over only after " + after + ", expected by " + r.expect().latest());
      }
    }
    running.forEach(r -> r.electors().forEach(LeaderElector::close));
    assertTrue(problems.isEmpty(), String.join("\n", problems));
  }
}
