package dev.elector.dhcp.agent;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.server.Ipv4Cidr;
import dev.elector.dhcp.server.Lease;
import dev.elector.dhcp.server.LeaseSource;
import dev.elector.dhcp.server.PoolOptions;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolRef;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's lease cache: the {@link PoolSnapshot} of the latest version of its IPPool, replaced
 * as a whole on every change, so a request never sees half of an update. Every replica keeps it
 * filled from the watch, leader or not, so a new leader serves at once.
 *
 * <p>The DHCP side only reads it; nothing a client sends can change it. The initial sync completes
 * with the first list of the pool, whatever it held: the pool, no pool, or a pool that cannot be
 * served. Thread-safe.
 */
public final class PoolLeaseCache implements LeaseSource {
  private static final Logger log = LoggerFactory.getLogger(PoolLeaseCache.class);

  /** Why the cache cannot serve, or empty when it can. */
  private record State(PoolSnapshot snapshot, String notServing) {}

  private final IPPoolRef ref;
  private final Optional<Ipv4Address> serverIpOverride;
  private final Optional<Ipv4Cidr> cidrOverride;
  private final Consumer<PoolSnapshot> onUpdate;
  private final AtomicReference<State> state;
  private final CompletableFuture<Void> initialSync = new CompletableFuture<>();
  private final dev.elector.time.MonotonicClock clock;

  /** MAC -> the address it declined and until when (nanos) it is not offered it again. */
  private final java.util.concurrent.ConcurrentMap<MacAddress, Declined> declined =
      new java.util.concurrent.ConcurrentHashMap<>();

  private record Declined(Ipv4Address ip, long untilNanos) {}

  /**
   * How long a MAC is not offered an address it declined (RFC 2131 4.3.3), unless the pool gives it
   * another first: the controller, told of the conflict, does that within seconds.
   */
  public static final Duration DECLINE_BACKOFF = Duration.ofMinutes(5);

  /**
   * An empty cache for {@code ref}; {@code onUpdate} hears every snapshot that replaced the
   * previous one (on the watch thread; keep it quick).
   */
  public PoolLeaseCache(
      IPPoolRef ref,
      Optional<Ipv4Address> serverIpOverride,
      Optional<Ipv4Cidr> cidrOverride,
      Consumer<PoolSnapshot> onUpdate) {
    this(ref, serverIpOverride, cidrOverride, onUpdate, dev.elector.time.MonotonicClock.system());
  }

  /** As above, with the clock that times the back-off after a DECLINE. */
  public PoolLeaseCache(
      IPPoolRef ref,
      Optional<Ipv4Address> serverIpOverride,
      Optional<Ipv4Cidr> cidrOverride,
      Consumer<PoolSnapshot> onUpdate,
      dev.elector.time.MonotonicClock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.ref = Objects.requireNonNull(ref, "ref");
    this.serverIpOverride = Objects.requireNonNull(serverIpOverride, "serverIpOverride");
    this.cidrOverride = Objects.requireNonNull(cidrOverride, "cidrOverride");
    this.onUpdate = Objects.requireNonNull(onUpdate, "onUpdate");
    this.state =
        new AtomicReference<>(new State(null, "initial sync of IPPool " + ref + " not done yet"));
  }

  /** Takes in the current version of the pool. */
  public void apply(IPPool pool) {
    PoolSnapshot snapshot;
    try {
      snapshot = PoolSnapshot.of(pool, serverIpOverride, cidrOverride);
    } catch (PoolSnapshot.InvalidPoolException e) {
      State previous = state.get();
      if (previous.snapshot() != null) {
        log.error(
            "{}; still serving the last valid version {}",
            e.getMessage(),
            previous.snapshot().resourceVersion());
      } else {
        log.error("{}; nothing is served until the pool is fixed", e.getMessage());
        state.set(new State(null, e.getMessage()));
      }
      initialSync.complete(null);
      return;
    }
    List<String> problems = snapshot.problems();
    if (!problems.isEmpty()) {
      log.warn(
          "IPPool {} version {}: {}", ref, snapshot.resourceVersion(), String.join("; ", problems));
    }
    state.set(new State(snapshot, snapshot.paused() ? "IPPool " + ref + " is paused" : null));
    log.debug(
        "IPPool {} version {}: {} leases",
        ref,
        snapshot.resourceVersion(),
        snapshot.leases().size());
    initialSync.complete(null);
    onUpdate.accept(snapshot);
  }

  /** Records that the pool does not exist (never created, or deleted). */
  public void absent() {
    state.set(new State(null, "IPPool " + ref + " does not exist"));
    log.warn("IPPool {} does not exist; nothing is served until it is created", ref);
    initialSync.complete(null);
  }

  /** Completes when the first list of the pool has been taken in. */
  public CompletionStage<Void> initialSync() {
    return initialSync.minimalCompletionStage();
  }

  /** Whether the first list has been taken in. */
  public boolean isSynced() {
    return initialSync.isDone();
  }

  /** Why nothing can be served now (not synced, no pool, invalid pool, paused); empty if it can. */
  public Optional<String> notServingReason() {
    return Optional.ofNullable(state.get().notServing());
  }

  /** The snapshot served now, if any. */
  public Optional<PoolSnapshot> snapshot() {
    return Optional.ofNullable(state.get().snapshot());
  }

  /** The pool this cache mirrors. */
  public IPPoolRef ref() {
    return ref;
  }

  @Override
  public Optional<Lease> leaseFor(MacAddress mac) {
    PoolSnapshot snapshot = state.get().snapshot();
    if (snapshot == null) {
      return Optional.empty();
    }
    Ipv4Address ip = snapshot.leases().get(mac);
    if (ip == null) {
      return Optional.empty();
    }
    Declined d = declined.get(mac);
    if (d != null && d.ip().equals(ip)) {
      if (clock.nanos() - d.untilNanos() < 0) {
        return Optional.empty(); // declined: not offered again until the pool moves the MAC
      }
      declined.remove(mac, d);
    }
    return Optional.of(new Lease(mac, ip));
  }

  /**
   * {@code mac} declined {@code ip}: it is not offered that address for {@link #DECLINE_BACKOFF},
   * or until the pool gives it another (which is served at once).
   */
  public void declined(MacAddress mac, Ipv4Address ip) {
    declined.put(mac, new Declined(ip, clock.nanos() + DECLINE_BACKOFF.toNanos()));
  }

  /**
   * The options served now.
   *
   * @throws IllegalStateException when there is no snapshot; the agent serves only when {@link
   *     #notServingReason()} is empty, so the engine never asks then
   */
  @Override
  public PoolOptions options() {
    PoolSnapshot snapshot = state.get().snapshot();
    if (snapshot == null) {
      throw new IllegalStateException("no valid version of IPPool " + ref + " to serve");
    }
    return snapshot.options();
  }
}
