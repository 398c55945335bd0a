package dev.elector.testenv.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP load balancer on loopback, as in front of several API servers: each new connection goes to
 * the next backend in turn that is in rotation and accepts the connection (a backend that refuses
 * is skipped, as a balancer with a fast health check would). Bytes are passed through untouched, so
 * TLS is end to end. A backend can be {@linkplain #drain drained} (taken out of rotation and its
 * connections closed) and {@linkplain #restore restored}. Thread-safe.
 */
public final class TcpBalancer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TcpBalancer.class);
  private static final int CONNECT_TIMEOUT_MILLIS = 2_000;

  /** One backend: its address, whether it is in rotation, and its open connections. */
  private static final class Backend {
    final InetSocketAddress address;
    volatile boolean inRotation = true;
    final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    final AtomicLong connections = new AtomicLong();

    Backend(InetSocketAddress address) {
      this.address = address;
    }
  }

  private final String name;
  private final ServerSocket listener;
  private final List<Backend> backends;
  private final Thread acceptor;
  private final AtomicLong next = new AtomicLong();
  private volatile boolean closed;

  private TcpBalancer(String name, ServerSocket listener, List<InetSocketAddress> targets) {
    this.name = name;
    this.listener = listener;
    List<Backend> list = new ArrayList<>();
    targets.forEach(t -> list.add(new Backend(t)));
    this.backends = List.copyOf(list);
    this.acceptor = new Thread(this::acceptLoop, "balancer-" + name);
    acceptor.setDaemon(true);
  }

  /**
   * Starts a balancer on a free loopback port over {@code targets}, in this order.
   *
   * @throws IllegalArgumentException if there is no target
   * @throws IOException if it cannot listen
   */
  public static TcpBalancer start(String name, List<InetSocketAddress> targets) throws IOException {
    Objects.requireNonNull(name, "name");
    if (targets.isEmpty()) {
      throw new IllegalArgumentException(
          "a balancer needs at least one target; pass the addresses of the servers");
    }
    ServerSocket listener = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    TcpBalancer balancer = new TcpBalancer(name, listener, targets);
    balancer.acceptor.start();
    return balancer;
  }

  /** The address clients connect to. */
  public InetSocketAddress address() {
    return new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
  }

  /** How many backends there are. */
  public int size() {
    return backends.size();
  }

  /** Connections made to backend {@code index} so far. */
  public long connections(int index) {
    return backend(index).connections.get();
  }

  /** Connections to backend {@code index} that are open now. */
  public int openConnections(int index) {
    return backend(index).sockets.size();
  }

  /** Takes backend {@code index} out of rotation and closes its connections. */
  public void drain(int index) {
    Backend backend = backend(index);
    backend.inRotation = false;
    for (Socket socket : backend.sockets) {
      closeQuietly(socket);
    }
  }

  /** Puts backend {@code index} back into rotation. */
  public void restore(int index) {
    backend(index).inRotation = true;
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(listener);
    for (Backend backend : backends) {
      backend.sockets.forEach(TcpBalancer::closeQuietly);
    }
    try {
      acceptor.join(Duration.ofSeconds(5).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "TcpBalancer[" + name + " on " + address() + "]";
  }

  private Backend backend(int index) {
    if (index < 0 || index >= backends.size()) {
      throw new IndexOutOfBoundsException(
          "no backend " + index + "; this balancer has backends 0.." + (backends.size() - 1));
    }
    return backends.get(index);
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        if (!closed) {
          log.warn("{}: accept failed: {}", this, e.toString());
        }
        return;
      }
      Thread connector = new Thread(() -> connect(client), "balancer-" + name + "-connect");
      connector.setDaemon(true);
      connector.start();
    }
  }

  /** Connects {@code client} to the first backend, from the next in turn, that accepts. */
  private void connect(Socket client) {
    int n = backends.size();
    int first = (int) (next.getAndIncrement() % n);
    for (int i = 0; i < n && !closed; i++) {
      Backend backend = backends.get((first + i) % n);
      if (!backend.inRotation) {
        continue;
      }
      Socket upstream = new Socket();
      try {
        upstream.setTcpNoDelay(true);
        upstream.connect(backend.address, CONNECT_TIMEOUT_MILLIS);
      } catch (IOException e) {
        closeQuietly(upstream);
        continue;
      }
      try {
        client.setTcpNoDelay(true);
      } catch (SocketException e) {
        closeQuietly(upstream);
        closeQuietly(client);
        return;
      }
      backend.connections.incrementAndGet();
      backend.sockets.add(client);
      backend.sockets.add(upstream);
      if (!backend.inRotation) { // drained while connecting
        backend.sockets.remove(client);
        backend.sockets.remove(upstream);
        closeQuietly(upstream);
        break;
      }
      log.debug(
          "{}: connection from port {} to backend {} ({})",
          this,
          client.getPort(),
          (first + i) % n,
          backend.address);
      pump(client, upstream, backend, "up");
      pump(upstream, client, backend, "down");
      return;
    }
    closeQuietly(client); // no backend accepted: the client sees its connection closed
  }

  private void pump(Socket from, Socket to, Backend backend, String direction) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                  out.write(buffer, 0, read);
                  out.flush();
                }
                log.debug(
                    "{}: {} connection from port {} ended by its {} side",
                    this,
                    backend.address,
                    direction.equals("up") ? from.getPort() : to.getPort(),
                    direction.equals("up") ? "client" : "backend");
              } catch (IOException e) {
                // closed by the peer, by drain() or by close(): end both sides
              } finally {
                backend.sockets.remove(from);
                backend.sockets.remove(to);
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "balancer-" + name + "-" + direction);
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception ignored) {
      // already closed
    }
  }
}
