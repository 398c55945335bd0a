package dev.elector.testenv.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A TCP proxy between one client and a target server that injects network faults at run time:
 * latency with jitter, a rate limit, a blackhole, connection resets (all at once, every new one, or
 * at random per chunk) and refused connections. Bytes pass through unchanged, so TLS works end to
 * end: point a client at {@link #address()} instead of the server, with the server's certificate.
 *
 * <p>Faults combine; {@link #heal()} removes them all. Each control method takes effect before it
 * returns: no byte read after it is forwarded under the old faults. Latency and the rate limit
 * apply per connection and per direction, and never reorder bytes.
 *
 * <p>One daemon thread, named {@code fault-proxy-NAME}, serves all connections with non-blocking
 * I/O. {@link #close()} closes every connection and stops the thread before it returns.
 * Thread-safe.
 */
public final class FaultProxy implements AutoCloseable {
  private static final long CONTROL_TIMEOUT_SECONDS = 10;

  /**
   * What the proxy has done so far. Bytes are counted before a peer can receive them, so once a
   * client has read n bytes, {@code bytesToClient} is at least n.
   *
   * @param accepted client connections accepted, including those reset at once
   * @param bytesToTarget bytes forwarded from clients to the target
   * @param bytesToClient bytes forwarded from the target to clients
   * @param resets connections the proxy reset as a fault (not those it closed because a peer did)
   * @param open connections open now
   */
  public record Stats(
      long accepted, long bytesToTarget, long bytesToClient, long resets, int open) {}

  private final String name;
  private final ProxyLoop loop;
  private final ProxyCounters counters;
  private final Thread thread;
  private final InetSocketAddress target;
  private boolean closed;

  private FaultProxy(Builder b, InetSocketAddress target) throws IOException {
    this.name = b.name;
    this.target = target;
    this.counters = new ProxyCounters();
    this.loop = new ProxyLoop(b.listen, target, counters, b.seed);
    this.thread = new Thread(loop, "fault-proxy-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  /** Returns a builder; only {@link Builder#target} is required. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * Starts a pass-through proxy to {@code target} on a free loopback port.
   *
   * @throws IOException if no port can be bound
   */
  public static FaultProxy start(InetSocketAddress target) throws IOException {
    return newBuilder().target(target).start();
  }

  /** Returns the address clients connect to; its port is the one actually bound. */
  public InetSocketAddress address() {
    return loop.address();
  }

  /** Returns {@link #address()} as {@code host:port}, e.g. {@code 127.0.0.1:40123}. */
  public String hostPort() {
    return loop.address().getAddress().getHostAddress() + ":" + loop.address().getPort();
  }

  /** Returns the address bytes are forwarded to. */
  public InetSocketAddress target() {
    return target;
  }

  /** Returns the counters so far. */
  public Stats stats() {
    return counters.snapshot();
  }

  /**
   * Removes every fault: bytes flow again, also on connections held by a blackhole, and the proxy
   * listens again.
   */
  public FaultProxy heal() {
    return change(f -> Faults.NONE);
  }

  /**
   * Delays every chunk, in each direction, by {@code delay} plus a uniform random part of at most
   * {@code jitter}, keeping byte order. Zero for both removes the latency.
   *
   * @throws IllegalArgumentException if either is negative
   */
  public FaultProxy latency(Duration delay, Duration jitter) {
    long delayNanos = nonNegative("latency delay", delay);
    long jitterNanos = nonNegative("latency jitter", jitter);
    return change(f -> f.withLatency(delayNanos, jitterNanos));
  }

  /**
   * Limits each connection to {@code bytesPerSecond} in each direction.
   *
   * @throws IllegalArgumentException if {@code bytesPerSecond} is not positive
   */
  public FaultProxy trickle(long bytesPerSecond) {
    if (bytesPerSecond <= 0) {
      throw new IllegalArgumentException(
          "trickle rate "
              + bytesPerSecond
              + " bytes/s must be positive; call heal() to remove the limit");
    }
    return change(f -> f.withTrickle(bytesPerSecond));
  }

  /**
   * Forwards nothing in either direction until {@link #heal()}: connections are still accepted and
   * kept open, the target is not dialled for new ones, and clients wait until their own timeouts.
   * Nothing is dropped: bytes sent meanwhile (up to the socket buffers) are delivered after {@link
   * #heal()} on connections that are still open.
   */
  public FaultProxy blackhole() {
    return change(Faults::withBlackhole);
  }

  /**
   * Resets every open connection now (TCP RST on both sides, through SO_LINGER 0); new ones are
   * served.
   */
  public FaultProxy reset() {
    return control(loop::resetAll);
  }

  /**
   * Resets every open connection now and every new one as soon as it is accepted, until {@link
   * #heal()}.
   */
  public FaultProxy resetting() {
    return control(
        () -> {
          loop.changeFaults(Faults::withResetNew);
          loop.resetAll();
        });
  }

  /**
   * Resets a connection instead of forwarding a chunk, with probability {@code probability} per
   * chunk read in either direction; 0 turns it off.
   *
   * @throws IllegalArgumentException if {@code probability} is outside 0-1
   */
  public FaultProxy resetRandomly(double probability) {
    if (!(probability >= 0 && probability <= 1)) {
      throw new IllegalArgumentException(
          "reset probability " + probability + " must be within 0-1");
    }
    return change(f -> f.withResetProbability(probability));
  }

  /**
   * Stops listening, so new connections are refused by the kernel as if the server were down, until
   * {@link #heal()} listens again on the same port. Open connections are left alone; add {@link
   * #reset()} for a crash.
   */
  public FaultProxy refuse() {
    return change(Faults::withRefuse);
  }

  /** Closes every connection and the listening socket, and stops the thread. Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    // The join below waits for the loop to stop; a loop that does not stop shows as a timeout
    // there.
    var unused = loop.submit(loop::stop);
    try {
      thread.join(TimeUnit.SECONDS.toMillis(CONTROL_TIMEOUT_SECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "FaultProxy " + name + " " + hostPort() + " -> " + target;
  }

  private FaultProxy change(UnaryOperator<Faults> change) {
    return control(() -> loop.changeFaults(change));
  }

  private FaultProxy control(Runnable action) {
    CompletableFuture<Void> done = loop.submit(action);
    try {
      done.get(CONTROL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while changing the faults of " + this, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "the loop of "
              + this
              + " did not answer within "
              + CONTROL_TIMEOUT_SECONDS
              + " s; its thread may have died, see its stack trace",
          e);
    }
    return this;
  }

  private static long nonNegative(String what, Duration value) {
    Objects.requireNonNull(value, what);
    if (value.isNegative()) {
      throw new IllegalArgumentException(
          what + " " + value + " must not be negative; use Duration.ZERO for none");
    }
    return value.toNanos();
  }

  /** Settings of a proxy; {@link #start()} checks them together and binds the port. */
  public static final class Builder {
    private InetSocketAddress listen = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private @Nullable InetSocketAddress target;
    private String name = "proxy";
    private long seed = 1;

    private Builder() {}

    /** Where to listen; default: loopback, a free port. */
    public Builder listen(InetSocketAddress listen) {
      this.listen = Objects.requireNonNull(listen, "listen");
      return this;
    }

    /** Where to forward; required. */
    public Builder target(InetSocketAddress target) {
      this.target = Objects.requireNonNull(target, "target");
      return this;
    }

    /** Names the proxy in its thread name and messages; default {@code proxy}. */
    public Builder name(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    /** Seeds the random jitter and random resets, so a run can be repeated; default 1. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Binds the listening port and starts forwarding.
     *
     * @throws IllegalArgumentException listing every invalid setting
     * @throws IOException if the port cannot be bound
     */
    public FaultProxy start() throws IOException {
      List<String> problems = new ArrayList<>();
      if (target == null) {
        problems.add(
            "target is required; set the server address, e.g. target(new InetSocketAddress(\"127.0.0.1\", 6443))");
      } else if (target.isUnresolved()) {
        problems.add(
            "target " + target + " is unresolved; give an IP address or a resolvable host");
      }
      if (listen.isUnresolved()) {
        problems.add(
            "listen " + listen + " is unresolved; give an IP address or a resolvable host");
      }
      if (name.isBlank()) {
        problems.add("name is blank; give a short name such as the candidate's identity");
      }
      if (!problems.isEmpty() || target == null) { // a missing target is among the problems
        throw new IllegalArgumentException("invalid fault proxy: " + String.join("; ", problems));
      }
      return new FaultProxy(this, target);
    }
  }
}
