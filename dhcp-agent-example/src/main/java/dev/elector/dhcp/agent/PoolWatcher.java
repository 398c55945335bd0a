package dev.elector.dhcp.agent;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonSyntaxException;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolRef;
import dev.elector.ippool.NetworkApis;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.Pair;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.BufferedSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists and then watches exactly one IPPool (a field selector on its name) on its own daemon
 * thread, feeding a {@link PoolLeaseCache}. Every list delivers the whole current state, so the
 * cache is right after the first list whatever events follow or do not follow. A broken watch
 * reconnects from the last resourceVersion after a back-off of 0.5 s doubling to 30 s; 410 Gone
 * lists again. A 403 is logged at ERROR with the Role rule to add, once per streak of failures.
 */
public final class PoolWatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PoolWatcher.class);
  private static final long FIRST_BACKOFF_MILLIS = 500;
  private static final long MAX_BACKOFF_MILLIS = 30_000;
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
  private static final String[] AUTH = {"BearerToken"};

  /** A failure of one list or watch, with what to tell the operator. */
  private static final class Broken extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;

    Broken(int status, String message, Throwable cause) {
      super(message, cause, false, false);
      this.status = status;
    }
  }

  private final ApiClient client;
  private final IPPoolRef ref;
  private final PoolLeaseCache cache;
  private final String path;
  private final Pair selector;
  private final OkHttpClient streaming;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean closed;
  private volatile Call current;
  private Thread thread;

  /** A watcher of {@code cache.ref()} through {@code client}; call {@link #start()}. */
  public PoolWatcher(ApiClient client, PoolLeaseCache cache) {
    this.client = Objects.requireNonNull(client, "client");
    this.cache = Objects.requireNonNull(cache, "cache");
    this.ref = cache.ref();
    this.path = "/apis/" + NetworkApis.GROUP + "/" + NetworkApis.VERSION + "/namespaces/"
        + ref.namespace() + "/" + NetworkApis.IPPOOLS;
    this.selector = new Pair("fieldSelector", "metadata.name=" + ref.name());
    this.streaming = client.getHttpClient().newBuilder().readTimeout(Duration.ZERO).build();
  }

  /** Starts the watch thread. */
  public synchronized void start() {
    if (thread != null) {
      throw new IllegalStateException("already started");
    }
    thread = new Thread(this::run, "ippool-watch-" + ref.name());
    thread.setDaemon(true);
    thread.start();
  }

  /** Stops watching and waits up to 5 s for the thread. Idempotent. */
  @Override
  public void close() {
    closed = true;
    stopped.countDown();
    Call call = current;
    if (call != null) {
      call.cancel();
    }
    Thread t;
    synchronized (this) {
      t = thread;
    }
    if (t != null && t != Thread.currentThread()) {
      try {
        t.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void run() {
    long backoff = FIRST_BACKOFF_MILLIS;
    boolean reported = false;
    while (!closed) {
      try {
        String version = list();
        if (reported) {
          log.info("IPPool {}: watching again", ref);
        }
        backoff = FIRST_BACKOFF_MILLIS;
        reported = false;
        while (!closed && version != null) {
          version = watchFrom(version);
        }
      } catch (Broken broken) {
        if (closed) {
          break;
        }
        if (!reported) {
          reported = true;
          if (broken.status == 403 || broken.status == 401) {
            log.error("IPPool {}: {}. The agent needs a Role in namespace {} with get, list and"
                + " watch on ippools.network.harvesterhci.io (see deploy/dhcp-agent/rbac.yaml);"
                + " retrying with back-off", ref, broken.getMessage(), ref.namespace());
          } else {
            log.warn("IPPool {}: {}; retrying with back-off up to {} s", ref, broken.getMessage(),
                MAX_BACKOFF_MILLIS / 1000);
          }
        } else {
          log.debug("IPPool {}: still failing: {}", ref, broken.getMessage());
        }
        try {
          long jittered = backoff + ThreadLocalRandom.current().nextLong(backoff / 5 + 1);
          if (stopped.await(jittered, TimeUnit.MILLISECONDS)) {
            break;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
        backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
      }
    }
  }

  /** Lists the pool, hands its state to the cache and returns the list's resourceVersion. */
  private String list() throws Broken {
    JsonObject body;
    try {
      Call call = client.getHttpClient().newCall(request(List.of(selector)));
      call.timeout().timeout(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      current = call;
      try (Response response = call.execute()) {
        String text = response.body() == null ? "" : response.body().string();
        if (!response.isSuccessful()) {
          throw new Broken(response.code(), "list failed with HTTP " + response.code() + ": "
              + statusMessage(text), null);
        }
        body = parse(text);
      }
    } catch (IOException e) {
      throw new Broken(0, "list failed: " + e, e);
    } finally {
      current = null;
    }
    String version = resourceVersion(body);
    JsonElement items = body == null ? null : body.get("items");
    if (version == null || items == null || !items.isJsonArray()) {
      throw new Broken(0, "the list of IPPools has no resourceVersion or no items", null);
    }
    JsonArray found = items.getAsJsonArray();
    if (found.isEmpty()) {
      cache.absent();
    } else {
      deliver(found.get(0));
    }
    return version;
  }

  /** Watches from {@code version}; returns where to go on, or null to list again (410 Gone). */
  private String watchFrom(String version) throws Broken {
    long timeoutSeconds = 240 + ThreadLocalRandom.current().nextLong(60);
    List<Pair> query = List.of(selector, new Pair("watch", "true"),
        new Pair("resourceVersion", version), new Pair("allowWatchBookmarks", "true"),
        new Pair("timeoutSeconds", Long.toString(timeoutSeconds)));
    String last = version;
    try {
      Call call = streaming.newCall(request(query));
      call.timeout().timeout(timeoutSeconds + 30, TimeUnit.SECONDS);
      current = call;
      if (closed) {
        call.cancel();
        return null;
      }
      try (Response response = call.execute()) {
        ResponseBody body = response.body();
        if (response.code() == 410) {
          return null;
        }
        if (!response.isSuccessful() || body == null) {
          String text = body == null ? "" : body.string();
          throw new Broken(response.code(), "watch failed with HTTP " + response.code() + ": "
              + statusMessage(text), null);
        }
        BufferedSource source = body.source();
        String line;
        while (!closed && (line = source.readUtf8Line()) != null) {
          if (line.isBlank()) {
            continue;
          }
          String next = onEvent(parse(line), last);
          if (next == null) {
            return null;
          }
          last = next;
        }
        return last;
      }
    } catch (IOException e) {
      if (closed) {
        return null;
      }
      throw new Broken(0, "watch broke: " + e, e);
    } finally {
      current = null;
    }
  }

  private String onEvent(JsonObject event, String last) throws Broken {
    if (event == null || !(event.get("object") instanceof JsonObject object)
        || !(event.get("type") instanceof com.google.gson.JsonPrimitive type)) {
      throw new Broken(0, "unreadable watch event", null);
    }
    switch (type.getAsString()) {
      case "ERROR" -> {
        JsonElement code = object.get("code");
        int status = code != null && code.isJsonPrimitive() ? code.getAsInt() : 500;
        if (status == 410) {
          return null;
        }
        throw new Broken(status, "watch error: " + statusMessage(object.toString()), null);
      }
      case "ADDED", "MODIFIED" -> deliver(object);
      case "DELETED" -> cache.absent();
      default -> { } // BOOKMARK only moves the resourceVersion on
    }
    String version = resourceVersion(object);
    return version != null ? version : last;
  }

  private void deliver(JsonElement object) {
    IPPool pool;
    try {
      pool = JSON.deserialize(object.toString(), IPPool.class);
    } catch (RuntimeException e) {
      log.error("IPPool {}: a version of the pool cannot be read ({}); ignoring it", ref,
          e.toString());
      return;
    }
    cache.apply(pool);
  }

  private okhttp3.Request request(List<Pair> query) throws IOException {
    Map<String, String> headers = new HashMap<>();
    headers.put("Accept", "application/json");
    try {
      return client.buildCall(null, path, "GET", new ArrayList<>(query), new ArrayList<>(), null,
          headers, new HashMap<>(), new HashMap<>(), AUTH, null).request();
    } catch (ApiException e) {
      throw new IOException("cannot build the request for " + path + ": " + e.getMessage(), e);
    }
  }

  private static JsonObject parse(String text) {
    try {
      JsonElement element = JsonParser.parseString(text);
      return element.isJsonObject() ? element.getAsJsonObject() : null;
    } catch (JsonSyntaxException | IllegalStateException e) {
      return null;
    }
  }

  private static String resourceVersion(JsonObject object) {
    if (object == null || !(object.get("metadata") instanceof JsonObject metadata)) {
      return null;
    }
    JsonElement version = metadata.get("resourceVersion");
    return version != null && version.isJsonPrimitive() ? version.getAsString() : null;
  }

  private static String statusMessage(String text) {
    JsonObject status = parse(text);
    if (status != null && status.get("message") instanceof com.google.gson.JsonPrimitive m) {
      return m.getAsString();
    }
    return text == null || text.isBlank() ? "(no message)" : text.strip();
  }
}
