package dev.elector.dhcp.agent;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.reflect.TypeToken;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolRef;
import dev.elector.ippool.NetworkApis;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.util.Watch;
import java.io.IOException;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds a {@link PoolLeaseCache} from one IPPool with a plain list-then-watch loop of client-java
 * ({@link Watch}) on a daemon thread of its own. Both requests carry the field selector {@code
 * metadata.name=<pool>}, so a Role may name the one pool. Every list delivers the whole current
 * state, so the cache is right after the first list whatever events follow or do not follow. A
 * watch resumes from the last resourceVersion it saw; 410 Gone lists again. After a failure, or a
 * watch that ended within 30 s, the next attempt waits a jittered back-off of 0.5 s doubling to 30
 * s, which starts over once a watch has stayed open for 30 s. A 403 or 401 is logged at ERROR with
 * the Role rule to add, other failures at WARN, each once per streak of failures.
 */
public final class PoolWatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PoolWatcher.class);
  private static final int LIST_TIMEOUT_SECONDS = 10;
  private static final int WATCH_SECONDS = 300; // the server ends each watch after this
  private static final long HEALTHY_NANOS = TimeUnit.SECONDS.toNanos(30);
  private static final long FIRST_BACKOFF_MILLIS = 500;
  private static final long MAX_BACKOFF_MILLIS = 30_000;
  private static final Type EVENT = new TypeToken<Watch.Response<JsonObject>>() {}.getType();

  private final IPPoolRef ref;
  private final PoolLeaseCache cache;
  private final ApiClient client;
  private final OkHttpClient http;
  private final Thread thread;
  private final CountDownLatch stop = new CountDownLatch(1);
  private final AtomicLong failures = new AtomicLong();
  private volatile Call current; // the request in flight, cancelled by close()

  // Read and written by the watch thread only.
  private String version; // where the next watch starts; null: list first
  private long backoffMillis;
  private boolean failing;

  /** A watcher of {@code cache.ref()} through {@code client}; call {@link #start()}. */
  public PoolWatcher(ApiClient client, PoolLeaseCache cache) {
    this.client = Objects.requireNonNull(client, "client");
    this.cache = Objects.requireNonNull(cache, "cache");
    this.ref = cache.ref();
    // A watch may stay silent for minutes: no read timeout; each call gets a timeout of its own.
    this.http = client.getHttpClient().newBuilder().readTimeout(Duration.ZERO).build();
    this.thread = new Thread(this::run, "ippool-watch-" + ref.namespace() + "-" + ref.name());
    thread.setDaemon(true);
  }

  /** Starts watching. */
  public void start() {
    thread.start();
  }

  /** Stops watching and waits up to 5 s for the thread. Idempotent. */
  @Override
  public void close() {
    stop.countDown();
    Call call = current;
    if (call != null) {
      call.cancel();
    }
    if (Thread.currentThread() != thread) {
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Failed attempts to list or watch the pool so far. */
  long failures() {
    return failures.get();
  }

  private boolean closed() {
    return stop.getCount() == 0;
  }

  private void run() {
    while (!closed()) {
      long began = System.nanoTime();
      try {
        if (version == null) {
          list();
        }
        watch();
      } catch (ApiException | RuntimeException e) {
        if (closed()) {
          return;
        }
        if (e instanceof ApiException refused && refused.getCode() == 410) {
          version = null; // too old to resume from: list again
        } else {
          failed(e);
        }
      }
      if (System.nanoTime() - began >= HEALTHY_NANOS) {
        backoffMillis = 0; // a watch stayed open: go on at once, and the streak is over
        failing = false;
      } else if (pause()) {
        return;
      }
    }
  }

  /** Lists the pool and hands its whole state to the cache. */
  private void list() throws ApiException {
    JsonObject list = client.<JsonObject>execute(call(false), JsonObject.class).getData();
    if (failing) {
      log.info("IPPool {}: listed again", ref);
    }
    JsonArray items = list.getAsJsonArray("items");
    if (items == null || items.isEmpty()) {
      cache.absent();
    } else {
      deliver(items.get(0).getAsJsonObject());
    }
    version = resourceVersion(list);
  }

  /** Watches from {@link #version} until the server ends the watch. */
  private void watch() throws ApiException {
    try (Watch<JsonObject> watch = Watch.createWatch(client, call(true), EVENT)) {
      for (Watch.Response<JsonObject> event : watch) {
        if (event.type.equals("ERROR")) {
          int code = event.status == null ? 500 : event.status.getCode();
          throw new ApiException(code, event.status == null ? "" : event.status.getMessage());
        }
        version = resourceVersion(event.object);
        if (event.type.equals("DELETED")) {
          cache.absent();
        } else if (!event.type.equals("BOOKMARK")) {
          deliver(event.object);
        }
      }
    } catch (IOException e) {
      throw new ApiException(e); // from closing the watch
    }
  }

  /** A list or watch of the one pool, tracked so that close() can cancel it. */
  private Call call(boolean watch) throws ApiException {
    Call call =
        http.newCall(
            new CustomObjectsApi(client)
                .listNamespacedCustomObject(
                    NetworkApis.GROUP, NetworkApis.VERSION, ref.namespace(), NetworkApis.IPPOOLS)
                .fieldSelector("metadata.name=" + ref.name())
                .resourceVersion(watch ? version : null)
                .watch(watch)
                .timeoutSeconds(watch ? WATCH_SECONDS : null)
                .buildCall(null)
                .request());
    call.timeout().timeout(watch ? WATCH_SECONDS + 30 : LIST_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    current = call;
    if (closed()) {
      call.cancel();
    }
    return call;
  }

  private void deliver(JsonObject object) {
    IPPool pool;
    try {
      pool = JSON.deserialize(object.toString(), IPPool.class);
    } catch (RuntimeException e) {
      log.error(
          "IPPool {}: a version of the pool cannot be read ({}); ignoring it", ref, e.toString());
      return;
    }
    cache.apply(pool);
  }

  private static String resourceVersion(JsonObject object) {
    return object.getAsJsonObject("metadata").get("resourceVersion").getAsString();
  }

  /** Waits the back-off: 0.5 s doubling to 30 s, less up to a half at random; true once closed. */
  private boolean pause() {
    backoffMillis = Math.min(Math.max(FIRST_BACKOFF_MILLIS, backoffMillis * 2), MAX_BACKOFF_MILLIS);
    long wait = backoffMillis - ThreadLocalRandom.current().nextLong(backoffMillis / 2 + 1);
    try {
      return stop.await(wait, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  private void failed(Exception e) {
    failures.incrementAndGet();
    int code = e instanceof ApiException refused ? refused.getCode() : 0;
    String what = describe(e);
    if (failing) {
      log.debug("IPPool {}: still failing: {}", ref, what);
    } else if (code == 401 || code == 403) {
      log.error(
          "IPPool {}: {}. The agent needs get, list and watch on ippools.network.harvesterhci.io"
              + " named {} in namespace {} (a Role rule; see deploy/dhcp-agent/rbac.yaml);"
              + " retrying with back-off",
          ref,
          what,
          ref.name(),
          ref.namespace());
    } else {
      log.warn("IPPool {}: {}; retrying with back-off up to 30 s", ref, what);
    }
    failing = true;
  }

  /** The API server's message for a refusal, else the underlying exception. */
  private static String describe(Exception e) {
    if (e instanceof ApiException refused && refused.getCode() != 0) {
      String message = refused.getMessage();
      try {
        message =
            JsonParser.parseString(refused.getResponseBody())
                .getAsJsonObject()
                .get("message")
                .getAsString();
      } catch (RuntimeException notAStatus) {
        // keep the exception's own message
      }
      return "HTTP " + refused.getCode() + ": " + message;
    }
    return (e.getCause() != null ? e.getCause() : e).toString();
  }
}
