package dev.elector.dhcp.agent;

import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.server.DhcpServer;
import dev.elector.dhcp.server.Ipv4Cidr;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the leader does, and undoes when its term ends: the server address on the NIC and a DHCP
 * server answering from the lease cache. It converges on what should be, on one thread of its own,
 * whenever the term or the pool changes: leading with a servable pool means the pool's server
 * address on the NIC and a server bound to it; anything else means neither.
 *
 * <p>The server's serving gate is the term's {@link Term#isActive()} (and a servable pool), so
 * answering stops the instant the elector steps down, before this class hears of it. The stop
 * callback waits until the address is removed, so on a graceful close the lock is released only
 * after this replica gave the address up. The term's {@link Term#whenEnded()} starts the same
 * teardown the moment the term ends, so it does not wait behind callbacks still running.
 */
final class LeaderDuty implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaderDuty.class);

  /** Where and how to serve; equal targets need no change. */
  record Target(Ipv4Address serverIp, Ipv4Cidr cidr) {}

  /** Opens the DHCP server of one term. */
  interface ServerFactory {
    DhcpServer open(Target target, Term term) throws IOException;
  }

  /** Makes the address for a target. */
  interface AddressFactory {
    ServerAddress forTarget(Target target);
  }

  private final PoolLeaseCache cache;
  private final AddressFactory addresses;
  private final ServerFactory servers;
  private final AgentEvents events;
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          runnable -> {
            Thread t = new Thread(runnable, "dhcp-agent-duty");
            t.setDaemon(true);
            return t;
          });

  // Touched only on the worker thread, except the volatile ones.
  private volatile Term term;
  private Target current;
  private ServerAddress address;
  private DhcpServer server;
  private volatile String problem;

  LeaderDuty(
      PoolLeaseCache cache, AddressFactory addresses, ServerFactory servers, AgentEvents events) {
    this.cache = Objects.requireNonNull(cache, "cache");
    this.addresses = Objects.requireNonNull(addresses, "addresses");
    this.servers = Objects.requireNonNull(servers, "servers");
    this.events = Objects.requireNonNull(events, "events");
  }

  /** The term started: take the address and serve. Returns once done (or failed). */
  void started(Term term) {
    synchronized (this) {
      this.term = term;
    }
    term.whenEnded().thenRun(() -> ended(term));
    awaitConverged();
  }

  private void ended(Term ended) {
    synchronized (this) {
      if (term == ended) {
        term = null;
      }
    }
    converge();
  }

  /** The term ended: stop serving and give the address up. Returns once done. */
  void stopped(Term ended, TermEnd reason) {
    synchronized (this) {
      if (term == ended) {
        term = null;
      }
    }
    awaitConverged();
  }

  /** The pool changed: follow it (new server address, or a pool that became servable). */
  void poolChanged() {
    if (term != null) {
      converge();
    }
  }

  /** Why the leader cannot do its duty, if it cannot (for /healthz). */
  Optional<String> problem() {
    return Optional.ofNullable(problem);
  }

  /** Whether a server is up and answering. */
  boolean serving() {
    DhcpServer s = server;
    return s != null && s.isServing();
  }

  private void awaitConverged() {
    try {
      converge().get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.error("changing the server address took too long or failed: {}", e.toString());
    }
  }

  private CompletableFuture<Void> converge() {
    try {
      return CompletableFuture.runAsync(this::convergeNow, worker);
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      return CompletableFuture.completedFuture(null);
    }
  }

  private void convergeNow() {
    Term t = term;
    Target wanted = null;
    if (t != null && t.isActive()) {
      wanted =
          cache
              .snapshot()
              .map(s -> new Target(s.options().serverIp(), s.options().cidr()))
              .orElse(null);
    }
    if (Objects.equals(wanted, current) && (wanted == null || server != null)) {
      return;
    }
    tearDown();
    if (wanted == null) {
      return;
    }
    ServerAddress next = addresses.forTarget(wanted);
    try {
      next.add();
      address = next;
      current = wanted;
      events.emit(
          "address-added", "address", next.address(), "nic", next.nic(), "token", t.fencingToken());
    } catch (IOException e) {
      problem = "leading, but the server address could not be added: " + e.getMessage();
      log.error("{}; not serving. /healthz fails so that the replica is restarted", problem);
      events.emit(
          "address-failed",
          "address",
          next.address(),
          "nic",
          next.nic(),
          "token",
          t.fencingToken());
      return;
    }
    try {
      server = servers.open(wanted, t);
      problem = null;
      events.emit("serving", "serverIp", wanted.serverIp(), "token", t.fencingToken());
    } catch (IOException e) {
      problem =
          "leading, but the DHCP server could not start on "
              + wanted.serverIp()
              + ": "
              + e.getMessage();
      log.error("{}; /healthz fails so that the replica is restarted", problem);
    }
    if (!t.isActive()) {
      tearDown(); // the term ended while we set up; its stop callback converges again anyway
    }
  }

  private void tearDown() {
    if (server != null) {
      server.close();
      server = null;
    }
    if (address != null) {
      address.remove();
      events.emit("address-removed", "address", address.address(), "nic", address.nic());
      address = null;
    }
    current = null;
    problem = null;
  }

  /** Stops serving, removes the address and ends the worker thread. */
  @Override
  public void close() {
    term = null;
    awaitConverged();
    worker.shutdown();
    try {
      worker.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
