package dev.elector.k8s.internal;

import dev.elector.kube.internal.Abort;
import dev.elector.kube.internal.ApiTransport;
import dev.elector.kube.internal.ClientState;
import dev.elector.kube.internal.Reply;
import dev.elector.kube.internal.WatchStream;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * Raw JSON requests through a user's {@link ApiClient}, so its authentication and TLS apply: the
 * client-java {@link ApiTransport}. Lock requests run as {@link LockConnections} describes, watches
 * on a connection pool of their own. Working on raw JSON keeps fields this library does not know.
 * Bodies are written and answers read with Gson ({@link GsonValues}), the nulls of a merge patch
 * included.
 */
public final class KubeHttp implements ApiTransport {
  private static final String[] AUTH = {"BearerToken"};

  private final ApiClient client;
  private final Duration timeout;
  private volatile @Nullable OkHttpClient streaming;

  /** Requests through {@code client}, each bounded by {@code timeout} unless a call says less. */
  public KubeHttp(ApiClient client, Duration timeout) {
    this.client = client;
    this.timeout = timeout;
  }

  @Override
  public Duration timeout() {
    return timeout;
  }

  @Override
  public Reply send(
      String method,
      String path,
      Map<String, String> query,
      @Nullable Object body,
      @Nullable String contentType,
      Duration timeout,
      Abort abort)
      throws IOException {
    return LockConnections.send(
        client.getHttpClient(), request(method, path, query, body, contentType), timeout, abort);
  }

  /**
   * A call for a long-running stream (watch): no read timeout, {@code total} overall. Watches of
   * one user client share a connection pool of their own: ending a watch stream stalls the next
   * requests on its HTTP/2 connection by about 40 ms, which must not hit a release or an acquire.
   */
  @Override
  public WatchStream stream(String path, Map<String, String> query, Duration total) {
    return new Stream(path, query, total);
  }

  @Override
  public @Nullable Object parseJson(String text) {
    return GsonValues.parse(text);
  }

  @Override
  public String writeJson(@Nullable Object value) {
    return GsonValues.write(value);
  }

  private Call streamCall(String path, Map<String, String> query, Duration total)
      throws IOException {
    OkHttpClient http = streaming;
    if (http == null) {
      OkHttpClient user = client.getHttpClient();
      http =
          ClientState.of(user)
              .attached(
                  WatchClient.class,
                  () ->
                      new WatchClient(
                          user.newBuilder()
                              .readTimeout(Duration.ZERO)
                              .connectionPool(new ConnectionPool())
                              .build()))
              .http();
      streaming = http;
    }
    Call call = http.newCall(request("GET", path, query, null, null));
    call.timeout().timeout(total.toMillis(), TimeUnit.MILLISECONDS);
    return call;
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
        .method(method, RequestBody.create(GsonValues.write(body), type))
        .build();
  }

  /** One watch request on OkHttp. */
  private final class Stream implements WatchStream {
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
    public @Nullable Reply open() throws IOException {
      Call started = streamCall(path, query, total);
      call = started;
      if (cancelled) {
        started.cancel();
      }
      response = started.execute();
      ResponseBody body = response.body();
      if (!response.isSuccessful() || body == null) {
        return LockConnections.reply(response);
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
      return WatchStream.nextEvent(lines::readUtf8Line, GsonValues::parseObject);
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

  /** The watch client of one user client, kept with its {@link ClientState}. */
  private record WatchClient(OkHttpClient http) {}
}
