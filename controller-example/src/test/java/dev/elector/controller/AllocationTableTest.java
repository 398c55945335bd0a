package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.controller.AllocationTable.Allocation;
import dev.elector.controller.AllocationTable.Kind;
import dev.elector.ippool.IPv4Status;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AllocationTableTest {
  private static final String A = "52:54:00:00:00:0a";
  private static final String B = "52:54:00:00:00:0b";

  /** 192.168.0.0/24, server .2, router .1, range .10-.20 (11 addresses), .15 excluded. */
  private static PoolLayout layout() {
    return PoolValidation.validate(PoolValidationTest.good()).layout();
  }

  private static AllocationTable empty() {
    return AllocationTable.of(layout(), Map.of());
  }

  @Test
  void anEmptyTableHoldsTheMarkersAndCountsTheRange() {
    IPv4Status status = empty().toStatus();
    assertEquals(
        Map.of("192.168.0.1", "RESERVED", "192.168.0.2", "RESERVED", "192.168.0.15", "EXCLUDED"),
        status.getAllocated());
    assertEquals(0, status.getUsed());
    assertEquals(10, status.getAvailable()); // 11 in range, minus the exclusion
  }

  @Test
  void aConflictTakesTheAddressFromItsMacAndStaysUntilCleared() {
    AllocationTable table = empty().allocate(A, null).table(); // A gets .10
    AllocationTable marked = table.withConflict(Ipv4.parse("192.168.0.10").orElseThrow());
    assertEquals(IPv4Status.CONFLICT, marked.toStatus().getAllocated().get("192.168.0.10"));
    assertEquals(List.of("192.168.0.10"), marked.conflicts());
    Allocation again = marked.allocate(A, null);
    assertEquals("192.168.0.11", again.address(), "A gets the next free address");
    assertEquals(List.of(0, 9), List.of(marked.used(), marked.available()));

    AllocationTable read = AllocationTable.of(layout(), again.table().toStatus().getAllocated());
    assertEquals(
        IPv4Status.CONFLICT,
        read.toStatus().getAllocated().get("192.168.0.10"),
        "the marker survives being read back");
    assertTrue(read.allocate(B, "192.168.0.10").message().contains("is in conflict"));
    assertEquals("192.168.0.12", read.allocate(B, null).address());

    AllocationTable cleared = read.withoutConflict(Ipv4.parse("192.168.0.10").orElseThrow());
    assertEquals("192.168.0.10", cleared.allocate(B, null).address());
    assertTrue(
        empty().withConflict(Ipv4.parse("192.168.0.2").orElseThrow()).conflicts().isEmpty(),
        "a reserved address is left as it is");
  }

  @Test
  void aReservedAddressInsideTheRangeIsNotAvailable() {
    PoolLayout inRange =
        PoolValidation.validate(
                PoolValidationTest.spec(
                    "10.0.0.0/24", "10.0.0.10", "10.0.0.11", "10.0.0.10", "10.0.0.19"))
            .layout();
    IPv4Status status = AllocationTable.of(inRange, Map.of()).toStatus();
    assertEquals(8, status.getAvailable());
    assertEquals(0, status.getUsed());
  }

  @Test
  void allocationTakesTheLowestFreeAddressSkippingMarkers() {
    AllocationTable table = empty();
    Set<String> given = new HashSet<>();
    for (int i = 0; i < 10; i++) {
      Allocation a = table.allocate(String.format("52:54:00:00:01:%02x", i), null);
      assertEquals(Kind.ALLOCATED, a.kind());
      assertTrue(given.add(a.address()));
      table = a.table();
    }
    assertTrue(!given.contains("192.168.0.15"));
    assertEquals(10, table.used());
    assertEquals(0, table.available());
  }

  @Test
  void aMacThatHasAnAddressKeepsIt() {
    Allocation first = empty().allocate(A, null);
    Allocation again = first.table().allocate(A, null);
    assertEquals(Kind.KEPT, again.kind());
    assertEquals(first.address(), again.address());
    assertEquals(1, again.table().used());
  }

  @Test
  void aFullPoolFailsWithAMessageThatSaysSo() {
    AllocationTable table = empty();
    for (int i = 0; i < 10; i++) {
      table = table.allocate(String.format("52:54:00:00:01:%02x", i), null).table();
    }
    Allocation full = table.allocate(A, null);
    assertEquals(Kind.FAILED, full.kind());
    assertNull(full.address());
    assertTrue(
        full.message()
            .startsWith("the pool is full: all 11 addresses of" + " 192.168.0.10-192.168.0.20"),
        full.message());
  }

  @Test
  void aFreeRequestedAddressIsHonoured() {
    Allocation a = empty().allocate(A, "192.168.0.18");
    assertEquals(Kind.ALLOCATED, a.kind());
    assertEquals("192.168.0.18", a.address());
  }

  @Test
  void aRequestedAddressThatIsTakenReservedExcludedOrOutsideFails() {
    AllocationTable table = empty().allocate(A, "192.168.0.18").table();
    assertTrue(table.allocate(B, "192.168.0.18").message().contains("is allocated to MAC " + A));
    assertTrue(table.allocate(B, "192.168.0.15").message().contains("is excluded"));
    assertTrue(table.allocate(B, "192.168.0.2").message().contains("outside the pool range"));
    assertTrue(table.allocate(B, "192.168.0.99").message().contains("outside the pool range"));
    assertEquals(Kind.FAILED, table.allocate(B, "192.168.0.18").kind());
  }

  @Test
  void aMacThatRequestsAnotherFreeAddressMovesAndATakenOneKeepsTheOld() {
    AllocationTable table = empty().allocate(A, null).table().allocate(B, "192.168.0.20").table();
    Allocation moved = table.allocate(A, "192.168.0.19");
    assertEquals("192.168.0.19", moved.address());
    assertEquals(2, moved.table().used());
    Allocation refused = table.allocate(A, "192.168.0.20");
    assertEquals(Kind.FAILED, refused.kind());
    assertEquals("192.168.0.10", refused.address());
  }

  @Test
  void releaseFreesTheAddressesOfTheGivenMacs() {
    AllocationTable table = empty().allocate(A, null).table().allocate(B, null).table();
    AllocationTable released = table.release(List.of(A));
    assertEquals(1, released.used());
    assertEquals(9, released.available());
    assertTrue(released.addressOf(A).isEmpty());
  }

  @Test
  void readingATableAppliesTheLayout() {
    Map<String, String> stored = new LinkedHashMap<>();
    stored.put("192.168.0.10", "52:54:00:00:00:0A"); // upper case: normalised
    stored.put("192.168.0.15", B); // now excluded: B is evicted
    stored.put("192.168.0.99", "52:54:00:00:00:0c"); // outside the range: evicted
    stored.put("192.168.0.3", "EXCLUDED"); // stale marker: dropped
    stored.put("192.168.0.11", "52:54:00:00:00:0a"); // A twice: keeps the lowest
    AllocationTable table = AllocationTable.of(layout(), stored);
    assertEquals(
        Map.of(
            "192.168.0.1",
            "RESERVED",
            "192.168.0.2",
            "RESERVED",
            "192.168.0.10",
            A,
            "192.168.0.15",
            "EXCLUDED"),
        table.toStatus().getAllocated());
    assertEquals(List.of(B, "52:54:00:00:00:0c"), table.evicted());
    assertEquals(1, table.used());
    assertEquals(9, table.available());
  }

  @Test
  void usedPlusAvailablePlusMarkersInRangeIsTheRangeSize() {
    AllocationTable table = empty();
    for (int i = 0; i < 7; i++) {
      table = table.allocate(String.format("52:54:00:00:02:%02x", i), null).table();
      assertEquals(11, table.used() + table.available() + 1);
    }
  }

  /** A stored pool whose range is the whole /29: network .0 and broadcast .7 inside it. */
  private static PoolLayout wholeSubnet() {
    PoolValidation v =
        PoolValidation.validate(
            PoolValidationTest.spec(
                "192.168.50.0/29", "192.168.50.1", null, "192.168.50.0", "192.168.50.7"));
    return v.layout();
  }

  @Test
  void theNetworkAndBroadcastAddressesAreNeverAllocatedEvenWhenTheRangeIncludesThem() {
    AllocationTable table = AllocationTable.of(wholeSubnet(), Map.of());
    assertEquals(5, table.available()); // .2-.6: not .0, .1 (server) or .7
    List<String> given = new java.util.ArrayList<>();
    for (int i = 0; i < 6; i++) {
      AllocationTable.Allocation a = table.allocate(String.format("52:54:00:00:01:%02x", i), null);
      table = a.table();
      given.add(a.address());
    }
    assertEquals(
        java.util.Arrays.asList(
            "192.168.50.2", "192.168.50.3", "192.168.50.4", "192.168.50.5", "192.168.50.6", null),
        given);
    assertEquals(0, table.available());
    assertTrue(table.allocate(A, null).message().contains("all 6 addresses"));
  }

  @Test
  void aRequestForTheNetworkAddressFailsAndAStoredAllocationOfItIsEvicted() {
    AllocationTable table =
        AllocationTable.of(wholeSubnet(), Map.of("192.168.50.0", A, "192.168.50.7", B));
    assertEquals(List.of(A, B), table.evicted().stream().sorted().toList());
    assertTrue(table.addressOf(A).isEmpty());
    AllocationTable.Allocation a = table.allocate(A, "192.168.50.0");
    assertEquals(AllocationTable.Kind.FAILED, a.kind());
    assertTrue(
        a.message().contains("192.168.50.0 is the network or broadcast address"), a.message());
  }
}
