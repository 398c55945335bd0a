package dev.elector.testenv.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection and its connection to the target, joined by two {@link Flow}s. The target
 * is dialled only while no blackhole is on, so a partitioned client's SYN never reaches it.
 *
 * <p>Used only on the proxy's loop thread.
 */
final class Connection {
  private static final Logger log = LoggerFactory.getLogger(Connection.class);
  private final SocketChannel client;
  private final SelectionKey clientKey;
  private final Flow toTarget;
  private final Flow toClient;
  private @Nullable SocketChannel target;
  private @Nullable SelectionKey targetKey;
  private boolean connected;
  private boolean closed;

  Connection(SocketChannel client, Selector selector, ProxyCounters counters, long nowNanos)
      throws IOException {
    this.client = client;
    this.toTarget = new Flow(counters.bytesToTarget, nowNanos);
    this.toClient = new Flow(counters.bytesToClient, nowNanos);
    client.configureBlocking(false);
    client.setOption(StandardSocketOptions.TCP_NODELAY, true);
    this.clientKey = client.register(selector, 0, this);
  }

  boolean dialled() {
    return target != null;
  }

  void dial(InetSocketAddress address, Selector selector) throws IOException {
    SocketChannel channel = SocketChannel.open();
    target = channel;
    channel.configureBlocking(false);
    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    targetKey = channel.register(selector, SelectionKey.OP_CONNECT, this);
    if (channel.connect(address)) {
      connected(channel);
    }
  }

  /**
   * Handles readiness of one of the two sockets.
   *
   * @return false if a chunk read should reset the connection
   */
  boolean onReady(SelectionKey key, Faults faults, long nowNanos, SplittableRandom random)
      throws IOException {
    boolean isClient = key == clientKey;
    if (!isClient && key.isConnectable()) {
      SocketChannel channel = (SocketChannel) key.channel(); // the target's
      channel.finishConnect();
      connected(channel);
      return true;
    }
    if (key.isWritable()) {
      (isClient ? toClient : toTarget).sinkWritable();
    }
    if (key.isReadable()) {
      Flow flow = isClient ? toTarget : toClient;
      if (flow.wantsRead(faults)) {
        return flow.read(faults, nowNanos, random);
      }
    }
    return true;
  }

  /**
   * Forwards what is due, closes the connection once both directions ended, and sets the interest
   * of both sockets.
   *
   * @return the next time there is something to write, or {@link Long#MAX_VALUE}
   */
  long pump(Faults faults, long nowNanos) throws IOException {
    SelectionKey targetSide = targetKey;
    if (!connected || targetSide == null) { // connected implies dialled
      return Long.MAX_VALUE;
    }
    long next = Math.min(toTarget.flush(faults, nowNanos), toClient.flush(faults, nowNanos));
    if (toTarget.finished() && toClient.finished()) {
      close();
      return Long.MAX_VALUE;
    }
    clientKey.interestOps(interest(toTarget, toClient, faults));
    targetSide.interestOps(interest(toClient, toTarget, faults));
    return next;
  }

  private static int interest(Flow readFrom, Flow writeTo, Faults faults) {
    return (readFrom.wantsRead(faults) ? SelectionKey.OP_READ : 0)
        | (writeTo.wantsWrite() ? SelectionKey.OP_WRITE : 0);
  }

  private void connected(SocketChannel channel) {
    connected = true;
    if (log.isDebugEnabled()) { // which client connection became which target connection
      try {
        log.debug(
            "connection from {} to the target from {}",
            client.getRemoteAddress(),
            channel.getLocalAddress());
      } catch (IOException e) {
        log.debug("connection to the target: {}", e.toString());
      }
    }
    toTarget.connect(client, channel);
    toClient.connect(channel, client);
  }

  boolean closed() {
    return closed;
  }

  /** Closes both sockets with an RST (SO_LINGER 0) instead of an orderly FIN. */
  void reset() {
    abortQuietly(client);
    abortQuietly(target);
    close();
  }

  void close() {
    closed = true;
    closeQuietly(client);
    closeQuietly(target);
  }

  private static void abortQuietly(@Nullable SocketChannel channel) {
    if (channel != null && channel.isOpen()) {
      try {
        channel.setOption(StandardSocketOptions.SO_LINGER, 0);
      } catch (IOException | RuntimeException ignored) {
        // Not connected yet or already dead: a plain close is all that is left to do.
      }
    }
  }

  private static void closeQuietly(@Nullable SocketChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // Closing is best effort; the channel is unusable either way.
      }
    }
  }
}
