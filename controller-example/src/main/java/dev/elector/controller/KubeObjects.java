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

  static boolean hasFinalizer(KubernetesObject o, String finalizer) {
    List<String> finalizers = o.getMetadata().getFinalizers();
    return finalizers != null && finalizers.contains(finalizer);
  }

  /** A copy of {@code o} with {@code finalizer} added. */
  static <T extends KubernetesObject> T withFinalizer(T o, String finalizer, Class<T> type) {
    T copy = copy(o, type);
    List<String> finalizers =
        copy.getMetadata().getFinalizers() == null
            ? new ArrayList<>()
            : new ArrayList<>(copy.getMetadata().getFinalizers());
    finalizers.add(finalizer);
    copy.getMetadata().setFinalizers(finalizers);
    return copy;
  }

  /** A copy of {@code o} without {@code finalizer}. */
  static <T extends KubernetesObject> T withoutFinalizer(T o, String finalizer, Class<T> type) {
    T copy = copy(o, type);
    List<String> finalizers = new ArrayList<>(copy.getMetadata().getFinalizers());
    finalizers.remove(finalizer);
    copy.getMetadata().setFinalizers(finalizers);
    return copy;
  }
}
