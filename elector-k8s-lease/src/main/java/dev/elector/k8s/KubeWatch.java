package dev.elector.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.WatchableLock;
import io.kubernetes.client.openapi.Pair;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import okhttp3.Call;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.BufferedSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists and then watches exactly one object (field selector on its name), on its own daemon thread.
 * After every (re)list it delivers the current state; then each change. A break delivers
 * {@link LockRead.Failed} and reconnects after a back-off of 0.5 s doubling to 30 s; the end of a
 * watch's server-side timeout reconnects silently from the last resourceVersion.
 */
final class KubeWatch implements WatchableLock.Subscription, Runnable {
  private static final Logger log = LoggerFactory.getLogger(KubeWatch.class);
  private static final long FIRST_BACKOFF_MILLIS = 500;
  private static final long MAX_BACKOFF_MILLIS = 30_000;

  /** The watch broke; carries the failure to deliver. */
  private static final class Broken extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient LockFailure failure;

    Broken(LockFailure failure) {
      super(failure.message(), null, false, false);
      this.failure = failure;
    }
  }

  private final KubeObjectLock lock;
  private final Consumer<LockRead> listener;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final List<Pair> selector;
  private volatile boolean closed;
  private volatile Call current;
  private boolean warned;

  KubeWatch(KubeObjectLock lock, Consumer<LockRead> listener) {
    this.lock = lock;
    this.listener = listener;
    this.selector = List.of(new Pair("fieldSelector", "metadata.name=" + lock.name()));
  }

  void start() {
    Thread thread = KubeThreads.daemonThreads("elector-watch-" + lock.name() + "-").newThread(this);
    thread.start();
  }

  @Override
  public void close() {
    closed = true;
    stopped.countDown();
    Call call = current;
    if (call != null) {
      call.cancel();
    }
  }

  @Override
  public void run() {
    long backoff = FIRST_BACKOFF_MILLIS;
    while (!closed) {
      try {
        String version = list();
        backoff = FIRST_BACKOFF_MILLIS;
        warned = false;
        while (!closed && version != null) {
          version = watchFrom(version);
        }
      } catch (Broken broken) {
        if (closed) {
          break;
        }
        if (broken.failure.kind().isConfigurationProblem() && !warned) {
          warned = true; // once per watch: polling goes on meanwhile, so this is not fatal
          log.warn("{}: cannot watch the lock, followers poll instead: {}", lock.describe(),
              broken.failure.message());
        } else {
          log.debug("{}: watch broke, reconnecting in {} ms: {}", lock.describe(), backoff,
              broken.failure);
        }
        deliver(new LockRead.Failed(broken.failure));
        try {
          if (stopped.await(backoff, TimeUnit.MILLISECONDS)) {
            break;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
        backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
      }
    }
    log.debug("{}: watch closed", lock.describe());
  }

  /** Lists the object, delivers its state and returns the list's resourceVersion. */
  private String list() throws Broken {
    KubeHttp.Reply reply;
    try {
      reply = lock.http().send("GET", lock.collectionPath(), selector, null, null);
    } catch (IOException e) {
      throw new Broken(lock.failures().fromIo("list", e, lock.requestTimeout().toMillis()));
    }
    if (!reply.ok()) {
      throw new Broken(lock.failures().fromReply("list", reply));
    }
    String version = KubeObjectLock.resourceVersion(reply.body());
    JsonElement items = reply.body().get("items");
    if (version == null || !(items == null || items.isJsonNull() || items.isJsonArray())) {
      throw new Broken(LockFailure.of(LockFailure.Kind.UNEXPECTED, "the list of "
          + lock.describe() + " has no resourceVersion or no items"));
    }
    JsonArray found = items == null || items.isJsonNull() ? new JsonArray() : items.getAsJsonArray();
    if (found.isEmpty()) {
      deliver(new LockRead.Absent());
    } else if (found.get(0).isJsonObject()) {
      deliver(lock.toRead(found.get(0).getAsJsonObject()));
    }
    return version;
  }

  /** Watches from {@code version}; returns where to go on, or null to list again (410 Gone). */
  private String watchFrom(String version) throws Broken {
    long timeoutSeconds = 240 + ThreadLocalRandom.current().nextLong(60);
    List<Pair> query = List.of(selector.get(0), new Pair("watch", "true"),
        new Pair("resourceVersion", version), new Pair("allowWatchBookmarks", "true"),
        new Pair("timeoutSeconds", Long.toString(timeoutSeconds)));
    String last = version;
    try {
      Call call = lock.http().stream(lock.collectionPath(), query,
          Duration.ofSeconds(timeoutSeconds + 30));
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
          throw new Broken(lock.failures().fromReply("watch",
              new KubeHttp.Reply(response.code(), KubeHttp.parseObject(text), text)));
        }
        BufferedSource source = body.source();
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
      throw new Broken(lock.failures().fromIo("watch", e, lock.requestTimeout().toMillis()));
    } finally {
      current = null;
    }
  }

  private String onEvent(JsonObject event, String last) throws Broken {
    JsonElement typeElement = event == null ? null : event.get("type");
    if (event == null || !(event.get("object") instanceof JsonObject object)
        || typeElement == null || !typeElement.isJsonPrimitive()) {
      throw new Broken(LockFailure.of(LockFailure.Kind.UNEXPECTED, "unreadable watch event on "
          + lock.describe()));
    }
    String type = typeElement.getAsString();
    if (type.equals("ERROR")) {
      JsonElement code = object.get("code");
      if (code != null && code.isJsonPrimitive() && code.getAsInt() == 410) {
        return null;
      }
      int status = code != null && code.isJsonPrimitive() ? code.getAsInt() : 500;
      throw new Broken(lock.failures().fromReply("watch",
          new KubeHttp.Reply(status, object, object.toString())));
    }
    String version = KubeObjectLock.resourceVersion(object);
    switch (type) {
      case "ADDED":
      case "MODIFIED":
        deliver(lock.toRead(object));
        break;
      case "DELETED":
        deliver(new LockRead.Absent());
        break;
      default: // BOOKMARK: only moves the resourceVersion on
        break;
    }
    return version != null ? version : last;
  }

  private void deliver(LockRead state) {
    if (closed) {
      return;
    }
    try {
      listener.accept(state);
    } catch (RuntimeException e) {
      log.warn("{}: watch listener failed: {}", lock.describe(), e.toString());
    }
  }
}
