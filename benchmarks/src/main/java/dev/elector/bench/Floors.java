package dev.elector.bench;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.elector.fabric8.Fabric8LeaseLock;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The round-trip floors the latency goals are judged against, measured in the same run as Elector,
 * and Elector's acquire beside its floor:
 *
 * <ul>
 *   <li>create floor: one bare POST of a free Lease through the same client as the backend's
 *       (client-java's OkHttp for the Lease lock, the fabric8 client for the fabric8 backend);
 *   <li>handover floor: a bare release PATCH, the time until a watcher of the Lease sees it, and
 *       the watcher's bare acquire PATCH issued at once: from the release's start to the acquire's
 *       answer;
 *   <li>Elector acquire: a new elector on a free Lease, from {@code start()} to its start callback,
 *       with its traced lock calls; interleaved with the create floor, so both see the same load.
 * </ul>
 */
final class Floors {
  /** One handover floor: release PATCH, event seen (from release start), acquire PATCH. */
  record HandoverFloor(double releaseMs, double eventMs, double acquireMs, double totalMs) {}

  /**
   * Elector's acquires of free Leases and the create floor measured between them.
   *
   * @param parts per acquire: start → first call issued, calls before the write (read), read done →
   *     write issued (decision), the write, write done → start callback
   */
  record Acquire(
      Impl impl,
      Timings timings,
      List<Double> createFloorMs,
      List<Double> acquireMs,
      List<double[]> parts,
      int reads) {}

  static final String[] ACQUIRE_PARTS = {
    "start → first call issued",
    "read",
    "read done → write issued (decision)",
    "create write",
    "written → start callback"
  };

  private static final String[] AUTH = {"BearerToken"};
  private static final AtomicInteger NAMES = new AtomicInteger();

  private final Cluster cluster;
  private final String namespace;
  private final ApiClient client;
  private final String leases;

  Floors(Cluster cluster, String namespace) throws IOException {
    this.cluster = cluster;
    this.namespace = namespace;
    this.client = cluster.newApiClient();
    this.leases = "/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases";
  }

  private static String name(String prefix) {
    return prefix
        + "-"
        + NAMES.incrementAndGet()
        + "-"
        + Long.toString(System.nanoTime() % 46656, 36);
  }

  /** Elector's acquire of a free Lease and the bare create, interleaved, after a warm-up. */
  Acquire acquire(Impl impl, Timings timings, int repetitions, int warmup) throws Exception {
    List<Double> floor = new ArrayList<>();
    List<Double> acquire = new ArrayList<>();
    List<double[]> parts = new ArrayList<>();
    int reads = 0;
    for (int i = 0; i < warmup + repetitions; i++) {
      long t0 = System.nanoTime();
      if (impl == Impl.ELECTOR_FABRIC8) {
        createWithFabric8(name("floor-create"), "bench-floor");
      } else {
        create(name("floor-create"), "bench-floor");
      }
      double floorMs = (System.nanoTime() - t0) / 1e6;
      String lock = name("acquire-" + impl.key);
      CountDownLatch started = new CountDownLatch(1);
      long[] startedAt = {0};
      Recorder recorder =
          new Recorder() {
            @Override
            public void started(String who) {
              startedAt[0] = System.nanoTime();
              super.started(who);
              started.countDown();
            }
          };
      ElectorCandidate candidate =
          impl == Impl.ELECTOR_FABRIC8
              ? new ElectorCandidate(
                  Fabric8LeaseLock.newBuilder(cluster.fabric8())
                      .namespace(namespace)
                      .name(lock)
                      .identity(lock + "-c")
                      .build(),
                  timings,
                  true,
                  recorder)
              : new ElectorCandidate(
                  client, namespace, lock, lock + "-c", timings, true, false, recorder, null);
      candidate.probe().trace();
      long s0 = System.nanoTime();
      candidate.start();
      if (!started.await(30, TimeUnit.SECONDS)) {
        candidate.shutdown();
        throw new IllegalStateException(impl.key + " did not acquire a free Lease within 30 s");
      }
      candidate.shutdown();
      if (i < warmup) {
        continue;
      }
      floor.add(floorMs);
      acquire.add((startedAt[0] - s0) / 1e6);
      Probe p = candidate.probe();
      long firstRead = p.first(Probe.MarkKind.READ, s0);
      long firstWrite = p.first(Probe.MarkKind.WRITE, s0);
      long firstCall =
          firstRead < 0 ? firstWrite : firstWrite < 0 ? firstRead : Math.min(firstRead, firstWrite);
      long readDone = p.last(Probe.MarkKind.READ_DONE, s0, firstWrite);
      long written = firstWrite < 0 ? -1 : p.first(Probe.MarkKind.WRITE_DONE, firstWrite);
      boolean readFirst = firstRead >= 0 && firstRead - firstWrite < 0;
      if (readFirst) {
        reads++;
      }
      parts.add(
          new double[] {
            ms(s0, firstCall),
            readFirst ? ms(firstRead, readDone) : 0,
            readFirst ? ms(readDone, firstWrite) : 0,
            ms(firstWrite, written),
            ms(written, startedAt[0])
          });
    }
    return new Acquire(impl, timings, floor, acquire, parts, reads);
  }

  private static double ms(long from, long to) {
    return from < 0 || to < 0 ? Double.NaN : (to - from) / 1e6;
  }

  /**
   * The handover floor, {@code repetitions} times after a warm-up: a Lease held by "a"; a bare
   * watch of it; a release PATCH; on the watch event that shows it released, an acquire PATCH by
   * "b" conditional on the event's resourceVersion.
   */
  List<HandoverFloor> handover(int repetitions, int warmup) throws Exception {
    List<HandoverFloor> result = new ArrayList<>();
    OkHttpClient streaming = client.getHttpClient().newBuilder().readTimeout(Duration.ZERO).build();
    for (int i = 0; i < warmup + repetitions; i++) {
      String lease = name("floor-handover");
      String version = create(lease, "a");
      Call watch =
          streaming.newCall(
              request(
                  "GET",
                  leases,
                  List.of(
                      new Pair("watch", "true"),
                      new Pair("fieldSelector", "metadata.name=" + lease),
                      new Pair("resourceVersion", version)),
                  null,
                  null));
      Response response = watch.execute();
      CompletableFuture<long[]> seenAndAcquired =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  while (true) {
                    String line = response.body().source().readUtf8Line();
                    if (line == null) {
                      throw new IllegalStateException("the watch of " + lease + " ended");
                    }
                    JsonObject event = JsonParser.parseString(line).getAsJsonObject();
                    JsonObject object = event.getAsJsonObject("object");
                    JsonObject spec = object.getAsJsonObject("spec");
                    if (spec == null
                        || !spec.has("holderIdentity")
                        || spec.get("holderIdentity").getAsString().isEmpty()) {
                      long seen = System.nanoTime();
                      String rv =
                          object.getAsJsonObject("metadata").get("resourceVersion").getAsString();
                      patch(lease, rv, "b");
                      return new long[] {seen, System.nanoTime()};
                    }
                  }
                } catch (IOException e) {
                  throw new IllegalStateException(e);
                }
              });
      long t0 = System.nanoTime();
      patch(lease, version, "");
      long released = System.nanoTime();
      long[] at = seenAndAcquired.get(30, TimeUnit.SECONDS);
      watch.cancel();
      response.close();
      if (i >= warmup) {
        result.add(
            new HandoverFloor(
                (released - t0) / 1e6,
                (at[0] - t0) / 1e6,
                (at[1] - at[0]) / 1e6,
                (at[1] - t0) / 1e6));
      }
    }
    return result;
  }

  /** POSTs a Lease held by {@code holder}; returns its resourceVersion. */
  private String create(String lease, String holder) throws IOException {
    JsonObject spec = new JsonObject();
    spec.addProperty("holderIdentity", holder);
    spec.addProperty("leaseDurationSeconds", 15);
    Instant now = Instant.now();
    spec.addProperty("acquireTime", micro(now));
    spec.addProperty("renewTime", micro(now));
    spec.addProperty("leaseTransitions", 0);
    JsonObject metadata = new JsonObject();
    metadata.addProperty("name", lease);
    JsonObject body = new JsonObject();
    body.addProperty("apiVersion", "coordination.k8s.io/v1");
    body.addProperty("kind", "Lease");
    body.add("metadata", metadata);
    body.add("spec", spec);
    return send("POST", leases, body, "application/json");
  }

  /** Creates a Lease held by {@code holder} through the fabric8 client, the fabric8 backend's. */
  private void createWithFabric8(String lease, String holder) {
    Instant now = Instant.now();
    cluster
        .fabric8()
        .leases()
        .inNamespace(namespace)
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName(lease)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(holder)
                .withLeaseDurationSeconds(15)
                .withAcquireTime(now.atZone(ZoneOffset.UTC))
                .withRenewTime(now.atZone(ZoneOffset.UTC))
                .withLeaseTransitions(0)
                .endSpec()
                .build())
        .create();
  }

  /** A conditional merge patch naming {@code holder} (empty: released). */
  private void patch(String lease, String version, String holder) throws IOException {
    JsonObject spec = new JsonObject();
    spec.addProperty("holderIdentity", holder);
    spec.addProperty("renewTime", micro(Instant.now()));
    JsonObject metadata = new JsonObject();
    metadata.addProperty("resourceVersion", version);
    JsonObject body = new JsonObject();
    body.add("metadata", metadata);
    body.add("spec", spec);
    send("PATCH", leases + "/" + lease, body, "application/merge-patch+json");
  }

  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private static String micro(Instant instant) {
    return MICRO_TIME.format(instant);
  }

  private String send(String method, String path, JsonObject body, String contentType)
      throws IOException {
    Call call = client.getHttpClient().newCall(request(method, path, List.of(), body, contentType));
    try (Response response = call.execute()) {
      String text = response.body() == null ? "" : response.body().string();
      if (!response.isSuccessful()) {
        throw new IOException(method + " " + path + ": HTTP " + response.code() + " " + text);
      }
      return JsonParser.parseString(text)
          .getAsJsonObject()
          .getAsJsonObject("metadata")
          .get("resourceVersion")
          .getAsString();
    }
  }

  private Request request(
      String method, String path, List<Pair> query, JsonObject body, String contentType)
      throws IOException {
    Map<String, String> headers = new HashMap<>();
    headers.put("Accept", "application/json");
    if (body != null) {
      headers.put("Content-Type", contentType);
    }
    try {
      return client
          .buildCall(
              null,
              path,
              method,
              query,
              List.of(),
              body,
              headers,
              new HashMap<>(),
              new HashMap<>(),
              AUTH,
              null)
          .request();
    } catch (ApiException e) {
      throw new IOException(e);
    }
  }
}
