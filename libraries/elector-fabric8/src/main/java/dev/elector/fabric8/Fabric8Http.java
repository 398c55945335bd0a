package dev.elector.fabric8;

import dev.elector.kube.internal.Abort;
import dev.elector.kube.internal.ApiTransport;
import dev.elector.kube.internal.ObjectFields;
import dev.elector.kube.internal.Reply;
import dev.elector.kube.internal.WatchPacer;
import dev.elector.kube.internal.WatchStream;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfig;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Raw JSON requests through a user's fabric8 {@link KubernetesClient}, so its authentication, TLS
 * and HTTP client apply, with a timeout over each whole call. fabric8's own retries (by default up
 * to 10 on 5xx, 429 and I/O errors) are switched off for these requests: the elector decides when
 * to try again, a renewal is one write, and the watch keeps its request bound.
 */
final class Fabric8Http implements ApiTransport {

  private final HttpClient http;
  private final String base;
  private final KubernetesSerialization serialization;
  private final Duration timeout;
  private final long timeoutMillis;

  Fabric8Http(KubernetesClient client, Duration timeout) {
    RequestConfig noRetries =
        new RequestConfigBuilder()
            .withRequestRetryBackoffLimit(0)
            .withRequestRetryBackoffInterval(1000)
            .withRequestTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()))
            .withUploadRequestTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()))
            .build();
    this.http = client.getHttpClient().newBuilder().tag(noRetries).build();
    String url = client.getMasterUrl().toString();
    this.base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    this.serialization = client.getKubernetesSerialization();
    this.timeout = timeout;
    this.timeoutMillis = timeout.toMillis();
  }

  @Override
  public Duration timeout() {
    return timeout;
  }

  /**
   * Sends one request and reads the whole answer within {@code timeout}, unless {@code abort} stops
   * waiting for it first.
   *
   * @throws IOException when there was no answer; a {@link TimeoutException} means none within the
   *     timeout, a {@link CancellationException} that the request was aborted
   */
  @Override
  public Reply send(
      String method,
      String path,
      Map<String, String> query,
      @Nullable Object body,
      @Nullable String contentType,
      Duration timeout,
      Abort abort)
      throws Exception {
    long millis = Math.max(1, timeout.toMillis());
    if (abort.aborted()) {
      throw new CancellationException(method + " " + path + " was aborted before it was sent");
    }
    HttpRequest.Builder request =
        http.newHttpRequestBuilder()
            .uri(base + path + queryString(query))
            .timeout(millis, TimeUnit.MILLISECONDS)
            .header("Accept", "application/json");
    if (body != null) {
      request.method(
          method, contentType == null ? "application/json" : contentType, writeJson(body));
    } else if (!method.equals("GET")) {
      request.method(method, "application/json", "");
    }
    CompletableFuture<HttpResponse<String>> future = http.sendAsync(request.build(), String.class);
    // Cancelling the answer's future makes await() throw at once, which frees this thread.
    // fabric8's HttpClient has no way to end the exchange itself before the answer arrives: the
    // answer is dropped when it comes, and the request's timeout bounds the wait for it.
    abort.onAbort(() -> future.cancel(true));
    HttpResponse<String> response = await(future, millis);
    String text = response.body() == null ? "" : response.body();
    return new Reply(
        response.code(),
        parseObject(text),
        text,
        WatchPacer.retryAfter(response.header("Retry-After")));
  }

  @Override
  public WatchStream stream(String path, Map<String, String> query, Duration total) {
    return new Stream(base + path + queryString(query), total);
  }

  /** {@code ?} and the encoded parameters, or empty for none. */
  private static String queryString(Map<String, String> query) {
    StringBuilder out = new StringBuilder();
    query.forEach(
        (key, value) ->
            out.append(out.length() == 0 ? '?' : '&')
                .append(URLEncoder.encode(key, StandardCharsets.UTF_8))
                .append('=')
                .append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
    return out.toString();
  }

  /** The body as a JSON object, or null when it is none. */
  @Nullable Map<String, Object> parseObject(@Nullable String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return ObjectFields.asObject(serialization.unmarshal(text, Map.class));
    } catch (RuntimeException e) {
      return null;
    }
  }

  @Override
  public @Nullable Object parseJson(String text) {
    return serialization.unmarshal(text, Object.class);
  }

  /** With the client's own Jackson mapper, which writes the null values of maps. */
  @Override
  public String writeJson(@Nullable Object value) {
    return serialization.asJson(value);
  }

  private static <T> T await(CompletableFuture<T> future, long millis) throws Exception {
    try {
      return future.get(millis + 100, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw e;
    } catch (InterruptedException e) {
      future.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      while ((cause instanceof java.util.concurrent.CompletionException
              || cause instanceof ExecutionException)
          && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof Exception exception) {
        throw exception;
      }
      throw e;
    }
  }

  /** One watch request: headers within the request timeout, then lines until the end. */
  private final class Stream implements WatchStream {
    private final String uri;
    private final Duration total;
    private volatile @Nullable CompletableFuture<HttpResponse<InputStream>> future;
    private volatile @Nullable InputStream body;
    private volatile boolean cancelled;
    private @Nullable BufferedReader reader;

    Stream(String uri, Duration total) {
      this.uri = uri;
      this.total = total;
    }

    @Override
    public @Nullable Reply open() throws Exception {
      HttpRequest request =
          http.newHttpRequestBuilder()
              .uri(uri)
              .header("Accept", "application/json")
              .forStreaming()
              .build();
      CompletableFuture<HttpResponse<InputStream>> sent =
          http.sendAsync(request, InputStream.class);
      future = sent;
      // a stream that outlives the server-side timeout by much is stuck: end it
      CompletableFuture.delayedExecutor(total.toMillis(), TimeUnit.MILLISECONDS)
          .execute(this::cancel);
      if (cancelled) {
        sent.cancel(true);
        throw new IOException("watch cancelled");
      }
      HttpResponse<InputStream> response = await(sent, timeoutMillis);
      body = response.body();
      if (cancelled) {
        close();
        throw new IOException("watch cancelled");
      }
      if (response.code() < 200 || response.code() >= 300) {
        String text;
        try (InputStream in = response.body()) {
          text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        return new Reply(
            response.code(),
            parseObject(text),
            text,
            WatchPacer.retryAfter(response.header("Retry-After")));
      }
      if (body == null) {
        throw new IOException("the watch answered without a body");
      }
      reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
      return null;
    }

    @Override
    public @Nullable Map<String, Object> next() throws Exception {
      BufferedReader lines = reader;
      if (lines == null) {
        throw new IllegalStateException("the watch was not opened");
      }
      return WatchStream.nextEvent(lines::readLine, Fabric8Http.this::parseObject);
    }

    @Override
    public void cancel() {
      cancelled = true;
      CompletableFuture<HttpResponse<InputStream>> sent = future;
      if (sent != null) {
        sent.cancel(true);
      }
      close();
    }

    @Override
    public void close() {
      InputStream in = body;
      if (in != null) {
        try {
          in.close();
        } catch (IOException e) {
          // closing to abort: nothing more to do
        }
      }
    }
  }
}
