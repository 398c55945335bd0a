package dev.elector.testenv.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP server that writes back every byte it reads and half-closes when the client does.
 */
final class EchoServer implements AutoCloseable {
  private final ServerSocket server;
  private final ExecutorService threads;
  private final AtomicInteger accepted = new AtomicInteger();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  EchoServer() throws IOException {
    server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    AtomicInteger n = new AtomicInteger();
    threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "echo-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    threads.execute(this::acceptLoop);
  }

  InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  /** Connections the echo server has accepted, i.e. that reached the target. */
  int accepted() {
    return accepted.get();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        accepted.incrementAndGet();
        sockets.add(socket);
        threads.execute(() -> echo(socket));
      } catch (IOException e) {
        return;
      }
    }
  }

  private static void echo(Socket socket) {
    try (socket;
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream()) {
      byte[] buffer = new byte[8192];
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        out.write(buffer, 0, n);
      }
      socket.shutdownOutput();
    } catch (IOException ignored) {
      // The client went away; nothing to echo to.
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket socket : sockets) {
      socket.close();
    }
    threads.shutdownNow();
    try {
      threads.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
