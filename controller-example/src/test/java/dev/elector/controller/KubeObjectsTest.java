package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ippool.IPPool;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.List;
import org.junit.jupiter.api.Test;

class KubeObjectsTest {
  private static final String UPSTREAM = "wrangler.cattle.io/vm-dhcp-ippool-controller";
  private static final String OTHER = "example.com/keep-me";

  private static IPPool pool(String... finalizers) {
    return new IPPool()
        .metadata(new V1ObjectMeta().namespace("ns").name("p").finalizers(List.of(finalizers)));
  }

  @Test
  void addingOurFinalizerReplacesUpstreamsAndKeepsOthers() {
    IPPool upstream = pool(OTHER, UPSTREAM);
    assertTrue(KubeObjects.hasUpstreamFinalizer(upstream));
    IPPool ours = KubeObjects.withFinalizer(upstream, PoolReconciler.FINALIZER, IPPool.class);
    assertEquals(List.of(OTHER, PoolReconciler.FINALIZER), ours.getMetadata().getFinalizers());
    assertFalse(KubeObjects.hasUpstreamFinalizer(ours));
    assertEquals(
        List.of(OTHER, PoolReconciler.FINALIZER),
        KubeObjects.withFinalizer(ours, PoolReconciler.FINALIZER, IPPool.class)
            .getMetadata()
            .getFinalizers(),
        "never twice");
    assertEquals(List.of(OTHER, UPSTREAM), upstream.getMetadata().getFinalizers(), "a copy");
  }

  @Test
  void removingOurFinalizerAlsoRemovesUpstreams() {
    IPPool both = pool(UPSTREAM, PoolReconciler.FINALIZER, OTHER);
    assertEquals(
        List.of(OTHER),
        KubeObjects.withoutFinalizer(both, PoolReconciler.FINALIZER, IPPool.class)
            .getMetadata()
            .getFinalizers());
    assertFalse(KubeObjects.hasUpstreamFinalizer(pool(OTHER, "wrangler.cattle.io/other")));
  }
}
