package dev.elector.testenv.net;

import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * An OkHttp interceptor that answers a share of requests with a synthetic error instead of sending
 * them: 500, 503, or 429 with {@code Retry-After}. Requests that are not picked go to the real
 * server unchanged. The body is a Kubernetes {@code Status}, so client-java reports the code as it
 * would a real one. The picks are drawn from a seeded random sequence; the share and status can be
 * changed at any time.
 *
 * <pre>{@code
 * HttpFaults faults = HttpFaults.withSeed(42).installOn(apiClient);
 * faults.fail(0.5, 500);                           // half the requests fail
 * faults.throttle(0.5, Duration.ofSeconds(1));     // or: half get 429, Retry-After: 1
 * faults.off();
 * faults.scope(Scope.LISTS_AND_WATCHES).fail(1, 500); // only lists and watches fail
 * faults.watches(WatchFault.EMPTY_STREAM);         // every watch ends at once
 * }</pre>
 *
 * <p>It counts the list and watch requests it sees ({@link #lists()}, {@link #watches()}), sent or
 * answered by it, so a test can hold a watch loop to its request bound.
 *
 * <p>Thread-safe: OkHttp calls it from its own threads.
 */
public final class HttpFaults implements Interceptor {
  private static final MediaType JSON = MediaType.get("application/json");

  private record Rule(double share, int status, long retryAfterSeconds) {}

  /** Which requests the error rule of {@link #fail} and {@link #throttle} applies to. */
  public enum Scope {
    /** Every request. */
    ALL,
    /**
     * Only list requests (GET of a collection) and watch requests; object reads and writes pass.
     */
    LISTS_AND_WATCHES
  }

  /** How watch requests ({@code watch=true}) are answered, whatever the error rule says. */
  public enum WatchFault {
    /** Watches go to the server (and the error rule applies to them). */
    NONE,
    /** 200 with an empty body: the stream ends at once, as behind a proxy with an idle timeout. */
    EMPTY_STREAM,
    /** 200 with one ERROR event of code 410, as a server answers an expired resourceVersion. */
    GONE,
    /** The server's stream, ended after its first event. */
    CUT_AFTER_FIRST_EVENT
  }

  private final SplittableRandom random;
  private final AtomicLong injected = new AtomicLong();
  private final AtomicLong passed = new AtomicLong();
  private final AtomicLong lists = new AtomicLong();
  private final AtomicLong watches = new AtomicLong();
  private volatile Rule rule = new Rule(0, 500, 0);
  private volatile Scope scope = Scope.ALL;
  private volatile WatchFault watchFault = WatchFault.NONE;

  private HttpFaults(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /** Returns an injector that passes every request until told otherwise. */
  public static HttpFaults withSeed(long seed) {
    return new HttpFaults(seed);
  }

  /**
   * Adds this interceptor to {@code client}'s OkHttp client (replacing the client with a copy).
   *
   * @return this, for chaining
   */
  public HttpFaults installOn(ApiClient client) {
    client.setHttpClient(client.getHttpClient().newBuilder().addInterceptor(this).build());
    return this;
  }

  /**
   * Answers a share of requests with {@code status}, a 5xx error or 429 (with {@code Retry-After:
   * 1}).
   *
   * @throws IllegalArgumentException if {@code share} is outside 0-1 or {@code status} is neither
   */
  public HttpFaults fail(double share, int status) {
    if (status != 429 && (status < 500 || status > 599)) {
      throw new IllegalArgumentException(
          "status " + status + " must be 429 or 500-599; use fail(share, 500)");
    }
    rule = new Rule(share(share), status, status == 429 ? 1 : 0);
    return this;
  }

  /**
   * Answers a share of requests with 429 and {@code Retry-After} in whole seconds.
   *
   * @throws IllegalArgumentException if {@code share} is outside 0-1 or {@code retryAfter} is
   *     negative or not whole seconds
   */
  public HttpFaults throttle(double share, Duration retryAfter) {
    Objects.requireNonNull(retryAfter, "retryAfter");
    if (retryAfter.isNegative() || retryAfter.getNano() != 0) {
      throw new IllegalArgumentException(
          "retryAfter "
              + retryAfter
              + " must be whole seconds, 0 or more; "
              + "Retry-After carries seconds only");
    }
    rule = new Rule(share(share), 429, retryAfter.getSeconds());
    return this;
  }

  /** Passes every request from now on: no errors, watches to the server, scope {@code ALL}. */
  public HttpFaults off() {
    rule = new Rule(0, 500, 0);
    scope = Scope.ALL;
    watchFault = WatchFault.NONE;
    return this;
  }

  /** Limits the error rule to {@code scope} from now on; the default is every request. */
  public HttpFaults scope(Scope scope) {
    this.scope = Objects.requireNonNull(scope, "scope");
    return this;
  }

  /** Answers every watch request as {@code fault} says from now on. */
  public HttpFaults watches(WatchFault fault) {
    this.watchFault = Objects.requireNonNull(fault, "fault");
    return this;
  }

  /** Returns how many list requests (GET of a collection, not a watch) it has seen. */
  public long lists() {
    return lists.get();
  }

  /** Returns how many watch requests it has seen. */
  public long watches() {
    return watches.get();
  }

  /** Returns how many requests got a synthetic answer. */
  public long injected() {
    return injected.get();
  }

  /** Returns how many requests went to the server. */
  public long passed() {
    return passed.get();
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    boolean watch = isWatch(request);
    boolean list = !watch && isList(request);
    if (watch) {
      watches.incrementAndGet();
    } else if (list) {
      lists.incrementAndGet();
    }
    WatchFault fault = watchFault;
    if (watch && fault != WatchFault.NONE && fault != WatchFault.CUT_AFTER_FIRST_EVENT) {
      injected.incrementAndGet();
      return watchAnswer(request, fault);
    }
    Rule current = rule;
    boolean inScope = scope == Scope.ALL || watch || list;
    if (inScope && current.share() > 0 && draw() < current.share()) {
      injected.incrementAndGet();
      return synthetic(request, current);
    }
    passed.incrementAndGet();
    Response response = chain.proceed(request);
    return watch && fault == WatchFault.CUT_AFTER_FIRST_EVENT ? firstEventOnly(response) : response;
  }

  private static boolean isWatch(Request request) {
    return request.method().equals("GET") && "true".equals(request.url().queryParameter("watch"));
  }

  /** A GET of a namespaced collection: {@code /api/v1/namespaces/NS/R} or the same under /apis. */
  private static boolean isList(Request request) {
    if (!request.method().equals("GET")) {
      return false;
    }
    java.util.List<String> path = request.url().pathSegments();
    int collection =
        path.isEmpty() ? -1 : path.get(0).equals("api") ? 5 : path.get(0).equals("apis") ? 6 : -1;
    return path.size() == collection && path.get(collection - 3).equals("namespaces");
  }

  private static Response watchAnswer(Request request, WatchFault fault) {
    String body =
        fault == WatchFault.GONE
            ? "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                + "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version"
                + " (injected by HttpFaults)\",\"reason\":\"Expired\",\"code\":410}}\n"
            : "";
    return new Response.Builder()
        .request(request)
        .protocol(Protocol.HTTP_1_1)
        .code(200)
        .message("OK")
        .body(ResponseBody.create(body, JSON))
        .build();
  }

  /** Reads the stream up to its first event, then ends it there. */
  private static Response firstEventOnly(Response response) throws IOException {
    ResponseBody body = response.body();
    if (!response.isSuccessful() || body == null) {
      return response;
    }
    String first;
    try (response) {
      okio.BufferedSource source = body.source();
      do {
        first = source.readUtf8Line();
      } while (first != null && first.isBlank());
    }
    String text = first == null ? "" : first + "\n";
    return response.newBuilder().body(ResponseBody.create(text, JSON)).build();
  }

  private synchronized double draw() {
    return random.nextDouble();
  }

  private static Response synthetic(Request request, Rule rule) {
    String reason =
        rule.status() == 429
            ? "TooManyRequests"
            : rule.status() == 503 ? "ServiceUnavailable" : "InternalError";
    String body =
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            + "\"message\":\"injected by HttpFaults\",\"reason\":\""
            + reason
            + "\",\"code\":"
            + rule.status()
            + "}";
    Response.Builder response =
        new Response.Builder()
            .request(request)
            .protocol(Protocol.HTTP_1_1)
            .code(rule.status())
            .message(reason)
            .body(ResponseBody.create(body, JSON));
    if (rule.status() == 429) {
      response.header("Retry-After", Long.toString(rule.retryAfterSeconds()));
    }
    return response.build();
  }

  private static double share(double share) {
    if (!(share >= 0 && share <= 1)) {
      throw new IllegalArgumentException(
          "share " + share + " must be within 0-1, e.g. 0.5 for half the requests");
    }
    return share;
  }
}
