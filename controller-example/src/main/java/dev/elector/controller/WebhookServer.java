package dev.elector.controller;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the admission webhooks over HTTPS: POST {@value AdmissionReviews#VALIDATE} and {@value
 * AdmissionReviews#MUTATE} with an AdmissionReview v1. Until the informers have synced it answers
 * 503, so the API server applies the webhook's failurePolicy rather than a decision made on an
 * empty cache. Bodies over 3 MiB are refused (the API server's own request limit).
 */
final class WebhookServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WebhookServer.class);
  private static final int MAX_BODY = 3 * 1024 * 1024;

  private final HttpsServer server;
  private final ExecutorService threads;

  private WebhookServer(HttpsServer server, ExecutorService threads) {
    this.server = server;
    this.threads = threads;
  }

  /**
   * Starts listening on {@code address}.
   *
   * @throws IOException when the address cannot be bound
   */
  static WebhookServer start(
      InetSocketAddress address, WebhookTls tls, AdmissionReviews reviews, BooleanSupplier ready)
      throws IOException {
    return start(address, tls.sslContext(), reviews, ready);
  }

  /**
   * Starts listening with {@code tls}, for example {@link ServingKeys#sslContext()}, whose
   * certificate can be renewed while it serves.
   *
   * @throws IOException when the address cannot be bound
   */
  static WebhookServer start(
      InetSocketAddress address, SSLContext tls, AdmissionReviews reviews, BooleanSupplier ready)
      throws IOException {
    HttpsServer server = HttpsServer.create(address, 64);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    ExecutorService threads = Executors.newFixedThreadPool(4, Threads.daemon("ippool-webhook"));
    server.setExecutor(threads);
    server.createContext("/", exchange -> handle(exchange, reviews, ready));
    server.start();
    return new WebhookServer(server, threads);
  }

  private static void handle(HttpExchange exchange, AdmissionReviews reviews, BooleanSupplier ready)
      throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      if (!"POST".equals(exchange.getRequestMethod())) {
        send(exchange, 405, "POST an AdmissionReview to " + path);
        return;
      }
      if (!ready.getAsBoolean()) {
        send(exchange, 503, "the informers have not synced yet");
        return;
      }
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readNBytes(MAX_BODY + 1);
      }
      if (body.length > MAX_BODY) {
        send(exchange, 413, "the AdmissionReview is larger than 3 MiB");
        return;
      }
      String answer;
      try {
        answer = reviews.answer(path, new String(body, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        send(exchange, 400, e.getMessage());
        return;
      } catch (RuntimeException e) {
        log.error("admission review at {} failed", path, e);
        send(exchange, 500, "the review failed: " + e);
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      byte[] out = answer.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, out.length);
      try (OutputStream stream = exchange.getResponseBody()) {
        stream.write(out);
      }
    }
  }

  private static void send(HttpExchange exchange, int code, String text) throws IOException {
    byte[] out = (text + "\n").getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(code, out.length);
    try (OutputStream stream = exchange.getResponseBody()) {
      stream.write(out);
    }
  }

  /** The bound port (useful with port 0). */
  int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
