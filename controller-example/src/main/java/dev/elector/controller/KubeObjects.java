package dev.elector.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.JSON;
import java.util.ArrayList;
import java.util.List;

/** Small helpers over Kubernetes objects: keys, deep copies, finalizers. */
final class KubeObjects {
  private KubeObjects() {}

  /** "namespace/name", the work-queue and cache key. */
  static String key(KubernetesObject o) {
    return o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
  }

  /** A deep copy, so that objects from the informer cache are never modified. */
  static <T> T copy(T o, Class<T> type) {
    return JSON.deserialize(JSON.serialize(o), type);
  }

  static boolean deleting(KubernetesObject o) {
    return o.getMetadata().getDeletionTimestamp() != null;
  }

  /**
   * The finalizers upstream's wrangler controllers put on IPPools and VirtualMachineNetworkConfigs
   * ({@code wrangler.cattle.io/vm-dhcp-ippool-controller}, {@code ...-vmnetcfg-controller}). This
   * controller replaces them: each write that adds or removes its own finalizer drops them, so an
   * object left by upstream can still be deleted once upstream is gone.
   */
  static final String UPSTREAM_FINALIZER_PREFIX = "wrangler.cattle.io/vm-dhcp-";

  static boolean hasUpstreamFinalizer(KubernetesObject o) {
    List<String> finalizers = o.getMetadata().getFinalizers();
    return finalizers != null
        && finalizers.stream().anyMatch(f -> f.startsWith(UPSTREAM_FINALIZER_PREFIX));
  }

  static boolean hasFinalizer(KubernetesObject o, String finalizer) {
    List<String> finalizers = o.getMetadata().getFinalizers();
    return finalizers != null && finalizers.contains(finalizer);
  }

  /** A copy of {@code o} with {@code finalizer} added and upstream's finalizers dropped. */
  static <T extends KubernetesObject> T withFinalizer(T o, String finalizer, Class<T> type) {
    T copy = copy(o, type);
    List<String> finalizers =
        copy.getMetadata().getFinalizers() == null
            ? new ArrayList<>()
            : new ArrayList<>(copy.getMetadata().getFinalizers());
    finalizers.removeIf(f -> f.startsWith(UPSTREAM_FINALIZER_PREFIX));
    if (!finalizers.contains(finalizer)) {
      finalizers.add(finalizer);
    }
    copy.getMetadata().setFinalizers(finalizers);
    return copy;
  }

  /** A copy of {@code o} without {@code finalizer} and without upstream's finalizers. */
  static <T extends KubernetesObject> T withoutFinalizer(T o, String finalizer, Class<T> type) {
    T copy = copy(o, type);
    List<String> finalizers = new ArrayList<>(copy.getMetadata().getFinalizers());
    finalizers.remove(finalizer);
    finalizers.removeIf(f -> f.startsWith(UPSTREAM_FINALIZER_PREFIX));
    copy.getMetadata().setFinalizers(finalizers);
    return copy;
  }
}
