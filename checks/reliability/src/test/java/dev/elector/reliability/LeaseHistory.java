package dev.elector.reliability;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.reflect.TypeToken;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.util.Watch;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;

/**
 * The lock's history as the server keeps it: every change of one Lease, seen over a watch of the
 * admin client (no proxy, no injected fault) and stamped on the monotonic clock when it arrives.
 * After the watch breaks (an API server restart) it lists again and goes on. From the history it
 * computes the earliest instant at which a candidate could safely lead: the end of every lease a
 * landed write claimed, a release ending them.
 */
final class LeaseHistory implements AutoCloseable {
  private static final Type EVENT = new TypeToken<Watch.Response<JsonObject>>() {}.getType();

  /**
   * One change. {@code holder} is empty for a released record and null for a deletion; {@code
   * leaseNanos} is the lease the record claims.
   */
  record Change(long atNanos, @Nullable String holder, long leaseNanos, long transitions) {
    boolean claims() {
      return holder != null && !holder.isEmpty();
    }
  }

  private final ApiClient admin;
  private final OkHttpClient http;
  private final String namespace;
  private final String name;
  private final List<Change> changes = new ArrayList<>();
  private final Thread thread;
  private volatile boolean closed;
  private volatile @Nullable Call current;
  private @Nullable String lastVersion; // only the recording thread

  private LeaseHistory(ApiClient admin, String namespace, String name) {
    this.admin = admin;
    this.http = admin.getHttpClient().newBuilder().readTimeout(0, TimeUnit.SECONDS).build();
    this.namespace = namespace;
    this.name = name;
    this.thread = new Thread(this::run, "lease-history-" + name);
    this.thread.setDaemon(true);
  }

  /** Starts recording the Lease {@code name} in {@code namespace}. */
  static LeaseHistory start(ApiClient admin, String namespace, String name) {
    LeaseHistory history = new LeaseHistory(admin, namespace, name);
    history.thread.start();
    return history;
  }

  /** The changes so far, oldest first. */
  synchronized List<Change> changes() {
    return List.copyOf(changes);
  }

  /**
   * The earliest instant at which a candidate could have safely started the term that {@code
   * holder} won with {@code token}: the latest end of a lease claimed before that win, counted from
   * the last release before it; {@code Long.MIN_VALUE} if nothing was claimed.
   *
   * @throws IllegalStateException if the winning write is not in the history
   */
  synchronized long safeInstantBefore(String holder, long token, long notBefore) {
    long safe = Long.MIN_VALUE;
    for (Change change : changes) {
      if (change.atNanos() >= notBefore
          && holder.equals(change.holder())
          && change.transitions() == token) {
        return safe;
      }
      if (change.claims()) {
        safe = Math.max(safe, change.atNanos() + change.leaseNanos());
      } else if (change.holder() != null) {
        safe = change.atNanos(); // a release ends the claims before it
      } // a deletion ends no claim: the holder it removed may still be leading
    }
    throw new IllegalStateException(
        "the write that started " + holder + "'s term " + token + " is not in " + changes);
  }

  @Override
  public void close() {
    closed = true;
    Call call = current;
    if (call != null) {
      call.cancel();
    }
    thread.interrupt(); // a daemon thread: it ends with its next step
  }

  private void run() {
    while (!closed) {
      try {
        String version = list();
        watchFrom(version);
      } catch (Exception e) {
        if (closed) {
          return;
        }
        try {
          Thread.sleep(100); // the server is away: list again soon
        } catch (InterruptedException interrupted) {
          return;
        }
      }
    }
  }

  private String list() throws Exception {
    Call call = call(false, null);
    try (okhttp3.Response response = call.execute()) {
      if (!response.isSuccessful() || response.body() == null) {
        throw new IllegalStateException("list answered " + response.code());
      }
      JsonObject list =
          io.kubernetes.client.openapi.JSON.deserialize(response.body().string(), JsonObject.class);
      JsonElement items = list.get("items");
      if (items == null || items.getAsJsonArray().isEmpty()) {
        if (lastVersion != null) {
          record(null);
        }
      } else {
        record(items.getAsJsonArray().get(0).getAsJsonObject());
      }
      return list.getAsJsonObject("metadata").get("resourceVersion").getAsString();
    }
  }

  private void watchFrom(String version) throws Exception {
    try (Watch<JsonObject> watch = Watch.createWatch(admin, call(true, version), EVENT)) {
      for (Watch.Response<JsonObject> event : watch) {
        if (closed) {
          return;
        }
        switch (event.type) {
          case "ERROR" -> throw new IllegalStateException("watch ended: " + event.status);
          case "DELETED" -> record(null);
          case "ADDED", "MODIFIED" -> record(event.object);
          default -> {} // bookmarks
        }
      }
    }
  }

  private Call call(boolean watch, @Nullable String version) throws Exception {
    okhttp3.Request request =
        new CoordinationV1Api(admin)
            .listNamespacedLease(namespace)
            .fieldSelector("metadata.name=" + name)
            .resourceVersion(version)
            .watch(watch)
            .timeoutSeconds(watch ? 60 : null)
            .buildCall(null)
            .request();
    Call call = http.newCall(request);
    current = call;
    if (closed) {
      call.cancel();
    }
    return call;
  }

  /** Records {@code lease} (null: deleted) if it is a version not recorded yet. */
  private void record(@Nullable JsonObject lease) {
    long now = System.nanoTime();
    if (lease == null) {
      lastVersion = null;
      add(new Change(now, null, 0, -1));
      return;
    }
    String version = lease.getAsJsonObject("metadata").get("resourceVersion").getAsString();
    if (Objects.equals(version, lastVersion)) {
      return;
    }
    lastVersion = version;
    JsonObject spec = lease.getAsJsonObject("spec");
    String holder = text(spec, "holderIdentity");
    long seconds = number(spec, "leaseDurationSeconds");
    long transitions = number(spec, "leaseTransitions");
    add(new Change(now, holder == null ? "" : holder, seconds * 1_000_000_000L, transitions));
  }

  private synchronized void add(Change change) {
    changes.add(change);
  }

  private static @Nullable String text(@Nullable JsonObject spec, String field) {
    JsonElement value = spec == null ? null : spec.get(field);
    return value == null || value.isJsonNull() ? null : value.getAsString();
  }

  private static long number(@Nullable JsonObject spec, String field) {
    JsonElement value = spec == null ? null : spec.get(field);
    return value == null || value.isJsonNull() ? 0 : value.getAsLong();
  }
}
