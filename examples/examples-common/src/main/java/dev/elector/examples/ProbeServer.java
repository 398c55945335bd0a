package dev.elector.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * A small read-only HTTP server for the kubelet's probes, Prometheus and people: probe paths answer
 * 200 with a one-line text when healthy and 503 with the problem otherwise; other paths serve a
 * document (metrics, a JSON dump). Only GET and HEAD are allowed (405 otherwise), so nothing served
 * here can change the process. One daemon thread answers.
 */
public final class ProbeServer implements AutoCloseable {
  /** The content type of one-line probe answers. */
  public static final String TEXT = "text/plain; charset=utf-8";

  /** The content type of the Prometheus text exposition format. */
  public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer http;
  private final ExecutorService executor;

  private ProbeServer(HttpServer http, ExecutorService executor) {
    this.http = http;
    this.executor = executor;
  }

  /** Starts describing a server whose thread is called {@code threadName}. */
  public static Builder newBuilder(String threadName) {
    return new Builder(threadName);
  }

  /** The bound port (useful when port 0 asked for any). */
  public int port() {
    return http.getAddress().getPort();
  }

  @Override
  public void close() {
    http.stop(0);
    executor.shutdownNow();
  }

  /** The paths to serve; {@link #start} binds them. */
  public static final class Builder {
    private final String threadName;
    private final Map<String, Handler> paths = new LinkedHashMap<>();

    private Builder(String threadName) {
      this.threadName = Objects.requireNonNull(threadName, "threadName");
    }

    /**
     * Serves a probe at {@code path}: 503 with the problem while {@code problem} returns one, else
     * 200 with {@code ok}. Both are read on every request.
     */
    public Builder probe(String path, Supplier<Optional<String>> problem, Supplier<String> ok) {
      paths.put(
          path,
          exchange -> {
            Optional<String> found = problem.get();
            if (found.isPresent()) {
              send(exchange, 503, TEXT, found.get() + "\n");
            } else {
              send(exchange, 200, TEXT, ok.get() + "\n");
            }
          });
      return this;
    }

    /** Serves {@code body} (read on every request) at {@code path} with {@code contentType}. */
    public Builder document(String path, String contentType, Supplier<String> body) {
      paths.put(path, exchange -> send(exchange, 200, contentType, body.get()));
      return this;
    }

    /**
     * Binds {@code address} and starts answering.
     *
     * @throws IOException if the address cannot be bound
     */
    public ProbeServer start(InetSocketAddress address) throws IOException {
      HttpServer http = HttpServer.create(address, 16);
      paths.forEach(
          (path, handler) ->
              http.createContext(
                  path,
                  exchange -> {
                    if (allowed(exchange)) {
                      handler.handle(exchange);
                    }
                  }));
      ExecutorService executor =
          Executors.newSingleThreadExecutor(
              runnable -> {
                Thread t = new Thread(runnable, threadName);
                t.setDaemon(true);
                return t;
              });
      http.setExecutor(executor);
      http.start();
      return new ProbeServer(http, executor);
    }
  }

  private interface Handler {
    void handle(HttpExchange exchange) throws IOException;
  }

  private static boolean allowed(HttpExchange exchange) throws IOException {
    String method = exchange.getRequestMethod();
    if (method.equals("GET") || method.equals("HEAD")) {
      return true;
    }
    exchange.getResponseHeaders().set("Allow", "GET, HEAD");
    send(exchange, 405, TEXT, "read-only: use GET\n");
    return false;
  }

  private static void send(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      if (!head) {
        out.write(bytes);
      }
    }
  }
}
