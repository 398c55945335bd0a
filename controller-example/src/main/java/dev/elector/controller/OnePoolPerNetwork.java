package dev.elector.controller;

import dev.elector.ippool.IPPool;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * One IPPool serves a network (a NetworkAttachmentDefinition, {@code spec.networkName}). Admission
 * refuses a second pool on a served network ({@link AdmissionReviews}); a second one that got in
 * anyway (created while no webhook ran) serves nothing: the oldest pool on the network, by {@code
 * creationTimestamp} and then by namespace/name, keeps serving, and every other is reported {@code
 * Registered=False/}{@value #REASON}, gets no agent, allocates nothing and is not held by the
 * network's VM configs, so it can be deleted. Once the serving pool is gone, the next oldest
 * serves. Pure: the pools come in as arguments.
 */
final class OnePoolPerNetwork {
  /** The Registered reason of a pool whose network another pool serves. */
  static final String REASON = "NetworkInUse";

  /** Oldest first; a pool not stored yet (no timestamp) is the newest; then by namespace/name. */
  private static final Comparator<IPPool> SERVING_ORDER =
      Comparator.comparing(
              (IPPool p) -> p.getMetadata().getCreationTimestamp(),
              Comparator.nullsLast(Comparator.<OffsetDateTime>naturalOrder()))
          .thenComparing(KubeObjects::key);

  private OnePoolPerNetwork() {}

  /** The pool of {@code poolsOnNetwork} that serves their network, if any. */
  static Optional<IPPool> serving(Collection<IPPool> poolsOnNetwork) {
    return poolsOnNetwork.stream().min(SERVING_ORDER);
  }

  /** {@code poolsOnNetwork} reduced to the one that serves (none or one pool). */
  static List<IPPool> servingOnly(List<IPPool> poolsOnNetwork) {
    return poolsOnNetwork.size() < 2 ? poolsOnNetwork : serving(poolsOnNetwork).stream().toList();
  }

  /**
   * The pool that serves {@code pool}'s network when that is not {@code pool} itself.
   *
   * @param poolsOnNetwork the known pools whose spec.networkName is {@code pool}'s, with or without
   *     {@code pool} (a pool being created is not known yet)
   */
  static Optional<IPPool> servedByOther(IPPool pool, Collection<IPPool> poolsOnNetwork) {
    String key = KubeObjects.key(pool);
    List<IPPool> candidates = new ArrayList<>();
    candidates.add(pool);
    for (IPPool p : poolsOnNetwork) {
      if (!KubeObjects.key(p).equals(key)) {
        candidates.add(p);
      }
    }
    return serving(candidates).filter(p -> !KubeObjects.key(p).equals(key));
  }

  /** Admission's refusal of {@code pool} on the network {@code owner} serves. */
  static String refusal(IPPool pool, IPPool owner) {
    return "spec.networkName "
        + pool.getSpec().getNetworkName()
        + " is already served by IPPool "
        + KubeObjects.key(owner)
        + "; one IPPool serves a network: change that pool, or set spec.networkName to a network"
        + " no IPPool serves";
  }

  /** The Registered message of {@code pool}, whose network {@code owner} serves. */
  static String message(IPPool pool, IPPool owner) {
    return "network "
        + pool.getSpec().getNetworkName()
        + " is served by IPPool "
        + KubeObjects.key(owner)
        + " (created "
        + owner.getMetadata().getCreationTimestamp()
        + ", before this pool); one IPPool serves a network, so this one runs no agent and"
        + " allocates nothing: delete it (nothing holds it), or set spec.networkName to a network"
        + " no IPPool serves";
  }
}
