package dev.elector.reliability.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.DhcpOptions;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.codec.MessageType;
import dev.elector.dhcp.server.DhcpEngine;
import dev.elector.dhcp.server.Outcome;
import dev.elector.dhcp.server.ReceiveContext;
import dev.elector.dhcp.server.StaticLeaseSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The checks the engine fuzz target relies on catch what they are meant to catch. */
class EngineInvariantsTest {
  private static final LeaseTable TABLE = LeaseTable.standard();
  private static final MacAddress FIRST = MacAddress.parse("02:00:00:00:00:01");
  private static final MacAddress SECOND = MacAddress.parse("02:00:00:00:00:02");
  private static final MacAddress STRANGER = MacAddress.parse("02:00:00:00:00:99");

  private static DhcpMessage discoverFrom(MacAddress mac) {
    return DhcpMessage.builder()
        .mac(mac)
        .xid(7)
        .options(DhcpOptions.builder().messageType(MessageType.DISCOVER).build())
        .build();
  }

  private static Outcome handle(StaticLeaseSource source, DhcpMessage request) {
    return new DhcpEngine(source).handle(request, ReceiveContext.broadcast());
  }

  @Test
  void aCorrectEngineAnsweringFromTheTablePasses() {
    DhcpMessage request = discoverFrom(FIRST);

    EngineInvariants.check(TABLE, request, handle(TABLE.source(), request));
  }

  @Test
  void anOfferOfAnotherClientsAddressIsCaught() {
    StaticLeaseSource swapped =
        StaticLeaseSource.of(
            TABLE.pool(),
            Map.of(
                FIRST, TABLE.ipOf(SECOND).orElseThrow(), SECOND, TABLE.ipOf(FIRST).orElseThrow()));
    DhcpMessage request = discoverFrom(FIRST);

    AssertionError error =
        assertThrows(
            AssertionError.class,
            () -> EngineInvariants.check(TABLE, request, handle(swapped, request)));
    assertTrue(error.getMessage().contains("not the client's own 192.0.2.10"), error.getMessage());
  }

  @Test
  void anAnswerToAClientTheTableDoesNotKnowIsCaught() {
    StaticLeaseSource withStranger =
        StaticLeaseSource.of(TABLE.pool(), Map.of(STRANGER, Ipv4Address.parse("192.0.2.99")));
    DhcpMessage request = discoverFrom(STRANGER);

    AssertionError error =
        assertThrows(
            AssertionError.class,
            () -> EngineInvariants.check(TABLE, request, handle(withStranger, request)));
    assertTrue(error.getMessage().contains("does not know"), error.getMessage());
  }

  @Test
  void theGuardRejectsALookupOfAnotherMacAndASecondCall() {
    GuardedLeaseSource guard = new GuardedLeaseSource(TABLE.source());
    guard.expectRequestFrom(Optional.of(FIRST));

    assertThrows(AssertionError.class, () -> guard.leaseFor(SECOND));
    guard.expectRequestFrom(Optional.of(FIRST));
    guard.leaseFor(FIRST);
    guard.options();
    assertEquals(List.of("leaseFor", "options"), guard.calls());
    assertThrows(AssertionError.class, () -> guard.leaseFor(FIRST));
    assertThrows(AssertionError.class, guard::options);
    guard.expectRequestFrom(Optional.empty());
    assertThrows(AssertionError.class, () -> guard.leaseFor(FIRST));
  }

  @Test
  void theSnapshotTellsTwoTablesApart() {
    StaticLeaseSource other =
        StaticLeaseSource.of(TABLE.pool(), Map.of(FIRST, Ipv4Address.parse("192.0.2.50")));

    assertEquals(TABLE.snapshot(TABLE.source()), TABLE.snapshot(TABLE.source()));
    assertNotEquals(TABLE.snapshot(TABLE.source()), TABLE.snapshot(other));
  }
}
