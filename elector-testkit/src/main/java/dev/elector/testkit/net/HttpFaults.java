package dev.elector.testkit.net;

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
 * }</pre>
 *
 * <p>Thread-safe: OkHttp calls it from its own threads.
 */
public final class HttpFaults implements Interceptor {
  private static final MediaType JSON = MediaType.get("application/json");

  private record Rule(double share, int status, long retryAfterSeconds) {}

  private final SplittableRandom random;
  private final AtomicLong injected = new AtomicLong();
  private final AtomicLong passed = new AtomicLong();
  private volatile Rule rule = new Rule(0, 500, 0);

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
   * Answers a share of requests with {@code status}, a 5xx error or 429 (with {@code Retry-After: 1}).
   *
   * @throws IllegalArgumentException if {@code share} is outside 0-1 or {@code status} is neither
   */
  public HttpFaults fail(double share, int status) {
    if (status != 429 && (status < 500 || status > 599)) {
      throw new IllegalArgumentException("status " + status + " must be 429 or 500-599; use fail(share, 500)");
    }
    rule = new Rule(share(share), status, status == 429 ? 1 : 0);
    return this;
  }

  /**
   * Answers a share of requests with 429 and {@code Retry-After} in whole seconds.
   *
   * @throws IllegalArgumentException if {@code share} is outside 0-1 or {@code retryAfter} is negative
   *     or not whole seconds
   */
  public HttpFaults throttle(double share, Duration retryAfter) {
    Objects.requireNonNull(retryAfter, "retryAfter");
    if (retryAfter.isNegative() || retryAfter.getNano() != 0) {
      throw new IllegalArgumentException("retryAfter " + retryAfter + " must be whole seconds, 0 or more; "
          + "Retry-After carries seconds only");
    }
    rule = new Rule(share(share), 429, retryAfter.getSeconds());
    return this;
  }

  /** Passes every request from now on. */
  public HttpFaults off() {
    rule = new Rule(0, 500, 0);
    return this;
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
    Rule current = rule;
    if (current.share() > 0 && draw() < current.share()) {
      injected.incrementAndGet();
      return synthetic(chain.request(), current);
    }
    passed.incrementAndGet();
    return chain.proceed(chain.request());
  }

  private synchronized double draw() {
    return random.nextDouble();
  }

  private static Response synthetic(Request request, Rule rule) {
    String reason = rule.status() == 429 ? "TooManyRequests" : rule.status() == 503 ? "ServiceUnavailable" : "InternalError";
    String body = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
        + "\"message\":\"injected by HttpFaults\",\"reason\":\"" + reason + "\",\"code\":" + rule.status() + "}";
    Response.Builder response = new Response.Builder()
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
      throw new IllegalArgumentException("share " + share + " must be within 0-1, e.g. 0.5 for half the requests");
    }
    return share;
  }
}
