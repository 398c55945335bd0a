package dev.elector.controller;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import java.util.List;
import java.util.function.Function;

/**
 * Which VirtualMachineNetworkConfigs use a pool: those with a NIC on the pool's network. A pool in
 * use is not deleted: admission refuses the delete ({@link AdmissionReviews}), and where no webhook
 * runs the pool's finalizer holds it ({@link PoolReconciler}).
 */
final class PoolUsage {
  private static final int NAMES_SHOWN = 10;

  private PoolUsage() {}

  /**
   * The configs ("namespace/name", sorted) with a NIC on {@code pool}'s network; none when another
   * pool serves that network ({@link OnePoolPerNetwork}), since those configs are not {@code
   * pool}'s.
   */
  static List<String> users(
      IPPool pool,
      Function<String, List<IPPool>> poolsOnNetwork,
      Function<String, List<VirtualMachineNetworkConfig>> configsOnNetwork) {
    if (pool.getSpec() == null || pool.getSpec().getNetworkName() == null) {
      return List.of();
    }
    if (OnePoolPerNetwork.servedByOther(pool, poolsOnNetwork.apply(pool.getSpec().getNetworkName()))
        .isPresent()) {
      return List.of();
    }
    return configsOnNetwork.apply(pool.getSpec().getNetworkName()).stream()
        .map(KubeObjects::key)
        .sorted()
        .toList();
  }

  /** Why {@code pool} cannot go yet, and what to do. */
  static String message(IPPool pool, List<String> users) {
    String names = String.join(", ", users.subList(0, Math.min(users.size(), NAMES_SHOWN)));
    if (users.size() > NAMES_SHOWN) {
      names += " and " + (users.size() - NAMES_SHOWN) + " more";
    }
    return "IPPool "
        + pool.ref()
        + " is still used by VirtualMachineNetworkConfig(s) "
        + names
        + " on network "
        + pool.getSpec().getNetworkName()
        + "; delete them (or their VirtualMachines) or take their NICs off that network first";
  }
}
