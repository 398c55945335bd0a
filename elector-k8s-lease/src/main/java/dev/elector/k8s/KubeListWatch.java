package dev.elector.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.elector.lock.LockFailure;
import io.kubernetes.client.openapi.Pair;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The list-then-watch loop over one collection path, on a daemon thread of its own. After every
 * (re)list it hands over the listed objects; then each change. A break is handed over as a failure
 * and the loop reconnects after a back-off of 0.5 s doubling to 30 s (plus up to a fifth, so that
 * many watches do not reconnect in step after an outage); the end of a watch's
 * server-side timeout reconnects silently from the last resourceVersion, and 410 Gone lists again.
 * Subclasses decide what the objects mean and whom to tell.
 */
abstract class KubeListWatch implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(KubeListWatch.class);
  private static final long FIRST_BACKOFF_MILLIS = 500;
  private static final long MAX_BACKOFF_MILLIS = 30_000;

  /** The watch broke; carries the failure to hand over. */
  private static final class Broken extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient LockFailure failure;

    Broken(LockFailure failure) {
      super(failure.message(), null, false, false);
      this.failure = failure;
    }
  }

  private final KubeHttp http;
  private final String collectionPath;
  private final List<Pair> selector;
  private final KubeFailures failures;
  private final long requestTimeoutMillis;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean closed;
  private volatile okhttp3.Call current;
  private volatile Thread thread;
  private boolean failing;

  /**
   * @param selector the list's and watch's selector parameters; empty for the whole collection
   */
  KubeListWatch(KubeHttp http, String collectionPath, List<Pair> selector,
      KubeFailures failures, Duration requestTimeout) {
    this.http = http;
    this.collectionPath = collectionPath;
    this.selector = List.copyOf(selector);
    this.failures = failures;
    this.requestTimeoutMillis = requestTimeout.toMillis();
  }

  /** What the logs call this watch. */
  abstract String describe();

  /** Every object of a completed list, in the server's order: the whole state. */
  abstract void listed(List<JsonObject> objects);

  /** One ADDED, MODIFIED or DELETED event. */
  abstract void changed(String type, JsonObject object);

  /**
   * The watch broke; it reconnects by itself.
   *
   * @param firstInARow whether this is the first failure since the last successful list
   */
  abstract void broke(LockFailure failure, boolean firstInARow);

  final void start(String threadPrefix) {
    Thread started = KubeThreads.daemonThreads(threadPrefix).newThread(this);
    thread = started;
    started.start();
  }

  /** Waits up to {@code timeout} for the thread to end after {@link #stop()}; not on itself. */
  final void awaitStopped(Duration timeout) {
    Thread t = thread;
    if (t == null || t == Thread.currentThread()) {
      return;
    }
    try {
      t.join(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the loop and cancels the open request. Idempotent. */
  final void stop() {
    closed = true;
    stopped.countDown();
    okhttp3.Call call = current;
    if (call != null) {
      call.cancel();
    }
  }

  final boolean isStopped() {
    return closed;
  }

  @Override
  public final void run() {
    long backoff = FIRST_BACKOFF_MILLIS;
    while (!closed) {
      try {
        String version = list();
        backoff = FIRST_BACKOFF_MILLIS;
        failing = false;
        while (!closed && version != null) {
          version = watchFrom(version);
        }
      } catch (Broken broken) {
        if (closed) {
          break;
        }
        boolean first = !failing;
        failing = true;
        log.debug("{}: watch broke, reconnecting in about {} ms: {}", describe(), backoff,
            broken.failure);
        hand(() -> broke(broken.failure, first));
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
    log.debug("{}: watch closed", describe());
  }

  /** Lists the collection, hands over its objects and returns the list's resourceVersion. */
  private String list() throws Broken {
    KubeHttp.Reply reply;
    try {
      reply = http.send("GET", collectionPath, selector, null, null);
    } catch (IOException e) {
      throw new Broken(failures.fromIo("list", e, requestTimeoutMillis));
    }
    if (!reply.ok()) {
      throw new Broken(failures.fromReply("list", reply));
    }
    String version = KubeObjectLock.resourceVersion(reply.body());
    JsonElement items = reply.body().get("items");
    if (version == null || !(items == null || items.isJsonNull() || items.isJsonArray())) {
      throw new Broken(LockFailure.of(LockFailure.Kind.UNEXPECTED, "the list of "
          + describe() + " has no resourceVersion or no items"));
    }
    JsonArray found = items == null || items.isJsonNull() ? new JsonArray() : items.getAsJsonArray();
    List<JsonObject> objects = new ArrayList<>(found.size());
    for (JsonElement item : found) {
      if (item.isJsonObject()) {
        objects.add(item.getAsJsonObject());
      }
    }
    hand(() -> listed(objects));
    return version;
  }

  /** Watches from {@code version}; returns where to go on, or null to list again (410 Gone). */
  private String watchFrom(String version) throws Broken {
    long timeoutSeconds = 240 + ThreadLocalRandom.current().nextLong(60);
    List<Pair> query = new ArrayList<>(selector);
    query.add(new Pair("watch", "true"));
    query.add(new Pair("resourceVersion", version));
    query.add(new Pair("allowWatchBookmarks", "true"));
    query.add(new Pair("timeoutSeconds", Long.toString(timeoutSeconds)));
    String last = version;
    try {
      okhttp3.Call call = http.stream(collectionPath, query,
          Duration.ofSeconds(timeoutSeconds + 30));
      current = call;
      if (closed) {
        call.cancel();
        return null;
      }
      try (okhttp3.Response response = call.execute()) {
        okhttp3.ResponseBody body = response.body();
        if (response.code() == 410) {
          return null;
        }
        if (!response.isSuccessful() || body == null) {
          String text = body == null ? "" : body.string();
          throw new Broken(failures.fromReply("watch",
              new KubeHttp.Reply(response.code(), KubeHttp.parseObject(text), text)));
        }
        okio.BufferedSource source = body.source();
        String line;
        while (!closed && (line = source.readUtf8Line()) != null) {
          if (line.isBlank()) {
            continue;
          }
          String next = onEvent(KubeHttp.parseObject(line), last);
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
      throw new Broken(failures.fromIo("watch", e, requestTimeoutMillis));
    } finally {
      current = null;
    }
  }

  private String onEvent(JsonObject event, String last) throws Broken {
    JsonElement typeElement = event == null ? null : event.get("type");
    if (event == null || !(event.get("object") instanceof JsonObject object)
        || typeElement == null || !typeElement.isJsonPrimitive()) {
      throw new Broken(LockFailure.of(LockFailure.Kind.UNEXPECTED, "unreadable watch event on "
          + describe()));
    }
    String type = typeElement.getAsString();
    if (type.equals("ERROR")) {
      JsonElement code = object.get("code");
      if (code != null && code.isJsonPrimitive() && code.getAsInt() == 410) {
        return null;
      }
      int status = code != null && code.isJsonPrimitive() ? code.getAsInt() : 500;
      throw new Broken(failures.fromReply("watch",
          new KubeHttp.Reply(status, object, object.toString())));
    }
    String version = KubeObjectLock.resourceVersion(object);
    switch (type) {
      case "ADDED", "MODIFIED", "DELETED" -> hand(() -> changed(type, object));
      default -> { } // BOOKMARK: only moves the resourceVersion on
    }
    return version != null ? version : last;
  }

  private void hand(Runnable delivery) {
    if (closed) {
      return;
    }
    try {
      delivery.run();
    } catch (RuntimeException e) {
      log.warn("{}: watch listener failed: {}", describe(), e.toString());
    }
  }
}
