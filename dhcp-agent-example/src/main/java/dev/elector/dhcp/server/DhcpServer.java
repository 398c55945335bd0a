package dev.elector.dhcp.server;

import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MalformedPacketException;
import dev.elector.time.MonotonicClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A DHCPv4 server on UDP: one named daemon thread receives datagrams, decodes them, asks the {@link
 * DhcpEngine} and sends its reply.
 *
 * <p>Sockets: with a specific {@linkplain Builder#bindAddress bind address} the server opens two
 * IPv4 sockets on the same port, one on that address (unicast requests, and the source of every
 * reply, so broadcasts leave through its interface) and one on the wildcard address (broadcast
 * requests); with the wildcard it opens one. Both have SO_BROADCAST and SO_REUSEADDR.
 *
 * <p>Serving: {@link #setServing(boolean)} switches answering on and off at once without closing
 * the sockets; while off, datagrams are read and dropped without being decoded and no reply that
 * was being prepared is sent. It starts off, so an agent serves only once it leads. A {@linkplain
 * Builder#servingGate serving gate} is consulted as well, before decoding and again right before
 * each send: an agent passes its leadership term's {@code isActive}, so answering stops the instant
 * the term ends, without waiting for any callback.
 *
 * <p>Failures: malformed datagrams are counted and logged at DEBUG at most once per ten seconds; no
 * datagram, send error or listener failure stops the receive loop. The lease source is only read,
 * through the engine.
 */
public final class DhcpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DhcpServer.class);
  private static final int MAX_DATAGRAM = 65_536;
  private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
  private static final long JOIN_MILLIS = 5_000;

  private final DhcpEngine engine;
  private final Ipv4Address bindAddress;
  private final int port;
  private final int clientPort;
  private final int relayPort;
  private final Ipv4Address broadcastAddress;
  private final DhcpListener listener;
  private final String threadName;
  private final BooleanSupplier servingGate;
  private final RateLimiter malformedLog;
  private final RateLimiter failureLog;

  private final AtomicLong received = new AtomicLong();
  private final AtomicLong malformed = new AtomicLong();
  private final AtomicLong notServing = new AtomicLong();
  private final AtomicLong replied = new AtomicLong();
  private final AtomicLong unanswered = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();

  private volatile boolean serving;
  private final Object lifecycle = new Object();
  private boolean started;
  private volatile boolean closed;
  private Selector selector;
  private DatagramChannel unicastChannel;
  private DatagramChannel broadcastChannel;
  private Thread thread;
  private int boundPort;

  private DhcpServer(Builder b) {
    this.engine = b.engine;
    this.bindAddress = b.bindAddress;
    this.port = b.port;
    this.clientPort = b.clientPort;
    this.relayPort = b.relayPort;
    this.broadcastAddress = b.broadcastAddress;
    this.listener = b.listener;
    this.threadName = b.threadName;
    this.servingGate = b.servingGate;
    this.malformedLog = new RateLimiter(b.clock, LOG_INTERVAL_NANOS);
    this.failureLog = new RateLimiter(b.clock, LOG_INTERVAL_NANOS);
  }

  /** Returns a builder; an engine is required, everything else has a default. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds the sockets and starts the receive thread; does nothing if already started.
   *
   * @throws IOException if a socket cannot be opened or bound (nothing is left open)
   * @throws IllegalStateException if the server was closed
   */
  public void start() throws IOException {
    synchronized (lifecycle) {
      if (closed) {
        throw new IllegalStateException("DhcpServer was closed; build a new one");
      }
      if (started) {
        return;
      }
      List<AutoCloseable> opened = new ArrayList<>();
      try {
        selector = Selector.open();
        opened.add(selector);
        DatagramChannel first = open(bindAddress, port);
        opened.add(first);
        boundPort = ((InetSocketAddress) first.getLocalAddress()).getPort();
        if (bindAddress.isAny()) {
          unicastChannel = first;
          broadcastChannel = null;
        } else {
          unicastChannel = first;
          broadcastChannel = open(Ipv4Address.ANY, boundPort);
          opened.add(broadcastChannel);
          broadcastChannel.register(selector, SelectionKey.OP_READ, ReceiveContext.broadcast());
        }
        unicastChannel.register(selector, SelectionKey.OP_READ, ReceiveContext.unicast());
      } catch (IOException | RuntimeException e) {
        closeAll(opened);
        throw e;
      }
      thread = new Thread(this::receiveLoop, threadName);
      thread.setDaemon(true);
      started = true;
      thread.start();
      LOG.info("DHCP server listening on {}:{} (serving={})", bindAddress, boundPort, serving);
    }
  }

  private static DatagramChannel open(Ipv4Address address, int port) throws IOException {
    DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
    try {
      channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      channel.setOption(StandardSocketOptions.SO_BROADCAST, true);
      channel.bind(new InetSocketAddress(address.toInetAddress(), port));
      channel.configureBlocking(false);
      return channel;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** Turns answering on or off, effective for the next datagram and for any reply not yet sent. */
  public void setServing(boolean serving) {
    this.serving = serving;
    LOG.info("DHCP server on {}:{} serving={}", bindAddress, boundPort, serving);
  }

  /** Returns whether the server answers requests: serving is on and the serving gate is open. */
  public boolean isServing() {
    return serving && servingGate.getAsBoolean();
  }

  /**
   * Returns the bound port, useful when port 0 asked for an ephemeral one.
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public int localPort() {
    synchronized (lifecycle) {
      if (!started) {
        throw new IllegalStateException("DhcpServer is not started");
      }
      return boundPort;
    }
  }

  /** Returns a snapshot of the counters. */
  public DhcpServerStats stats() {
    return new DhcpServerStats(
        received.get(),
        malformed.get(),
        notServing.get(),
        replied.get(),
        unanswered.get(),
        failures.get());
  }

  /** Stops the receive thread and closes the sockets; waits for the thread to end. Idempotent. */
  @Override
  public void close() {
    Thread running;
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
      serving = false;
      running = thread;
      if (selector != null) {
        selector.wakeup();
      }
    }
    if (running != null && running != Thread.currentThread()) {
      try {
        running.join(JOIN_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (lifecycle) {
      List<AutoCloseable> all = new ArrayList<>();
      all.add(unicastChannel);
      all.add(broadcastChannel);
      all.add(selector);
      closeAll(all);
    }
    LOG.info("DHCP server on {}:{} closed", bindAddress, boundPort);
  }

  private void receiveLoop() {
    ByteBuffer buffer = ByteBuffer.allocate(MAX_DATAGRAM);
    while (!closed) {
      try {
        selector.select();
        for (SelectionKey key : selector.selectedKeys()) {
          drain((DatagramChannel) key.channel(), (ReceiveContext) key.attachment(), buffer);
        }
        selector.selectedKeys().clear();
      } catch (ClosedSelectorException e) {
        return;
      } catch (IOException | RuntimeException e) {
        failures.incrementAndGet();
        logFailure("DHCP receive failed", e);
      }
    }
  }

  private void drain(DatagramChannel channel, ReceiveContext context, ByteBuffer buffer)
      throws IOException {
    while (!closed) {
      buffer.clear();
      InetSocketAddress from = (InetSocketAddress) channel.receive(buffer);
      if (from == null) {
        return;
      }
      buffer.flip();
      received.incrementAndGet();
      try {
        process(from, context, buffer);
      } catch (RuntimeException e) {
        failures.incrementAndGet();
        logFailure("DHCP request from " + from + " failed", e);
      }
    }
  }

  private void process(InetSocketAddress from, ReceiveContext context, ByteBuffer datagram) {
    if (!isServing()) {
      notServing.incrementAndGet();
      return;
    }
    DhcpMessage request;
    try {
      request = DhcpMessage.decode(datagram);
    } catch (MalformedPacketException e) {
      malformed.incrementAndGet();
      long held = malformedLog.tryAcquire();
      if (held >= 0 && LOG.isDebugEnabled()) {
        LOG.debug(
            "malformed DHCP datagram from {} ({} more since the last report): {}",
            from,
            held,
            e.getMessage());
      }
      notify(() -> listener.malformed(from, e));
      return;
    }
    Outcome outcome = engine.handle(request, context);
    LOG.debug(
        "DHCP {} from {}: {}",
        request.options().messageType().map(Enum::name).orElse("?"),
        from,
        outcome);
    notify(() -> listener.handled(from, request, outcome));
    if (outcome.reply().isEmpty()) {
      unanswered.incrementAndGet();
      return;
    }
    if (!isServing()) {
      notServing.incrementAndGet();
      return;
    }
    if (send(outcome.reply().get())) {
      notify(() -> listener.sent(outcome));
    }
  }

  private boolean send(Reply reply) {
    Destination to = reply.destination();
    InetSocketAddress target =
        switch (to.kind()) {
          case RELAY -> new InetSocketAddress(to.address().toInetAddress(), relayPort);
          case CLIENT -> new InetSocketAddress(to.address().toInetAddress(), clientPort);
          case BROADCAST -> new InetSocketAddress(broadcastAddress.toInetAddress(), clientPort);
        };
    try {
      unicastChannel.send(ByteBuffer.wrap(reply.message().encode()), target);
      replied.incrementAndGet();
      return true;
    } catch (IOException e) {
      failures.incrementAndGet();
      logFailure("DHCP reply to " + target + " failed", e);
      return false;
    }
  }

  private void notify(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      logFailure("DhcpListener failed", e);
    }
  }

  private void logFailure(String what, Exception e) {
    long held = failureLog.tryAcquire();
    if (held >= 0) {
      LOG.warn("{} ({} more failures since the last report)", what, held, e);
    }
  }

  private static void closeAll(List<? extends AutoCloseable> resources) {
    for (AutoCloseable resource : resources) {
      if (resource == null) {
        continue;
      }
      try {
        resource.close();
      } catch (Exception e) {
        LOG.debug("closing {} failed", resource, e);
      }
    }
  }

  /** Settings of a {@link DhcpServer}. */
  public static final class Builder {
    private DhcpEngine engine;
    private Ipv4Address bindAddress = Ipv4Address.ANY;
    private int port = Destination.SERVER_PORT;
    private int clientPort = Destination.CLIENT_PORT;
    private int relayPort = Destination.SERVER_PORT;
    private Ipv4Address broadcastAddress = Ipv4Address.BROADCAST;
    private DhcpListener listener = DhcpListener.NONE;
    private MonotonicClock clock = MonotonicClock.system();
    private String threadName = "dhcp-server";
    private BooleanSupplier servingGate = () -> true;

    private Builder() {}

    /** Sets the engine that decides replies; required. */
    public Builder engine(DhcpEngine engine) {
      this.engine = Objects.requireNonNull(engine, "engine");
      return this;
    }

    /**
     * Sets the local address (the pool's serverIP on the served NIC); default the wildcard 0.0.0.0.
     */
    public Builder bindAddress(Ipv4Address address) {
      this.bindAddress = Objects.requireNonNull(address, "bindAddress");
      return this;
    }

    /** Sets the listening port; default 67, 0 for an ephemeral port (tests). */
    public Builder port(int port) {
      this.port = checkPort("port", port, 0);
      return this;
    }

    /** Sets the port replies to clients go to; default 68. */
    public Builder clientPort(int port) {
      this.clientPort = checkPort("clientPort", port, 1);
      return this;
    }

    /** Sets the port replies to relay agents go to; default 67. */
    public Builder relayPort(int port) {
      this.relayPort = checkPort("relayPort", port, 1);
      return this;
    }

    /** Sets where broadcast replies go; default 255.255.255.255 (tests on loopback change it). */
    public Builder broadcastAddress(Ipv4Address address) {
      this.broadcastAddress = Objects.requireNonNull(address, "broadcastAddress");
      return this;
    }

    /** Sets the listener; default none. */
    public Builder listener(DhcpListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Sets the clock for log rate limiting; default {@link MonotonicClock#system()}. */
    public Builder clock(MonotonicClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Sets a condition that must hold, besides {@link #setServing serving}, for any answer to be
     * sent; checked before decoding and right before sending. Default: always open. It runs on the
     * receive thread for every datagram, so it must be quick and must not block.
     */
    public Builder servingGate(BooleanSupplier gate) {
      this.servingGate = Objects.requireNonNull(gate, "servingGate");
      return this;
    }

    /** Sets the receive thread's name; default "dhcp-server". */
    public Builder threadName(String name) {
      if (name.isBlank()) {
        throw new IllegalArgumentException("threadName must not be blank");
      }
      this.threadName = name;
      return this;
    }

    /**
     * Returns the server, not yet started.
     *
     * @throws IllegalStateException if no engine was set
     */
    public DhcpServer build() {
      if (engine == null) {
        throw new IllegalStateException(
            "engine is required; call engine(new DhcpEngine(leaseSource))");
      }
      return new DhcpServer(this);
    }

    private static int checkPort(String name, int port, int min) {
      if (port < min || port > 0xffff) {
        throw new IllegalArgumentException(name + " " + port + " must be within " + min + "-65535");
      }
      return port;
    }
  }
}
