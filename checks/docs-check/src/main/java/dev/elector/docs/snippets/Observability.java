package dev.elector.docs.snippets;

import com.sun.net.httpserver.HttpServer;
import dev.elector.ElectorStats;
import dev.elector.LeaderElector;
import dev.elector.micrometer.ElectorMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** The snippets of the observability guide: metrics and a liveness endpoint. */
final class Observability {
  private Observability() {}

  static void metrics(LeaderElector elector, LeaderElector a, LeaderElector b,
      MeterRegistry registry) {
    // tag::metrics[]
    ElectorMetrics.of(elector).bindTo(registry);                 // or of(a, b, c)
    ElectorMetrics.newBuilder().elector(a, "my-lock")            // a name of your own
        .tags(Tags.of("app", "my-operator")).build().bindTo(registry);
    // end::metrics[]
    ElectorMetrics.of(b).bindTo(registry);
  }

  static HttpServer liveness(LeaderElector elector) throws IOException {
    // tag::healthz[]
    // Liveness from the elector's health: UP while leading or following normally, not only when
    // leading, so a follower is never restarted for not being the leader.
    HttpServer server = HttpServer.create(new InetSocketAddress(8080), 0);
    server.createContext("/healthz", exchange -> {
      ElectorStats stats = elector.stats();
      byte[] body = (stats.status() + "\n").getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(stats.healthy() ? 200 : 503, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    // end::healthz[]
    return server;
  }
}
