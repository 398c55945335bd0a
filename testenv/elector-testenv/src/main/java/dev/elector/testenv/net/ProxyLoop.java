package dev.elector.testenv.net;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The proxy's single thread: a selector over the listening socket and every connection. Control
 * calls from other threads become tasks that run between two selects, before any readiness is
 * handled, so a fault is in force for every byte after the call returns.
 */
final class ProxyLoop implements Runnable {
  private record Task(Runnable action, CompletableFuture<Void> done) {}

  private final Selector selector;
  private final InetSocketAddress target;
  private final ProxyCounters counters;
  private final SplittableRandom random;
  private final ConcurrentLinkedQueue<Task> tasks = new ConcurrentLinkedQueue<>();
  private final List<Connection> connections = new ArrayList<>();
  private final InetSocketAddress address;
  private @Nullable ServerSocketChannel listener;
  private Faults faults = Faults.NONE;
  private volatile boolean running = true;

  ProxyLoop(InetSocketAddress listen, InetSocketAddress target, ProxyCounters counters, long seed)
      throws IOException {
    this.selector = Selector.open();
    this.target = target;
    this.counters = counters;
    this.random = new SplittableRandom(seed);
    try {
      this.listener = listen(listen);
      this.address = (InetSocketAddress) listener.getLocalAddress();
    } catch (IOException e) {
      selector.close();
      throw e;
    }
  }

  InetSocketAddress address() {
    return address;
  }

  /** Runs {@code action} on the loop thread; the future completes when it has run. */
  CompletableFuture<Void> submit(Runnable action) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    tasks.add(new Task(action, done));
    if (!running) {
      failPendingTasks();
    }
    selector.wakeup();
    return done;
  }

  /** Replaces the faults; opens or closes the listening socket to match {@code refuse}. */
  void changeFaults(UnaryOperator<Faults> change) {
    faults = change.apply(faults);
    try {
      if (faults.refuse() && listener != null) {
        acceptAll(
            listener, System.nanoTime()); // clients whose handshake completed count as connected
        listener.close();
        listener = null;
        selector.selectNow(); // a channel's socket is released only when its key is deregistered
      } else if (!faults.refuse() && listener == null) {
        listener = listen(address);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot listen on "
              + address
              + " again: "
              + e.getMessage()
              + "; another process took the port, so give the proxy a port nothing else uses",
          e);
    }
  }

  /** Resets every open connection. */
  void resetAll() {
    for (Connection connection : connections) {
      if (!connection.closed()) {
        counters.resets.incrementAndGet(); // counted before the client can see the reset
        connection.reset();
      }
    }
  }

  void stop() {
    running = false;
  }

  @Override
  public void run() {
    try {
      while (running) {
        long next = pumpAll(System.nanoTime());
        if (!tasks.isEmpty()) {
          selector.selectNow();
        } else if (next == Long.MAX_VALUE) {
          selector.select();
        } else {
          selector.select(Math.max(1, (next - System.nanoTime() + 999_999) / 1_000_000));
        }
        runTasks();
        handleReady();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("fault proxy loop failed", e);
    } finally {
      running = false;
      shutDown();
    }
  }

  private void runTasks() {
    for (Task task = tasks.poll(); task != null; task = tasks.poll()) {
      try {
        task.action().run();
        task.done().complete(null);
      } catch (RuntimeException e) {
        task.done().completeExceptionally(e);
      }
    }
  }

  private void handleReady() {
    long now = System.nanoTime();
    Iterator<SelectionKey> ready = selector.selectedKeys().iterator();
    while (ready.hasNext()) {
      SelectionKey key = ready.next();
      ready.remove();
      if (!key.isValid()) {
        continue;
      }
      if (key.attachment() == null) {
        acceptAll((ServerSocketChannel) key.channel(), now);
        continue;
      }
      Connection connection = (Connection) key.attachment();
      try {
        if (!connection.onReady(key, faults, now, random)) {
          counters.resets.incrementAndGet();
          connection.reset();
        }
      } catch (IOException | RuntimeException e) {
        connection.reset();
      }
    }
  }

  private void acceptAll(ServerSocketChannel server, long now) {
    while (true) {
      SocketChannel client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return;
      }
      if (client == null) {
        return;
      }
      counters.accepted.incrementAndGet();
      try {
        Connection connection = new Connection(client, selector, counters, now);
        if (faults.resetNew()) {
          counters.resets.incrementAndGet();
          connection.reset();
        } else {
          connections.add(connection);
        }
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  /** Dials pending targets, forwards what is due, and returns the earliest next deadline. */
  private long pumpAll(long now) {
    long next = Long.MAX_VALUE;
    for (Iterator<Connection> it = connections.iterator(); it.hasNext(); ) {
      Connection connection = it.next();
      try {
        if (!connection.closed() && !connection.dialled() && !faults.blackhole()) {
          connection.dial(target, selector);
        }
        if (!connection.closed()) {
          next = Math.min(next, connection.pump(faults, now));
        }
      } catch (IOException | RuntimeException e) {
        connection.reset();
      }
      if (connection.closed()) {
        it.remove();
      }
    }
    counters.open = connections.size();
    return next;
  }

  private ServerSocketChannel listen(InetSocketAddress at) throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open();
    try {
      server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      server.bind(at, 128);
      server.configureBlocking(false);
      server.register(selector, SelectionKey.OP_ACCEPT, null);
      return server;
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
  }

  private void shutDown() {
    connections.forEach(Connection::close);
    connections.clear();
    counters.open = 0;
    closeQuietly(listener);
    try {
      selector.close();
    } catch (IOException ignored) {
      // Nothing left to release.
    }
    failPendingTasks();
  }

  private void failPendingTasks() {
    for (Task task = tasks.poll(); task != null; task = tasks.poll()) {
      task.done().completeExceptionally(new IllegalStateException("the fault proxy is closed"));
    }
  }

  private static void closeQuietly(@Nullable Closeable closeable) {
    if (closeable != null) {
      try {
        closeable.close();
      } catch (IOException ignored) {
        // Best effort.
      }
    }
  }
}
