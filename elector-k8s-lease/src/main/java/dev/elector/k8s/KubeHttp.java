package dev.elector.k8s;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.gson.JsonSyntaxException;
import dev.elector.kube.internal.Abort;
import dev.elector.kube.internal.ApiTransport;
import dev.elector.kube.internal.DaemonThreads;
import dev.elector.kube.internal.JsonText;
import dev.elector.kube.internal.ListWatchLoop;
import dev.elector.kube.internal.WatchPacer;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.ConnectionPool;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.jspecify.annotations.Nullable;

/**
 * Raw JSON requests through a user's {@link ApiClient}, so its authentication and TLS apply, with a
 * timeout over each whole call, and {@link Call#cancel()} to abort one: the client-java {@link
 * ApiTransport}. Lock requests run on a connection pool of their own. A request whose new
 * connection is not ready (TCP and TLS) within a third of its timeout, as behind a balancer that
 * hands connections to an API server that has bound its port but does not serve yet, gives that
 * connection up and dials once more within its deadline: nothing was sent on it, so the request
 * count stays one. After a request without an answer the lock's idle connections are closed: OkHttp
 * ends only the timed-out HTTP/2 stream, and would otherwise send the next request on a connection
 * that may be dead. Working on raw JSON keeps fields this library does not know. Bodies are written
 * with {@link JsonText}, so the nulls of a merge patch are sent; answers are read with Gson into
 * plain values (numbers as {@link BigDecimal}).
 */
final class KubeHttp implements ApiTransport {
  private static final String[] AUTH = {"BearerToken"};

  /** The watch client of each user client, kept while the user client lives. */
  private static final Map<OkHttpClient, OkHttpClient> WATCH_CLIENTS =
      Collections.synchronizedMap(new WeakHashMap<>());

  /** The lock-request client of each user client, kept while the user client lives. */
  private static final Map<OkHttpClient, OkHttpClient> LOCK_CLIENTS =
      Collections.synchronizedMap(new WeakHashMap<>());

  /** A second dial is worth it only with at least this much of the deadline left. */
  static final long MIN_SECOND_DIAL_MILLIS = 100;

  /** Gives up on connections that do not get ready in time (see {@link #send}). */
  private static final ScheduledExecutorService SETUP_CHECKS = setupChecks();

  private static ScheduledExecutorService setupChecks() {
    ScheduledThreadPoolExecutor checks =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.factory("elector-kube-setup-"));
    checks.setRemoveOnCancelPolicy(true); // a check is cancelled once its request has an answer
    return checks;
  }

  private final ApiClient client;
  private final Duration timeout;
  private volatile @Nullable OkHttpClient streaming;

  KubeHttp(ApiClient client, Duration timeout) {
    this.client = client;
    this.timeout = timeout;
  }

  @Override
  public Duration timeout() {
    return timeout;
  }

  @Override
  public ListWatchLoop.Reply send(
      String method,
      String path,
      Map<String, String> query,
      @Nullable Object body,
      @Nullable String contentType,
      Duration timeout,
      Abort abort)
      throws IOException {
    OkHttpClient http = lockClient();
    Request request = request(method, path, query, body, contentType);
    long deadline = System.nanoTime() + timeout.toNanos();
    Setup first = new Setup();
    try {
      return execute(http, request, first, Math.max(1, timeout.toMillis()), abort, true);
    } catch (IOException e) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (!first.stalled || abort.aborted() || left < MIN_SECOND_DIAL_MILLIS) {
        evictAfterFailure(http);
        throw e;
      }
      // The first connection was accepted but never got ready (a server that has bound its port
      // but does not serve yet, behind a balancer); the request was not sent. Dial again: a new
      // connection may reach another server.
      try {
        return execute(http, request, new Setup(), left, abort, false);
      } catch (IOException again) {
        evictAfterFailure(http);
        throw again;
      }
    }
  }

  /**
   * Runs one attempt of a lock request within {@code millis}. With {@code boundSetup}, an attempt
   * whose connection is not ready (TCP and TLS) within a third of {@code millis} is cancelled and
   * marked {@link Setup#stalled}: nothing was sent on it.
   */
  private static ListWatchLoop.Reply execute(
      OkHttpClient http, Request request, Setup setup, long millis, Abort abort, boolean boundSetup)
      throws IOException {
    Call call = http.newCall(request.newBuilder().tag(Setup.class, setup).build());
    call.timeout().timeout(millis, TimeUnit.MILLISECONDS);
    // Cancelling ends the exchange and makes execute() throw at once; before it, execute() throws
    // without sending anything.
    abort.onAbort(call::cancel);
    ScheduledFuture<?> check = null;
    if (boundSetup && millis >= 3 * MIN_SECOND_DIAL_MILLIS) {
      check =
          SETUP_CHECKS.schedule(
              () -> {
                if (setup.stallIfNotConnected()) {
                  call.cancel();
                }
              },
              millis / 3,
              TimeUnit.MILLISECONDS);
    }
    try (Response response = call.execute()) {
      return reply(response);
    } finally {
      if (check != null) {
        check.cancel(false);
      }
    }
  }

  /**
   * The client for lock requests: the user's client (its authentication, TLS and interceptors) on a
   * connection pool of its own, so that dropping the lock's connections after a failure never
   * touches the user's, with an interceptor that marks a request's connection as ready.
   */
  private OkHttpClient lockClient() {
    OkHttpClient user = client.getHttpClient();
    OkHttpClient http = LOCK_CLIENTS.get(user);
    if (http == null) {
      http =
          LOCK_CLIENTS.computeIfAbsent(
              user,
              u ->
                  u.newBuilder()
                      .connectionPool(new ConnectionPool())
                      .addNetworkInterceptor(
                          chain -> {
                            Setup setup = chain.request().tag(Setup.class);
                            if (setup != null) {
                              setup.connected();
                            }
                            return chain.proceed(chain.request());
                          })
                      .build());
    }
    return http;
  }

  /**
   * After a lock request that got no answer (timeout, I/O error), closes the lock's idle
   * connections: the next request dials afresh instead of trusting a connection that may be dead.
   */
  private static void evictAfterFailure(OkHttpClient http) {
    http.connectionPool().evictAll();
  }

  /** Whether one attempt's connection became ready, or was given up before. */
  private static final class Setup {
    private boolean connected;
    private boolean stalled;

    synchronized void connected() {
      connected = true;
    }

    /** Marks the attempt stalled unless its connection is ready; returns whether it did. */
    synchronized boolean stallIfNotConnected() {
      if (!connected) {
        stalled = true;
      }
      return stalled;
    }
  }

  /**
   * A call for a long-running stream (watch): no read timeout, {@code total} overall. Watches of
   * one user client share a connection pool of their own: ending a watch stream stalls the next
   * requests on its HTTP/2 connection by about 40 ms, which must not hit a release or an acquire.
   */
  @Override
  public ListWatchLoop.WatchStream stream(String path, Map<String, String> query, Duration total) {
    return new Stream(path, query, total);
  }

  @Override
  public @Nullable Object parseJson(String text) {
    return plainValue(JsonParser.parseString(text));
  }

  private Call streamCall(String path, Map<String, String> query, Duration total)
      throws IOException {
    OkHttpClient http = streaming;
    if (http == null) {
      http =
          WATCH_CLIENTS.computeIfAbsent(
              client.getHttpClient(),
              user ->
                  user.newBuilder()
                      .readTimeout(Duration.ZERO)
                      .connectionPool(new ConnectionPool())
                      .build());
      streaming = http;
    }
    Call call = http.newCall(request("GET", path, query, null, null));
    call.timeout().timeout(total.toMillis(), TimeUnit.MILLISECONDS);
    return call;
  }

  private static ListWatchLoop.Reply reply(Response response) throws IOException {
    ResponseBody responseBody = response.body();
    String text = responseBody == null ? "" : responseBody.string();
    return new ListWatchLoop.Reply(
        response.code(),
        parseObject(text),
        text,
        WatchPacer.retryAfter(response.header("Retry-After")));
  }

  /** The text as a JSON object in plain values, or null when it is none. */
  static @Nullable Map<String, Object> parseObject(@Nullable String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      JsonElement element = JsonParser.parseString(text);
      return element.isJsonObject() ? toPlain(element.getAsJsonObject()) : null;
    } catch (JsonSyntaxException | IllegalStateException e) {
      return null;
    }
  }

  private Request request(
      String method,
      String path,
      Map<String, String> query,
      @Nullable Object body,
      @Nullable String contentType)
      throws IOException {
    Map<String, String> headers = new HashMap<>();
    headers.put("Accept", "application/json");
    List<Pair> pairs = new ArrayList<>();
    query.forEach((key, value) -> pairs.add(new Pair(key, value)));
    Request request;
    try {
      request =
          client
              .buildCall(
                  null,
                  path,
                  method,
                  pairs,
                  List.of(),
                  null,
                  headers,
                  new HashMap<>(),
                  new HashMap<>(),
                  AUTH,
                  null)
              .request();
    } catch (ApiException e) {
      throw new IOException(
          "could not build the request " + method + " " + path + ": " + e.getMessage(), e);
    }
    if (body == null) {
      return request;
    }
    MediaType type = MediaType.get(contentType == null ? "application/json" : contentType);
    return request
        .newBuilder()
        .method(method, RequestBody.create(JsonText.write(body), type))
        .build();
  }

  /** One watch request on OkHttp. */
  private final class Stream implements ListWatchLoop.WatchStream {
    private final String path;
    private final Map<String, String> query;
    private final Duration total;
    private volatile @Nullable Call call;
    private volatile boolean cancelled;
    private @Nullable Response response;
    private okio.@Nullable BufferedSource source;

    Stream(String path, Map<String, String> query, Duration total) {
      this.path = path;
      this.query = query;
      this.total = total;
    }

    @Override
    public ListWatchLoop.@Nullable Reply open() throws IOException {
      Call started = streamCall(path, query, total);
      call = started;
      if (cancelled) {
        started.cancel();
      }
      response = started.execute();
      ResponseBody body = response.body();
      if (!response.isSuccessful() || body == null) {
        return reply(response);
      }
      source = body.source();
      return null;
    }

    @Override
    public @Nullable Map<String, Object> next() throws Exception {
      okio.BufferedSource lines = source;
      if (lines == null) {
        throw new IllegalStateException("the watch was not opened");
      }
      return ListWatchLoop.nextEvent(lines::readUtf8Line, KubeHttp::parseObject);
    }

    @Override
    public void cancel() {
      cancelled = true;
      Call started = call;
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

  /** A Gson object as plain values: maps, lists, strings, BigDecimal numbers, booleans, null. */
  static Map<String, Object> toPlain(JsonObject object) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (Map.Entry<String, JsonElement> entry : object.entrySet()) {
      map.put(entry.getKey(), plainValue(entry.getValue()));
    }
    return map;
  }

  private static @Nullable Object plainValue(@Nullable JsonElement element) {
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
  static JsonElement toTree(@Nullable Object value) {
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
