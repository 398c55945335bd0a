package dev.elector.k8s;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonSyntaxException;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * Raw JSON requests through a user's {@link ApiClient}, so its authentication and TLS apply, with a
 * timeout over each whole call. Working on raw JSON keeps fields this library does not know.
 */
final class KubeHttp {
  static final String MERGE_PATCH = "application/merge-patch+json";
  private static final String[] AUTH = {"BearerToken"};

  /**
   * An answer: status code, the body as JSON (null when it was not a JSON object), and the server's
   * {@code Retry-After} (zero when it sent none).
   */
  record Reply(int code, JsonObject body, String text, Duration retryAfter) {
    Reply(int code, JsonObject body, String text) {
      this(code, body, text, Duration.ZERO);
    }

    boolean ok() {
      return code >= 200 && code < 300;
    }

    /** The message of a Kubernetes Status body, else the raw text. */
    String statusMessage() {
      if (body != null && body.has("message") && body.get("message").isJsonPrimitive()) {
        return body.get("message").getAsString();
      }
      return text == null || text.isBlank() ? "HTTP " + code : text.strip();
    }
  }

  /** The watch client of each user client, kept while the user client lives. */
  private static final Map<OkHttpClient, OkHttpClient> WATCH_CLIENTS =
      Collections.synchronizedMap(new WeakHashMap<>());

  private final ApiClient client;
  private final long timeoutMillis;
  private volatile OkHttpClient streaming;

  KubeHttp(ApiClient client, Duration timeout) {
    this.client = client;
    this.timeoutMillis = timeout.toMillis();
  }

  /** Sends one request and reads the whole answer within the timeout. */
  Reply send(String method, String path, List<Pair> query, JsonObject body, String contentType)
      throws IOException {
    Call call = client.getHttpClient().newCall(request(method, path, query, body, contentType));
    call.timeout().timeout(timeoutMillis, TimeUnit.MILLISECONDS);
    try (Response response = call.execute()) {
      ResponseBody responseBody = response.body();
      String text = responseBody == null ? "" : responseBody.string();
      return new Reply(
          response.code(), parseObject(text), text, retryAfter(response.header("Retry-After")));
    }
  }

  /**
   * A {@code Retry-After} header in seconds, as the API server sends it; zero when absent or not a
   * number of seconds (the HTTP-date form is not used by Kubernetes).
   */
  static Duration retryAfter(String header) {
    return dev.elector.kube.internal.WatchPacer.retryAfter(header);
  }

  /**
   * A call for a long-running stream (watch): no read timeout, {@code total} overall. Watches of
   * one user client share a connection pool of their own: ending a watch stream stalls the next
   * requests on its HTTP/2 connection by about 40 ms, which must not hit a release or an acquire.
   */
  Call stream(String path, List<Pair> query, Duration total) throws IOException {
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

  static JsonObject parseObject(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      JsonElement element = JsonParser.parseString(text);
      return element.isJsonObject() ? element.getAsJsonObject() : null;
    } catch (JsonSyntaxException | IllegalStateException e) {
      return null;
    }
  }

  private Request request(
      String method, String path, List<Pair> query, JsonObject body, String contentType)
      throws IOException {
    Map<String, String> headers = new HashMap<>();
    headers.put("Accept", "application/json");
    if (body != null) {
      headers.put("Content-Type", contentType == null ? "application/json" : contentType);
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
      throw new IOException(
          "could not build the request " + method + " " + path + ": " + e.getMessage(), e);
    }
  }
}
