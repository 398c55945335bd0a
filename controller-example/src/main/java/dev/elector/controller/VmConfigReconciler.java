package dev.elector.controller;

import dev.elector.controller.PoolAllocator.NicRequest;
import dev.elector.controller.PoolAllocator.NicResult;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPv4Status;
import dev.elector.ippool.PoolCondition;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfigStatus;
import dev.elector.ippool.VirtualMachineNetworkConfig.Status;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.openapi.ApiException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Allocates the addresses of one VirtualMachineNetworkConfig and reports them in its status.
 *
 * <p>Each NIC is served by the IPPool, in any namespace, whose spec.networkName equals the NIC's
 * networkName (several such pools are an error). Per pool, all the config's NICs are allocated in
 * one conditional status write ({@link PoolAllocator}); MACs that left the spec are released in the
 * same write. Bad input (a malformed MAC, a MAC twice, an unknown network, a paused, invalid or
 * full pool, a requested address that is taken) becomes a per-NIC state and message, never an
 * exception or a retry loop: the config is looked at again when it or its pool changes. A finalizer
 * releases every address before the config goes.
 */
final class VmConfigReconciler implements KeyReconciler {
  /** Finalizer that lets the controller release a config's addresses before it goes. */
  static final String FINALIZER = "network.harvesterhci.io/ip-release";

  private static final Logger log = LoggerFactory.getLogger(VmConfigReconciler.class);

  private final ClusterCache cache;
  private final LeaderWrites writes;
  private final PoolAllocator allocator;
  private final EventLog events;
  private final ObjectEvents objectEvents;
  private final WarnOnce warnings;
  private final Clock clock;
  private final java.util.function.Predicate<String> owned;
  private final boolean keepWhilePaused;

  /**
   * @param owned whether a config (by key) is still this term's to reconcile, looked at again once
   *     its pools are known and before any pool is written (over shards, a pool that just appeared
   *     in the cache may move the config to that pool's shard)
   * @param keepWhilePaused whether a paused config keeps its addresses (false: released, as
   *     upstream does)
   */
  VmConfigReconciler(
      ClusterCache cache,
      LeaderWrites writes,
      PoolAllocator allocator,
      EventLog events,
      ObjectEvents objectEvents,
      WarnOnce warnings,
      Clock clock,
      java.util.function.Predicate<String> owned,
      boolean keepWhilePaused) {
    this.owned = owned;
    this.keepWhilePaused = keepWhilePaused;
    this.cache = cache;
    this.writes = writes;
    this.allocator = allocator;
    this.events = events;
    this.objectEvents = objectEvents;
    this.warnings = warnings;
    this.clock = clock;
  }

  @Override
  public Result reconcile(String namespace, String name) throws ApiException {
    String key = namespace + "/" + name;
    VirtualMachineNetworkConfig config = cache.vmConfig(key);
    if (config == null) {
      warnings.forget(key);
      return DONE;
    }
    if (KubeObjects.deleting(config)) {
      return releaseAll(config);
    }
    if (!KubeObjects.hasFinalizer(config, FINALIZER) || KubeObjects.hasUpstreamFinalizer(config)) {
      config =
          writes.updateVmConfig(
              KubeObjects.withFinalizer(config, FINALIZER, VirtualMachineNetworkConfig.class));
      log.info("VirtualMachineNetworkConfig {}: added finalizer {}", key, FINALIZER);
    }
    if (config.getSpec() != null && config.getSpec().isPaused()) {
      return keepWhilePaused ? holdWhilePaused(config) : releaseWhilePaused(config);
    }
    List<NetworkConfig> nics =
        config.getSpec() == null ? List.of() : config.getSpec().getNetworkConfigs();
    Map<Integer, NicResult> results = new HashMap<>();
    Map<String, List<NicRequest>> byPool = new LinkedHashMap<>();
    Set<String> wanted = new HashSet<>();
    // the admission rules, each NIC's first finding becoming its state
    for (VmConfigRules.Nic nic : VmConfigRules.check(nics, cache::servingPools)) {
      if (nic.mac() != null) {
        wanted.add(nic.spec().getNetworkName() + " " + nic.mac());
      }
      if (!nic.findings().isEmpty()) {
        VmConfigRules.Finding first = nic.findings().get(0);
        results.put(
            nic.index(),
            first.pending() ? NicResult.pending(first.message()) : error(first.message()));
        continue;
      }
      byPool
          .computeIfAbsent(nic.pool().ref(), k -> new ArrayList<>())
          .add(new NicRequest(nic.index(), nic.mac(), nic.spec().getIpAddress()));
    }
    Map<String, Set<String>> releaseByPool = staleMacs(config, wanted);
    if (!owned.test(key)) {
      log.debug("VirtualMachineNetworkConfig {}: its pools are another shard's now", key);
      return DONE;
    }
    // Pools that release first: an address the spec dropped goes back before any new one is
    // handed out, in another pool too (within one pool, one write releases, then allocates).
    Set<String> poolKeys = new LinkedHashSet<>(releaseByPool.keySet());
    poolKeys.addAll(byPool.keySet());
    for (String poolKey : poolKeys) {
      results.putAll(
          allocator.apply(
              poolKey,
              key,
              byPool.getOrDefault(poolKey, List.of()),
              releaseByPool.getOrDefault(poolKey, Set.of())));
    }
    writeStatus(config, nics, results);
    return DONE;
  }

  /** MACs this config held (per its status) that its spec no longer has, per pool. */
  private Map<String, Set<String>> staleMacs(
      VirtualMachineNetworkConfig config, Set<String> wanted) {
    Map<String, Set<String>> stale = new LinkedHashMap<>();
    Status status = config.getStatus();
    for (NetworkConfigStatus s :
        status == null ? List.<NetworkConfigStatus>of() : status.getNetworkConfigs()) {
      Optional<String> mac = Macs.normalise(s.getMacAddress());
      if (mac.isEmpty()
          || s.getAllocatedIPAddress() == null
          || wanted.contains(s.getNetworkName() + " " + mac.get())) {
        continue;
      }
      List<IPPool> pools =
          s.getNetworkName() == null ? List.of() : cache.servingPools(s.getNetworkName());
      if (pools.size() == 1) {
        stale.computeIfAbsent(pools.get(0).ref(), k -> new LinkedHashSet<>()).add(mac.get());
      }
    }
    return stale;
  }

  /**
   * With --keep-addresses-while-paused, a paused config keeps what it holds: its addresses stay
   * allocated and its NIC states stay as they were; only the Disabled condition says so. Nothing is
   * allocated or released until it is resumed (deleting it still releases its addresses).
   */
  private Result holdWhilePaused(VirtualMachineNetworkConfig config) throws ApiException {
    Status current = config.getStatus() == null ? new Status() : config.getStatus();
    Conditions conditions = new Conditions(current.getConditions(), now());
    conditions.set(
        PoolCondition.DISABLED,
        true,
        "Paused",
        "spec.paused is true; the addresses"
            + " are kept and nothing is allocated or released until it is resumed");
    conditions.remove(PoolCondition.STOPPED);
    writePaused(config, current, current.getNetworkConfigs(), conditions, "kept");
    return DONE;
  }

  /**
   * A paused config gives its addresses back, as upstream's does: every address its status holds is
   * released in its pool, each NIC turns Pending without an address, and the Disabled condition
   * says so. Resuming allocates again (a requested ipAddress, or the lowest free address).
   */
  private Result releaseWhilePaused(VirtualMachineNetworkConfig config) throws ApiException {
    String key = KubeObjects.key(config);
    Status current = config.getStatus() == null ? new Status() : config.getStatus();
    Map<String, Set<String>> held = heldByPool(config, false);
    if (!held.isEmpty() && !owned.test(key)) {
      log.debug("VirtualMachineNetworkConfig {}: its pools are another shard's now", key);
      return DONE;
    }
    for (Map.Entry<String, Set<String>> e : held.entrySet()) {
      allocator.apply(e.getKey(), key, List.of(), e.getValue());
    }
    String message = "released: spec.paused is true; allocated again when it is resumed";
    List<NetworkConfigStatus> released = new ArrayList<>();
    for (NetworkConfigStatus s : current.getNetworkConfigs()) {
      released.add(
          new NetworkConfigStatus()
              .networkName(s.getNetworkName())
              .macAddress(s.getMacAddress())
              .state(NetworkConfigStatus.STATE_PENDING)
              .message(message));
    }
    Conditions conditions = new Conditions(current.getConditions(), now());
    conditions.set(
        PoolCondition.DISABLED,
        true,
        "Paused",
        "spec.paused is true; the addresses are released and allocated again when it is resumed");
    conditions.set(PoolCondition.ALLOCATED, false, "Paused", "spec.paused is true");
    conditions.remove(PoolCondition.STOPPED);
    writePaused(config, current, released, conditions, "released");
    return DONE;
  }

  private void writePaused(
      VirtualMachineNetworkConfig config,
      Status current,
      List<NetworkConfigStatus> nics,
      Conditions conditions,
      String addresses)
      throws ApiException {
    String key = KubeObjects.key(config);
    Status next = new Status().networkConfigs(nics).conditions(conditions.list());
    if (next.equals(current)) {
      return;
    }
    writes.replaceVmConfigStatus(
        KubeObjects.copy(config, VirtualMachineNetworkConfig.class).status(next));
    log.info("VirtualMachineNetworkConfig {}: paused; its addresses are {}", key, addresses);
    events.emit(
        "CONDITION",
        "vmconfig",
        key,
        "type",
        PoolCondition.DISABLED,
        "status",
        "True",
        "reason",
        "Paused",
        "addresses",
        addresses);
  }

  private void writeStatus(
      VirtualMachineNetworkConfig config, List<NetworkConfig> nics, Map<Integer, NicResult> results)
      throws ApiException {
    String key = KubeObjects.key(config);
    List<NetworkConfigStatus> statuses = new ArrayList<>();
    int allocated = 0;
    String firstError = null;
    String firstPending = null;
    for (int i = 0; i < nics.size(); i++) {
      NetworkConfig nic = nics.get(i);
      NicResult r = conflictNoted(config, nic, results.get(i));
      statuses.add(
          new NetworkConfigStatus()
              .networkName(nic.getNetworkName())
              .macAddress(nic.getMacAddress())
              .allocatedIPAddress(r.address())
              .state(r.state())
              .message(r.message()));
      if (NetworkConfigStatus.STATE_ALLOCATED.equals(r.state())) {
        allocated++;
      } else if (NetworkConfigStatus.STATE_ERROR.equals(r.state()) && firstError == null) {
        firstError = nic.getMacAddress() + ": " + r.message();
      } else if (NetworkConfigStatus.STATE_PENDING.equals(r.state()) && firstPending == null) {
        firstPending = nic.getMacAddress() + ": " + r.message();
      }
    }
    Status current = config.getStatus() == null ? new Status() : config.getStatus();
    Conditions conditions = new Conditions(current.getConditions(), now());
    String summary = allocated + " of " + nics.size() + " NICs have an address";
    if (firstError != null) {
      conditions.set(
          PoolCondition.ALLOCATED, false, "AllocationFailed", summary + "; " + firstError);
      objectEvents.warning(config, "AllocationFailed", firstError);
      if (warnings.first(key, config.getMetadata().getGeneration())) {
        log.warn("VirtualMachineNetworkConfig {}: {}", key, firstError);
      }
    } else if (firstPending != null) {
      conditions.set(PoolCondition.ALLOCATED, false, "Pending", summary + "; " + firstPending);
    } else {
      warnings.forget(key);
      conditions.set(PoolCondition.ALLOCATED, true, "Allocated", summary);
    }
    if (current.condition(PoolCondition.DISABLED).isPresent()
        || current.condition(PoolCondition.STOPPED).isPresent()) {
      conditions.set(PoolCondition.DISABLED, false, "Resumed", "spec.paused is false");
    }
    conditions.remove(PoolCondition.STOPPED); // this condition's name before upstream's
    Status next = new Status().networkConfigs(statuses).conditions(conditions.list());
    if (next.equals(current)) {
      log.debug("VirtualMachineNetworkConfig {}: status is up to date", key);
      return;
    }
    VirtualMachineNetworkConfig update =
        KubeObjects.copy(config, VirtualMachineNetworkConfig.class).status(next);
    writes.replaceVmConfigStatus(update);
    for (int i = 0; i < statuses.size(); i++) {
      NetworkConfigStatus now = statuses.get(i);
      NetworkConfigStatus before = findByMac(current, now.getMacAddress());
      if (before == null
          || !Objects.equals(before.getState(), now.getState())
          || !Objects.equals(before.getAllocatedIPAddress(), now.getAllocatedIPAddress())) {
        events.emit(
            "NIC",
            "vmconfig",
            key,
            "mac",
            now.getMacAddress(),
            "network",
            now.getNetworkName(),
            "state",
            now.getState(),
            "ip",
            now.getAllocatedIPAddress(),
            "message",
            now.getMessage());
      }
    }
    log.info("VirtualMachineNetworkConfig {}: status written ({})", key, summary);
  }

  /**
   * A NIC whose address was declined (its pool now marks it {@code CONFLICT}) and that got another
   * says so in its status message, and a Warning event {@code AddressConflict} goes to the config.
   * The message stays while the NIC keeps the new address.
   */
  private NicResult conflictNoted(
      VirtualMachineNetworkConfig config, NetworkConfig nic, NicResult result) {
    if (config.getStatus() == null || result.address() == null) {
      return result;
    }
    NetworkConfigStatus before = findByMac(config.getStatus(), nic.getMacAddress());
    if (before == null || before.getAllocatedIPAddress() == null) {
      return result;
    }
    if (before.getAllocatedIPAddress().equals(result.address())) {
      return before.getMessage() != null
              && before.getMessage().contains("was declined")
              && result.message() == null
          ? new NicResult(result.state(), result.address(), before.getMessage())
          : result;
    }
    List<IPPool> pools =
        nic.getNetworkName() == null ? List.of() : cache.servingPools(nic.getNetworkName());
    boolean conflict =
        pools.size() == 1
            && pools.get(0).getStatus() != null
            && pools.get(0).getStatus().getIpv4() != null
            && IPv4Status.CONFLICT.equals(
                pools
                    .get(0)
                    .getStatus()
                    .getIpv4()
                    .getAllocated()
                    .get(before.getAllocatedIPAddress()));
    if (!conflict) {
      return result;
    }
    String message =
        before.getAllocatedIPAddress()
            + " was declined by the VM (in use on the"
            + " network); "
            + nic.getMacAddress()
            + " got "
            + result.address()
            + " instead";
    objectEvents.warning(config, "AddressConflict", message);
    return new NicResult(result.state(), result.address(), message);
  }

  private static NetworkConfigStatus findByMac(Status status, String mac) {
    return status.getNetworkConfigs().stream()
        .filter(s -> Objects.equals(s.getMacAddress(), mac))
        .findFirst()
        .orElse(null);
  }

  private Result releaseAll(VirtualMachineNetworkConfig config) throws ApiException {
    String key = KubeObjects.key(config);
    if (!KubeObjects.hasFinalizer(config, FINALIZER) && !KubeObjects.hasUpstreamFinalizer(config)) {
      return DONE;
    }
    for (Map.Entry<String, Set<String>> e : heldByPool(config, true).entrySet()) {
      allocator.apply(e.getKey(), key, List.of(), e.getValue());
    }
    writes.updateVmConfig(
        KubeObjects.withoutFinalizer(config, FINALIZER, VirtualMachineNetworkConfig.class));
    warnings.forget(key);
    log.info("VirtualMachineNetworkConfig {}: addresses released, finalizer removed", key);
    events.emit("FINALIZED", "kind", VirtualMachineNetworkConfig.KIND, "object", key);
    return DONE;
  }

  /**
   * The MACs of {@code config} per serving pool: those of its status that hold an address, and with
   * {@code withSpec} every MAC of its spec too (a release of a MAC the pool does not hold is a
   * no-op).
   */
  private Map<String, Set<String>> heldByPool(
      VirtualMachineNetworkConfig config, boolean withSpec) {
    List<String[]> pairs = new ArrayList<>();
    if (withSpec && config.getSpec() != null) {
      config
          .getSpec()
          .getNetworkConfigs()
          .forEach(n -> pairs.add(new String[] {n.getNetworkName(), n.getMacAddress()}));
    }
    if (config.getStatus() != null) {
      config.getStatus().getNetworkConfigs().stream()
          .filter(n -> withSpec || n.getAllocatedIPAddress() != null)
          .forEach(n -> pairs.add(new String[] {n.getNetworkName(), n.getMacAddress()}));
    }
    Map<String, Set<String>> byPool = new LinkedHashMap<>();
    for (String[] pair : pairs) {
      Optional<String> mac = Macs.normalise(pair[1]);
      List<IPPool> pools = pair[0] == null ? List.of() : cache.servingPools(pair[0]);
      if (mac.isPresent() && pools.size() == 1) {
        byPool.computeIfAbsent(pools.get(0).ref(), k -> new LinkedHashSet<>()).add(mac.get());
      }
    }
    return byPool;
  }

  private static NicResult error(String message) {
    return new NicResult(NetworkConfigStatus.STATE_ERROR, null, message);
  }

  private OffsetDateTime now() {
    return OffsetDateTime.now(clock)
        .withOffsetSameInstant(ZoneOffset.UTC)
        .truncatedTo(ChronoUnit.SECONDS);
  }
}
