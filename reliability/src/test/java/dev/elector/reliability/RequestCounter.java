package dev.elector.reliability;

import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Counts the list and watch requests one client sends (a GET on a collection, with or without
 * {@code watch=true}), whatever answers them: the server or a fault injector installed after it.
 * Thread-safe.
 */
final class RequestCounter implements Interceptor {
  private final AtomicLong lists = new AtomicLong();
  private final AtomicLong watches = new AtomicLong();

  private RequestCounter() {}

  /** Adds a counter to {@code client}'s OkHttp client, ahead of interceptors added later. */
  static RequestCounter installOn(ApiClient client) {
    RequestCounter counter = new RequestCounter();
    client.setHttpClient(client.getHttpClient().newBuilder().addInterceptor(counter).build());
    return counter;
  }

  long lists() {
    return lists.get();
  }

  long watches() {
    return watches.get();
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    Request request = chain.request();
    if (request.method().equals("GET")) {
      String watch = request.url().queryParameter("watch");
      var segments = request.url().pathSegments();
      String last = segments.get(segments.size() - 1);
      if ("true".equals(watch) || segments.contains("watch")) {
        watches.incrementAndGet();
      } else if (last.equals("leases") || last.equals("configmaps")) {
        lists.incrementAndGet();
      }
    }
    return chain.proceed(request);
  }
}
