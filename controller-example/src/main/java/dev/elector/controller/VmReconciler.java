package dev.elector.controller;

import dev.elector.ippool.PoolCondition;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.NetworkConfig;
import dev.elector.ippool.VirtualMachineNetworkConfig.Status;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the VirtualMachineNetworkConfig of each KubeVirt VirtualMachine: same namespace and name,
 * owned by the VM (a controller owner reference, so a garbage collector also removes it), NICs from
 * {@link VmNetworks}. A VM with no such NIC has no config; when the VM goes, so does its config,
 * whose finalizer releases the addresses.
 *
 * <p>A change of the VM's networks is applied in two steps: first the config's {@code InSynced}
 * condition turns False ({@code NetworkConfigChanged}), then its spec is updated; the config's
 * reconcile releases every address the new spec dropped, in every pool, before it allocates any new
 * one. Once the spec matches the VM, {@code InSynced} turns True.
 *
 * <p>A malformed MAC-address annotation changes nothing: the config keeps its NICs and addresses,
 * {@code InSynced} turns False ({@code InvalidMacAddressAnnotation}) with the fix, and a Warning
 * Event goes to the VM. A config of the VM's name that the VM does not own is left alone.
 */
final class VmReconciler implements KeyReconciler {
  /** Condition on the config: whether its spec matches its VirtualMachine. */
  static final String IN_SYNCED = "InSynced";

  /** Reason of InSynced=False, and of the VM's Warning Event, when a VM has more than 4 NICs. */
  static final String TOO_MANY_NICS = "TooManyNICs";

  /** Label with the VM's name, on configs made from a VM. */
  static final String VM_LABEL = "harvesterhci.io/vmName";

  private static final Logger log = LoggerFactory.getLogger(VmReconciler.class);

  private final ClusterCache cache;
  private final LeaderWrites writes;
  private final EventLog events;
  private final ObjectEvents objectEvents;
  private final WarnOnce warnings;
  private final Clock clock;

  VmReconciler(
      ClusterCache cache,
      LeaderWrites writes,
      EventLog events,
      ObjectEvents objectEvents,
      WarnOnce warnings,
      Clock clock) {
    this.cache = cache;
    this.writes = writes;
    this.events = events;
    this.objectEvents = objectEvents;
    this.warnings = warnings;
    this.clock = clock;
  }

  @Override
  public Result reconcile(String namespace, String name) throws ApiException {
    String key = namespace + "/" + name;
    VirtualMachine vm = cache.vm(key);
    VirtualMachineNetworkConfig config = cache.vmConfig(key);
    if (vm == null || KubeObjects.deleting(vm)) {
      if (config != null && ownedByVm(config) && !KubeObjects.deleting(config)) {
        delete(config, "the VirtualMachine is " + (vm == null ? "gone" : "being deleted"));
      }
      return DONE;
    }
    if (config != null && !ownedByVm(config)) {
      if (warnings.first("VirtualMachine " + key, vm.getMetadata().getGeneration())) {
        log.warn(
            "VirtualMachine {}: a VirtualMachineNetworkConfig of its name exists and is not"
                + " owned by it; it is left alone (delete it to have one made from the VM)",
            key);
        objectEvents.warning(
            vm,
            "NetworkConfigNotOwned",
            "VirtualMachineNetworkConfig "
                + key
                + " was not made from this VM and is left alone; delete it to have one made");
      }
      return DONE;
    }
    VmNetworks.Result wanted = VmNetworks.of(vm);
    if (wanted.annotationError().isPresent()) {
      return badAnnotation(vm, config, wanted.annotationError().get());
    }
    List<NetworkConfig> all = wanted.nics();
    List<NetworkConfig> left =
        all.size() > VirtualMachineNetworkConfig.MAX_NICS
            ? all.subList(VirtualMachineNetworkConfig.MAX_NICS, all.size())
            : List.of();
    if (!left.isEmpty()) {
      tooManyNics(vm, all.size(), left);
    } else {
      warnings.forget("VirtualMachine " + key + " NICs");
    }
    List<NetworkConfig> nics =
        keepRequestedAddresses(
            all.subList(0, Math.min(all.size(), VirtualMachineNetworkConfig.MAX_NICS)), config);
    if (nics.isEmpty()) {
      if (config != null && !KubeObjects.deleting(config)) {
        delete(config, "the VirtualMachine has no NIC with a MAC on a Multus network");
      }
      return DONE;
    }
    if (config == null) {
      create(vm, nics);
      return DONE;
    }
    if (KubeObjects.deleting(config)) {
      return DONE; // made again from the VM once it is gone (its delete event queues the VM)
    }
    if (!nics.equals(config.getSpec() == null ? List.of() : config.getSpec().getNetworkConfigs())) {
      Optional<PoolCondition> synced = condition(config);
      if (synced.isPresent()
          && "False".equals(synced.get().getStatus())
          && "NetworkConfigChanged".equals(synced.get().getReason())) {
        updateSpec(vm, config, nics);
      } else {
        setInSynced(
            config,
            false,
            "NetworkConfigChanged",
            "the networks of VirtualMachine "
                + key
                + " changed; the addresses it dropped are released before new ones are"
                + " allocated");
      }
      return DONE;
    }
    warnings.forget("VirtualMachine " + key);
    if (!left.isEmpty()) {
      setInSynced(config, false, TOO_MANY_NICS, tooManyNicsMessage(key, all.size(), left));
      return DONE;
    }
    setInSynced(config, true, "Synced", "spec.networkConfigs matches VirtualMachine " + key);
    return DONE;
  }

  /** A VM with more NICs than a config holds: the first ones are served, the rest reported. */
  private void tooManyNics(VirtualMachine vm, int count, List<NetworkConfig> left) {
    String key = KubeObjects.key(vm);
    String message = tooManyNicsMessage(key, count, left);
    if (warnings.first("VirtualMachine " + key + " NICs", vm.getMetadata().getGeneration())) {
      log.warn("VirtualMachine {}: {}", key, message);
      events.emit("VM_CONFIG", "vm", key, "action", "truncated", "nics", count);
    }
    objectEvents.warning(vm, TOO_MANY_NICS, message);
  }

  private static String tooManyNicsMessage(String key, int count, List<NetworkConfig> left) {
    return "VirtualMachine "
        + key
        + " has "
        + count
        + " NICs on Multus networks and a VirtualMachineNetworkConfig holds at most "
        + VirtualMachineNetworkConfig.MAX_NICS
        + " (upstream's limit); the first "
        + VirtualMachineNetworkConfig.MAX_NICS
        + " are served and "
        + describe(left)
        + " get no address from an IPPool; give those NICs static addresses or move them to a"
        + " network without a pool";
  }

  /** A config is the VM's when a controller owner reference names a VirtualMachine. */
  static boolean ownedByVm(VirtualMachineNetworkConfig config) {
    List<V1OwnerReference> owners = config.getMetadata().getOwnerReferences();
    return owners != null
        && owners.stream()
            .anyMatch(
                o ->
                    VirtualMachine.KIND.equals(o.getKind())
                        && Boolean.TRUE.equals(o.getController())
                        && o.getApiVersion() != null
                        && o.getApiVersion().startsWith(VirtualMachine.GROUP + "/")
                        && Objects.equals(o.getName(), config.getMetadata().getName()));
  }

  /** A requested ipAddress written on the config for the same MAC and network is kept. */
  private static List<NetworkConfig> keepRequestedAddresses(
      List<NetworkConfig> nics, VirtualMachineNetworkConfig config) {
    if (config == null || config.getSpec() == null) {
      return nics;
    }
    List<NetworkConfig> kept = new ArrayList<>();
    for (NetworkConfig nic : nics) {
      NetworkConfig with =
          new NetworkConfig().networkName(nic.getNetworkName()).macAddress(nic.getMacAddress());
      for (NetworkConfig old : config.getSpec().getNetworkConfigs()) {
        if (Objects.equals(old.getMacAddress(), nic.getMacAddress())
            && Objects.equals(old.getNetworkName(), nic.getNetworkName())) {
          with.ipAddress(old.getIpAddress());
        }
      }
      kept.add(with);
    }
    return kept;
  }

  private Result badAnnotation(VirtualMachine vm, VirtualMachineNetworkConfig config, String error)
      throws ApiException {
    String key = KubeObjects.key(vm);
    String annotation = vm.getMetadata().getAnnotations().get(VmNetworks.MAC_ANNOTATION);
    if (warnings.first("VirtualMachine " + key, (long) annotation.hashCode())) {
      log.warn(
          "VirtualMachine {}: {}; its VirtualMachineNetworkConfig is left as it is", key, error);
      events.emit("VM_CONFIG", "vm", key, "action", "kept", "message", error);
    }
    objectEvents.warning(vm, "InvalidMacAddressAnnotation", error);
    if (config != null && !KubeObjects.deleting(config)) {
      setInSynced(
          config,
          false,
          "InvalidMacAddressAnnotation",
          error + "; until then this config keeps its NICs and addresses");
    }
    return DONE;
  }

  private void create(VirtualMachine vm, List<NetworkConfig> nics) throws ApiException {
    String key = KubeObjects.key(vm);
    V1ObjectMeta meta = vm.getMetadata();
    VirtualMachineNetworkConfig config =
        new VirtualMachineNetworkConfig()
            .metadata(
                new V1ObjectMeta()
                    .namespace(meta.getNamespace())
                    .name(meta.getName())
                    .labels(Map.of(VM_LABEL, meta.getName()))
                    .ownerReferences(List.of(owner(vm))))
            .spec(
                new VirtualMachineNetworkConfig.Spec().vmName(meta.getName()).networkConfigs(nics));
    try {
      writes.createVmConfig(config);
    } catch (ApiException e) {
      if (e.getCode() == 409) {
        return; // the cache was behind; its add event queues the VM again
      }
      throw e;
    }
    log.info(
        "VirtualMachine {}: created its VirtualMachineNetworkConfig with {} NICs",
        key,
        nics.size());
    events.emit("VM_CONFIG", "vm", key, "action", "created", "nics", nics.size());
    objectEvents.normal(
        vm,
        "NetworkConfigCreated",
        "VirtualMachineNetworkConfig " + key + " with " + describe(nics));
  }

  private void updateSpec(
      VirtualMachine vm, VirtualMachineNetworkConfig config, List<NetworkConfig> nics)
      throws ApiException {
    String key = KubeObjects.key(vm);
    VirtualMachineNetworkConfig update =
        KubeObjects.copy(config, VirtualMachineNetworkConfig.class);
    if (update.getSpec() == null) {
      update.spec(new VirtualMachineNetworkConfig.Spec());
    }
    update.getSpec().vmName(vm.getMetadata().getName()).networkConfigs(nics);
    update.getMetadata().ownerReferences(List.of(owner(vm)));
    writes.updateVmConfig(update);
    log.info(
        "VirtualMachine {}: updated its VirtualMachineNetworkConfig to {}", key, describe(nics));
    events.emit("VM_CONFIG", "vm", key, "action", "updated", "nics", nics.size());
    objectEvents.normal(
        vm,
        "NetworkConfigUpdated",
        "VirtualMachineNetworkConfig " + key + " now has " + describe(nics));
  }

  private void delete(VirtualMachineNetworkConfig config, String why) throws ApiException {
    String key = KubeObjects.key(config);
    writes.deleteVmConfig(config);
    warnings.forget("VirtualMachine " + key);
    log.info(
        "VirtualMachine {}: deleted its VirtualMachineNetworkConfig ({}); its finalizer"
            + " releases the addresses",
        key,
        why);
    events.emit("VM_CONFIG", "vm", key, "action", "deleted", "message", why);
  }

  private void setInSynced(
      VirtualMachineNetworkConfig config, boolean status, String reason, String message)
      throws ApiException {
    Status current = config.getStatus() == null ? new Status() : config.getStatus();
    Conditions conditions = new Conditions(current.getConditions(), now());
    conditions.set(IN_SYNCED, status, reason, message);
    Status next =
        new Status().networkConfigs(current.getNetworkConfigs()).conditions(conditions.list());
    if (next.equals(current)) {
      return;
    }
    writes.replaceVmConfigStatus(
        KubeObjects.copy(config, VirtualMachineNetworkConfig.class).status(next));
    events.emit(
        "CONDITION",
        "vmconfig",
        KubeObjects.key(config),
        "type",
        IN_SYNCED,
        "status",
        status ? "True" : "False",
        "reason",
        reason);
  }

  private static Optional<PoolCondition> condition(VirtualMachineNetworkConfig config) {
    return config.getStatus() == null ? Optional.empty() : config.getStatus().condition(IN_SYNCED);
  }

  private static V1OwnerReference owner(VirtualMachine vm) {
    return new V1OwnerReference()
        .apiVersion(VirtualMachine.API_VERSION)
        .kind(VirtualMachine.KIND)
        .name(vm.getMetadata().getName())
        .uid(vm.getMetadata().getUid())
        .controller(true);
  }

  private static String describe(List<NetworkConfig> nics) {
    List<String> parts = new ArrayList<>();
    nics.forEach(n -> parts.add(n.getMacAddress() + " on " + n.getNetworkName()));
    return String.join(", ", parts);
  }

  private OffsetDateTime now() {
    return OffsetDateTime.now(clock)
        .withOffsetSameInstant(ZoneOffset.UTC)
        .truncatedTo(ChronoUnit.SECONDS);
  }
}
