package dev.elector.dhcp.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.server.Lease;
import dev.elector.ippool.IPPoolRef;
import dev.elector.ippool.IPPoolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PoolLeaseCacheTest {
  private static final MacAddress A = MacAddress.parse("52:54:00:00:00:0a");
  private static final MacAddress B = MacAddress.parse("52:54:00:00:00:0b");

  private final List<String> updates = new ArrayList<>();
  private final PoolLeaseCache cache =
      new PoolLeaseCache(
          new IPPoolRef("default", "net-48"),
          Optional.empty(),
          Optional.empty(),
          s -> updates.add(s.resourceVersion()));

  @Test
  void aDeclinedAddressIsNotOfferedToThatMacUntilTheBackOffEndsOrThePoolMovesIt() {
    dev.elector.testkit.VirtualTime time = dev.elector.testkit.VirtualTime.create();
    dev.elector.time.MonotonicClock clock = time.clock();
    PoolLeaseCache timed =
        new PoolLeaseCache(
            new IPPoolRef("default", "net-48"), Optional.empty(), Optional.empty(), s -> {}, clock);
    timed.apply(Pools.pool("5", Map.of("192.0.2.10", A.toString(), "192.0.2.11", B.toString())));
    timed.declined(A, Ipv4Address.parse("192.0.2.10"));

    assertEquals(Optional.empty(), timed.leaseFor(A), "not offered the declined address");
    assertEquals(Optional.of(new Lease(B, Ipv4Address.parse("192.0.2.11"))), timed.leaseFor(B));
    time.advance(PoolLeaseCache.DECLINE_BACKOFF.minusNanos(1));
    assertEquals(Optional.empty(), timed.leaseFor(A));
    time.advance(java.time.Duration.ofNanos(1));
    assertEquals(
        Optional.of(new Lease(A, Ipv4Address.parse("192.0.2.10"))),
        timed.leaseFor(A),
        "offered again once the back-off is over");

    timed.declined(A, Ipv4Address.parse("192.0.2.10"));
    timed.apply(Pools.pool("6", Map.of("192.0.2.12", A.toString())));
    assertEquals(
        Optional.of(new Lease(A, Ipv4Address.parse("192.0.2.12"))),
        timed.leaseFor(A),
        "another address from the pool is served at once");
  }

  @Test
  void servesNothingBeforeTheInitialSync() {
    assertFalse(cache.isSynced());
    assertTrue(cache.notServingReason().orElseThrow().contains("initial sync"));
    assertEquals(Optional.empty(), cache.leaseFor(A));
    assertThrows(IllegalStateException.class, cache::options);
  }

  @Test
  void theFirstListSyncsAndServesTheAllocationTable() {
    cache.apply(Pools.pool("5", Map.of("192.0.2.10", A.toString())));

    assertTrue(cache.isSynced());
    assertTrue(cache.initialSync().toCompletableFuture().isDone());
    assertEquals(Optional.empty(), cache.notServingReason());
    assertEquals(Optional.of(new Lease(A, Ipv4Address.parse("192.0.2.10"))), cache.leaseFor(A));
    assertEquals(Optional.empty(), cache.leaseFor(B));
    assertEquals(Ipv4Address.parse("192.0.2.1"), cache.options().serverIp());
    assertEquals(List.of("5"), updates);
  }

  @Test
  void aListWithoutThePoolAlsoCompletesTheInitialSync() {
    cache.absent();

    assertTrue(cache.isSynced());
    assertEquals("IPPool default/net-48 does not exist", cache.notServingReason().orElseThrow());
  }

  @Test
  void anUpdateReplacesTheWholeTable() {
    cache.apply(Pools.pool("5", Map.of("192.0.2.10", A.toString())));
    cache.apply(Pools.pool("6", Map.of("192.0.2.11", B.toString())));

    assertEquals(Optional.empty(), cache.leaseFor(A));
    assertEquals(Optional.of(new Lease(B, Ipv4Address.parse("192.0.2.11"))), cache.leaseFor(B));
    assertEquals(List.of("5", "6"), updates);
  }

  @Test
  void anInvalidVersionAfterAValidOneKeepsServingTheValidOne() {
    cache.apply(Pools.pool("5", Map.of("192.0.2.10", A.toString())));
    cache.apply(Pools.pool("6", Pools.config().cidr("garbage"), Map.of()));

    assertEquals(Optional.empty(), cache.notServingReason());
    assertEquals("5", cache.snapshot().orElseThrow().resourceVersion());
    assertTrue(cache.leaseFor(A).isPresent());
    assertEquals(List.of("5"), updates);
  }

  @Test
  void anInvalidFirstVersionSyncsButServesNothingAndSaysWhy() {
    cache.apply(Pools.pool("5", Pools.config().serverIP("10.9.9.9"), Map.of()));

    assertTrue(cache.isSynced());
    assertTrue(cache.notServingReason().orElseThrow().contains("serverIP 10.9.9.9 is outside"));
    assertEquals(Optional.empty(), cache.leaseFor(A));
  }

  @Test
  void aPausedPoolIsKeptInSyncButNotServed() {
    cache.apply(
        Pools.pool("5", Map.of("192.0.2.10", A.toString()))
            .spec(
                new IPPoolSpec()
                    .networkName("default/net-48")
                    .paused(true)
                    .ipv4Config(Pools.config())));

    assertEquals("IPPool default/net-48 is paused", cache.notServingReason().orElseThrow());
    assertTrue(cache.leaseFor(A).isPresent(), "kept in sync for when it resumes");
  }

  @Test
  void aDeletedPoolStopsBeingServed() {
    cache.apply(Pools.pool("5", Map.of("192.0.2.10", A.toString())));
    cache.absent();

    assertEquals(Optional.empty(), cache.leaseFor(A));
    assertTrue(cache.notServingReason().isPresent());
  }
}
