package dev.elector.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dev.elector.kube.internal.ListWatchLoop;
import dev.elector.lock.LockFailure;
import io.kubernetes.client.openapi.Pair;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The list-then-watch loop over one collection path, on a daemon thread of its own: the
 * client-neutral {@link ListWatchLoop} of elector-kube-base (the same loop, bound and back-off as
 * the fabric8 backend) on client-java's HTTP client, with objects as Gson trees. After every
 * (re)list it hands over the listed objects; then each change. At most 4 + T / 1 s list and watch
 * requests in any interval T; a back-off of 0.5 s doubling to 30 s (plus up to a fifth) after a
 * failure, a watch that ends at once without an event, or a 410 Gone right after a list, each
 * handed over as a break so that followers poll meanwhile. Subclasses decide what the objects mean
 * and whom to tell.
 */
abstract class KubeListWatch {
  private final Loop loop;

  /**
   * @param selector the list's and watch's selector parameters; empty for the whole collection
   */
  KubeListWatch(
      KubeHttp http,
      String collectionPath,
      List<Pair> selector,
      KubeFailures failures,
      Duration requestTimeout) {
    this.loop =
        new Loop(
            new HttpTransport(http, collectionPath, List.copyOf(selector)),
            failures.text(),
            requestTimeout);
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
    loop.start(threadPrefix);
  }

  /** Waits up to {@code timeout} for the thread to end after {@link #stop()}; not on itself. */
  final void awaitStopped(Duration timeout) {
    loop.awaitStopped(timeout);
  }

  /** Stops the loop and cancels the open request. Idempotent. */
  final void stop() {
    loop.stop();
  }

  final boolean isStopped() {
    return loop.isStopped();
  }

  /** The shared loop, handing Gson trees to the subclass. */
  private final class Loop extends ListWatchLoop {
    Loop(
        HttpTransport transport,
        dev.elector.kube.internal.FailureText failures,
        Duration requestTimeout) {
      super(transport, failures, requestTimeout);
    }

    @Override
    protected String describe() {
      return KubeListWatch.this.describe();
    }

    @Override
    protected void listed(List<Map<String, Object>> objects) {
      List<JsonObject> trees = new ArrayList<>(objects.size());
      for (Map<String, Object> object : objects) {
        trees.add(toTree(object).getAsJsonObject());
      }
      KubeListWatch.this.listed(trees);
    }

    @Override
    protected void changed(String type, Map<String, Object> object) {
      KubeListWatch.this.changed(type, toTree(object).getAsJsonObject());
    }

    @Override
    protected void broke(LockFailure failure, boolean firstInARow) {
      KubeListWatch.this.broke(failure, firstInARow);
    }
  }

  /** Lists and watches through client-java's HTTP client. */
  private static final class HttpTransport implements ListWatchLoop.Transport {
    private final KubeHttp http;
    private final String collectionPath;
    private final List<Pair> selector;

    HttpTransport(KubeHttp http, String collectionPath, List<Pair> selector) {
      this.http = http;
      this.collectionPath = collectionPath;
      this.selector = selector;
    }

    @Override
    public ListWatchLoop.Reply list() throws IOException {
      return plain(http.send("GET", collectionPath, selector, null, null));
    }

    @Override
    public ListWatchLoop.WatchStream watch(String resourceVersion, long timeoutSeconds) {
      List<Pair> query = new ArrayList<>(selector);
      query.add(new Pair("watch", "true"));
      query.add(new Pair("resourceVersion", resourceVersion));
      query.add(new Pair("allowWatchBookmarks", "true"));
      query.add(new Pair("timeoutSeconds", Long.toString(timeoutSeconds)));
      return new Stream(http, collectionPath, query, Duration.ofSeconds(timeoutSeconds + 30));
    }
  }

  /** One watch request on OkHttp. */
  private static final class Stream implements ListWatchLoop.WatchStream {
    private final KubeHttp http;
    private final String path;
    private final List<Pair> query;
    private final Duration total;
    private volatile okhttp3.Call call;
    private volatile boolean cancelled;
    private okhttp3.Response response;
    private okio.BufferedSource source;

    Stream(KubeHttp http, String path, List<Pair> query, Duration total) {
      this.http = http;
      this.path = path;
      this.query = query;
      this.total = total;
    }

    @Override
    public ListWatchLoop.Reply open() throws IOException {
      okhttp3.Call started = http.stream(path, query, total);
      call = started;
      if (cancelled) {
        started.cancel();
      }
      response = started.execute();
      okhttp3.ResponseBody body = response.body();
      if (!response.isSuccessful() || body == null) {
        String text = body == null ? "" : body.string();
        return plain(
            new KubeHttp.Reply(
                response.code(),
                KubeHttp.parseObject(text),
                text,
                KubeHttp.retryAfter(response.header("Retry-After"))));
      }
      source = body.source();
      return null;
    }

    @Override
    public Map<String, Object> next() throws IOException {
      String line;
      do {
        line = source.readUtf8Line();
        if (line == null) {
          return null;
        }
      } while (line.isBlank());
      JsonObject event = KubeHttp.parseObject(line);
      return event == null ? Map.of() : toPlain(event);
    }

    @Override
    public void cancel() {
      cancelled = true;
      okhttp3.Call started = call;
      if (started != null) {
        started.cancel();
      }
    }

    @Override
    public void close() {
      if (response != null) {
        response.close();
      }
    }
  }

  static ListWatchLoop.Reply plain(KubeHttp.Reply reply) {
    return new ListWatchLoop.Reply(
        reply.code(),
        reply.body() == null ? null : toPlain(reply.body()),
        reply.text(),
        reply.retryAfter());
  }

  /** A Gson object as plain values: maps, lists, strings, BigDecimal numbers, booleans, null. */
  static Map<String, Object> toPlain(JsonObject object) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (Map.Entry<String, JsonElement> entry : object.entrySet()) {
      map.put(entry.getKey(), plainValue(entry.getValue()));
    }
    return map;
  }

  private static Object plainValue(JsonElement element) {
    if (element == null || element.isJsonNull()) {
      return null;
    }
    if (element.isJsonObject()) {
      return toPlain(element.getAsJsonObject());
    }
    if (element.isJsonArray()) {
      List<Object> list = new ArrayList<>();
      for (JsonElement item : element.getAsJsonArray()) {
        list.add(plainValue(item));
      }
      return list;
    }
    JsonPrimitive primitive = element.getAsJsonPrimitive();
    if (primitive.isBoolean()) {
      return primitive.getAsBoolean();
    }
    if (primitive.isNumber()) {
      try {
        return new BigDecimal(primitive.getAsString());
      } catch (NumberFormatException e) {
        return primitive.getAsString();
      }
    }
    return primitive.getAsString();
  }

  /** Plain values back as a Gson tree. */
  static JsonElement toTree(Object value) {
    if (value == null) {
      return JsonNull.INSTANCE;
    }
    if (value instanceof Map<?, ?> map) {
      JsonObject object = new JsonObject();
      map.forEach((key, item) -> object.add(String.valueOf(key), toTree(item)));
      return object;
    }
    if (value instanceof List<?> list) {
      JsonArray array = new JsonArray();
      list.forEach(item -> array.add(toTree(item)));
      return array;
    }
    if (value instanceof Boolean b) {
      return new JsonPrimitive(b);
    }
    if (value instanceof Number n) {
      return new JsonPrimitive(n);
    }
    return new JsonPrimitive(String.valueOf(value));
  }
}
