package dev.elector.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.elector.kube.internal.WatchPacer;
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
 * (re)list it hands over the listed objects; then each change. Every list and watch request goes
 * through a {@link WatchPacer}, so the loop keeps its documented bound whatever the server or a
 * proxy does: at most {@value WatchPacer#BURST} + T / 1 s requests in any interval T, and a
 * back-off of 0.5 s doubling to 30 s (plus up to a fifth, so that many watches do not reconnect in
 * step) after a failure, a watch that ends at once without an event, or a 410 Gone right after a
 * list. Each of those is handed over as a break, so that followers poll meanwhile. The end of a
 * watch's server-side timeout reconnects from the last resourceVersion, and a 410 Gone on a watch
 * that had been useful lists again, both without delay. Subclasses decide what the objects mean and
 * whom to tell.
 */
abstract class KubeListWatch implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(KubeListWatch.class);

  /** The watch broke; carries the failure to hand over and the server's Retry-After. */
  private static final class Broken extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient LockFailure failure;
    private final transient Duration retryAfter;

    Broken(LockFailure failure) {
      this(failure, Duration.ZERO);
    }

    Broken(LockFailure failure, Duration retryAfter) {
      super(failure.message(), null, false, false);
      this.failure = failure;
      this.retryAfter = retryAfter;
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
  private final WatchPacer pacer =
      new WatchPacer(System::nanoTime, new java.util.SplittableRandom());

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
   * @param firstInARow whether this is the first failure since the start or since a watch stayed
   *     open for 30 s (a list that succeeds between failures does not end a streak)
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
    String version = null; // null: list next
    boolean afterList = false;
    while (!closed && waitForPacer()) {
      try {
        if (version == null) {
          version = list();
          afterList = true;
        } else {
          version = watchFrom(version, afterList);
          afterList = false;
        }
      } catch (Broken broken) {
        if (closed) {
          break;
        }
        boolean first = pacer.streak() == 0;
        Duration backoff = pacer.failed(broken.retryAfter);
        log.debug("{}: watch broke, reconnecting in {} ms: {}", describe(), backoff.toMillis(),
            broken.failure);
        hand(() -> broke(broken.failure, first));
        version = null;
      }
    }
    log.debug("{}: watch closed", describe());
  }

  /** Waits until the pacer lets the next request go; false when stopped meanwhile. */
  private boolean waitForPacer() {
    long delay = pacer.delayNanos();
    if (delay == 0) {
      return true;
    }
    try {
      return !stopped.await(delay, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Lists the collection, hands over its objects and returns the list's resourceVersion. */
  private String list() throws Broken {
    KubeHttp.Reply reply;
    pacer.sent();
    try {
      reply = http.send("GET", collectionPath, selector, null, null);
    } catch (IOException e) {
      throw new Broken(failures.fromIo("list", e, requestTimeoutMillis));
    }
    if (!reply.ok()) {
      throw new Broken(failures.fromReply("list", reply), reply.retryAfter());
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

  /**
   * Watches from {@code version}; returns where to go on, or null to list again (410 Gone on a
   * watch that had been useful).
   */
  private String watchFrom(String version, boolean afterList) throws Broken {
    long timeoutSeconds = 240 + ThreadLocalRandom.current().nextLong(60);
    List<Pair> query = new ArrayList<>(selector);
    query.add(new Pair("watch", "true"));
    query.add(new Pair("resourceVersion", version));
    query.add(new Pair("allowWatchBookmarks", "true"));
    query.add(new Pair("timeoutSeconds", Long.toString(timeoutSeconds)));
    String last = version;
    long opened = System.nanoTime();
    boolean sawEvent = false;
    pacer.sent();
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
          return gone(opened, afterList);
        }
        if (!response.isSuccessful() || body == null) {
          String text = body == null ? "" : body.string();
          throw new Broken(failures.fromReply("watch",
              new KubeHttp.Reply(response.code(), KubeHttp.parseObject(text), text)),
              KubeHttp.retryAfter(response.header("Retry-After")));
        }
        okio.BufferedSource source = body.source();
        String line;
        while (!closed && (line = source.readUtf8Line()) != null) {
          if (line.isBlank()) {
            continue;
          }
          String next = onEvent(KubeHttp.parseObject(line), last);
          if (next == null) {
            return gone(opened, afterList);
          }
          sawEvent = true;
          last = next;
        }
        if (!closed && !sawEvent && pacer.isShort(opened)) {
          throw new Broken(LockFailure.of(LockFailure.Kind.UNAVAILABLE, "the watch of "
              + describe() + " ended after " + millisSince(opened) + " ms without an event (an"
              + " idle timeout of a proxy or load balancer, or an overloaded server?); followers"
              + " poll until a watch lasts"));
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
      pacer.watchClosed(opened);
    }
  }

  /**
   * 410 Gone: list again; at once when the watch resumed from an older watch, with back-off when
   * the version of a fresh list was gone at once.
   */
  private String gone(long opened, boolean afterList) throws Broken {
    if (!closed && afterList && pacer.isShort(opened)) {
      throw new Broken(LockFailure.of(LockFailure.Kind.UNAVAILABLE, "the watch of " + describe()
          + " answered 410 Gone " + millisSince(opened) + " ms after a list; followers poll until"
          + " a watch lasts"));
    }
    return null;
  }

  private static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
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
