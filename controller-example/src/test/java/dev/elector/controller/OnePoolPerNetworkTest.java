package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ippool.IPPool;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class OnePoolPerNetworkTest {
  private static IPPool pool(String namespace, String name, String created) {
    return new IPPool()
        .metadata(
            new V1ObjectMeta()
                .namespace(namespace)
                .name(name)
                .creationTimestamp(created == null ? null : OffsetDateTime.parse(created)))
        .spec(PoolValidationTest.good());
  }

  private static final IPPool OLDER = pool("default", "vlan100", "2026-01-01T00:00:00Z");
  private static final IPPool NEWER = pool("tenant-a", "dup", "2026-06-01T00:00:00Z");

  @Test
  void theOldestPoolOnANetworkServesItWhateverTheOrderTheyAreListedIn() {
    assertEquals(OLDER, OnePoolPerNetwork.serving(List.of(NEWER, OLDER)).orElseThrow());
    assertEquals(OLDER, OnePoolPerNetwork.serving(List.of(OLDER, NEWER)).orElseThrow());
    assertEquals(List.of(OLDER), OnePoolPerNetwork.servingOnly(List.of(NEWER, OLDER)));
    assertEquals(List.of(), OnePoolPerNetwork.servingOnly(List.of()));
  }

  @Test
  void poolsCreatedInTheSameSecondAreOrderedByNamespaceAndNameSoEveryReplicaAgrees() {
    IPPool a = pool("a", "p", "2026-01-01T00:00:00Z");
    IPPool b = pool("b", "p", "2026-01-01T00:00:00Z");
    assertEquals(a, OnePoolPerNetwork.serving(List.of(b, a)).orElseThrow());
  }

  @Test
  void theNewerPoolStandsAsideForTheOlderAndTheOlderForNone() {
    assertEquals(
        OLDER, OnePoolPerNetwork.servedByOther(NEWER, List.of(OLDER, NEWER)).orElseThrow());
    assertTrue(OnePoolPerNetwork.servedByOther(OLDER, List.of(OLDER, NEWER)).isEmpty());
    assertTrue(OnePoolPerNetwork.servedByOther(OLDER, List.of()).isEmpty());
  }

  @Test
  void aPoolBeingCreatedHasNoTimestampYetAndStandsAsideForAnyStoredOne() {
    IPPool creating = pool("tenant-a", "aaa", null);
    assertEquals(OLDER, OnePoolPerNetwork.servedByOther(creating, List.of(OLDER)).orElseThrow());
    assertTrue(
        OnePoolPerNetwork.servedByOther(creating, List.of(creating)).isEmpty(),
        "a pool is never refused because of itself");
  }

  @Test
  void theMessagesNameTheServingPoolAndTheWayOut() {
    String refusal = OnePoolPerNetwork.refusal(NEWER, OLDER);
    assertTrue(
        refusal.contains(
            "spec.networkName default/vlan-100 is already served by IPPool" + " default/vlan100"),
        refusal);
    String message = OnePoolPerNetwork.message(NEWER, OLDER);
    assertTrue(message.contains("served by IPPool default/vlan100"), message);
    assertTrue(message.contains("delete it (nothing holds it)"), message);
  }
}
