package dev.elector.controller;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPPoolStatus;
import dev.elector.ippool.IPv4Status;
import dev.elector.ippool.PoolCondition;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfigStatus;
import io.kubernetes.client.openapi.ApiException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes one pool's allocation table for one VirtualMachineNetworkConfig: allocates its NICs and
 * releases MACs it no longer has, in a single status write conditional on the pool's
 * resourceVersion. That write is where concurrent allocations are serialised: a writer that lost
 * the race gets 409, re-reads the pool and computes again ({@link ConflictRetry}). MACs are the
 * keys, so doing it again is harmless: a MAC that has an address keeps it.
 */
final class PoolAllocator {
  private static final Logger log = LoggerFactory.getLogger(PoolAllocator.class);

  /** One NIC that wants an address. */
  record NicRequest(int index, String mac, String requested) {}

  /** What one NIC got: a state of {@link NetworkConfigStatus}, an address, a message. */
  record NicResult(String state, String address, String message) {
    static NicResult pending(String message) {
      return new NicResult(NetworkConfigStatus.STATE_PENDING, null, message);
    }
  }

  /** Thrown when every attempt lost the race; the work item is retried later, rate-limited. */
  static final class ConflictsExhausted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ConflictsExhausted(String pool, int attempts) {
      super(
          "IPPool "
              + pool
              + ": status write lost "
              + attempts
              + " races in a row; retrying"
              + " later",
          null,
          false,
          false);
    }
  }

  private final ClusterCache cache;
  private final LeaderWrites writes;
  private final ConflictRetry retry;
  private final EventLog events;
  private final ObjectEvents objectEvents;
  private final ControllerStats stats;
  private final Clock clock;

  PoolAllocator(
      ClusterCache cache,
      LeaderWrites writes,
      ConflictRetry retry,
      EventLog events,
      ObjectEvents objectEvents,
      ControllerStats stats,
      Clock clock) {
    this.cache = cache;
    this.writes = writes;
    this.retry = retry;
    this.events = events;
    this.objectEvents = objectEvents;
    this.stats = stats;
    this.clock = clock;
  }

  /**
   * Allocates {@code requests} and releases {@code release} (normalised MACs) in the pool {@code
   * poolKey}, for the config {@code owner}.
   *
   * @return the result per request index
   * @throws ConflictsExhausted when every attempt met a conflict
   */
  Map<Integer, NicResult> apply(
      String poolKey, String owner, List<NicRequest> requests, Collection<String> release)
      throws ApiException {
    IPPool pool = cache.pool(poolKey);
    for (int attempt = 1; attempt <= retry.attempts(); attempt++) {
      if (pool == null || KubeObjects.deleting(pool)) {
        return all(
            requests, NicResult.pending("IPPool " + poolKey + " is gone or being" + " deleted"));
      }
      IPPoolStatus status = pool.getStatus() == null ? new IPPoolStatus() : pool.getStatus();
      IPv4Status before = status.getIpv4() == null ? new IPv4Status() : status.getIpv4();
      PoolValidation validation = PoolValidation.validate(pool.getSpec());
      Map<Integer, NicResult> results = new LinkedHashMap<>();
      IPv4Status after;
      if (!validation.isValid()) {
        results.putAll(
            all(
                requests,
                NicResult.pending(
                    "IPPool "
                        + poolKey
                        + " has an invalid"
                        + " spec ("
                        + validation.reason()
                        + "); see its Registered condition")));
        after = releaseUnchecked(before, release);
      } else if (!status
          .condition(PoolCondition.REGISTERED)
          .map(PoolCondition::isTrue)
          .orElse(false)) {
        results.putAll(
            all(requests, NicResult.pending("IPPool " + poolKey + " is not registered yet")));
        after = before;
      } else {
        AllocationTable table =
            AllocationTable.of(validation.layout(), before.getAllocated()).release(release);
        boolean paused = pool.getSpec().isPaused();
        for (NicRequest r : requests) {
          if (paused) {
            String has = table.addressOf(r.mac()).orElse(null);
            results.put(
                r.index(),
                has != null && (r.requested() == null || Ipv4.canonical(r.requested()).equals(has))
                    ? new NicResult(NetworkConfigStatus.STATE_ALLOCATED, has, null)
                    : NicResult.pending(
                        "IPPool "
                            + poolKey
                            + " is paused; addresses are"
                            + " allocated again when spec.paused is false"));
            continue;
          }
          AllocationTable.Allocation a = table.allocate(r.mac(), r.requested());
          table = a.table();
          results.put(
              r.index(),
              a.kind() == AllocationTable.Kind.FAILED
                  ? new NicResult(NetworkConfigStatus.STATE_ERROR, a.address(), a.message())
                  : new NicResult(NetworkConfigStatus.STATE_ALLOCATED, a.address(), null));
        }
        after = table.toStatus();
      }
      if (after.equals(before)) {
        return results;
      }
      IPPool update = KubeObjects.copy(pool, IPPool.class);
      IPPoolStatus nextStatus =
          update.getStatus() == null ? new IPPoolStatus() : update.getStatus();
      update.status(nextStatus.ipv4(after).lastUpdate(now()));
      try {
        writes.replacePoolStatus(update);
      } catch (ApiException e) {
        if (e.getCode() == 409) {
          stats.conflictsRetried.incrementAndGet();
          log.debug(
              "IPPool {}: allocation for {} lost a race (attempt {}); re-reading",
              poolKey,
              owner,
              attempt);
          retry.pauseBefore(attempt);
          pool = readOrNull(pool);
          continue;
        }
        if (e.getCode() == 404) {
          pool = null;
          continue;
        }
        throw e;
      }
      stats.allocationWrites.incrementAndGet();
      report(poolKey, owner, before.getAllocated(), after.getAllocated());
      if (Integer.valueOf(0).equals(after.getAvailable())
          && !Integer.valueOf(0).equals(before.getAvailable())) {
        objectEvents.warning(
            pool,
            "PoolExhausted",
            "no free address is left: all "
                + after.getUsed()
                + " addresses of the range are allocated; widen the range or"
                + " release addresses");
      }
      return results;
    }
    throw new ConflictsExhausted(poolKey, retry.attempts());
  }

  private IPPool readOrNull(IPPool stale) throws ApiException {
    try {
      return writes.readPool(stale.getMetadata().getNamespace(), stale.getMetadata().getName());
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return null;
      }
      throw e;
    }
  }

  /**
   * Releases MACs from a pool whose spec is invalid (so no layout to check against): their entries
   * go, used is recounted, and available grows by the number released.
   */
  private static IPv4Status releaseUnchecked(IPv4Status before, Collection<String> release) {
    Map<String, String> allocated = new LinkedHashMap<>(before.getAllocated());
    int size = allocated.size();
    allocated.values().removeIf(v -> Macs.normalise(v).map(release::contains).orElse(false));
    int released = size - allocated.size();
    if (released == 0) {
      return before;
    }
    int used = (int) allocated.values().stream().filter(v -> !IPv4Status.isMarker(v)).count();
    return new IPv4Status()
        .allocated(allocated)
        .used(used)
        .available(before.getAvailable() == null ? null : before.getAvailable() + released);
  }

  private void report(
      String pool, String owner, Map<String, String> before, Map<String, String> after) {
    // Releases first: one write releases, then allocates (a released address may go at once).
    for (Map.Entry<String, String> e : before.entrySet()) {
      if (!IPv4Status.isMarker(e.getValue())
          && !Objects.equals(after.get(e.getKey()), e.getValue())) {
        stats.addressesReleased.incrementAndGet();
        log.info("IPPool {}: released {} of {} ({})", pool, e.getKey(), e.getValue(), owner);
        events.emit(
            "RELEASED", "vmconfig", owner, "pool", pool, "mac", e.getValue(), "ip", e.getKey());
        VirtualMachineNetworkConfig config = cache.vmConfig(owner);
        if (config != null) {
          objectEvents.normal(
              config, "Released", e.getKey() + " of " + e.getValue() + " back to IPPool " + pool);
        }
      }
    }
    Map<String, String> oldByIp = new HashMap<>(before);
    for (Map.Entry<String, String> e : after.entrySet()) {
      if (!IPv4Status.isMarker(e.getValue())
          && !Objects.equals(oldByIp.get(e.getKey()), e.getValue())) {
        stats.addressesAllocated.incrementAndGet();
        log.info("IPPool {}: allocated {} to {} of {}", pool, e.getKey(), e.getValue(), owner);
        events.emit(
            "ALLOCATED", "vmconfig", owner, "pool", pool, "mac", e.getValue(), "ip", e.getKey());
        VirtualMachineNetworkConfig config = cache.vmConfig(owner);
        if (config != null) {
          objectEvents.normal(
              config, "Allocated", e.getKey() + " to " + e.getValue() + " from IPPool " + pool);
        }
      }
    }
  }

  private static Map<Integer, NicResult> all(List<NicRequest> requests, NicResult result) {
    Map<Integer, NicResult> results = new LinkedHashMap<>();
    requests.forEach(r -> results.put(r.index(), result));
    return results;
  }

  private OffsetDateTime now() {
    return OffsetDateTime.now(clock)
        .withOffsetSameInstant(ZoneOffset.UTC)
        .truncatedTo(ChronoUnit.SECONDS);
  }
}
