package dev.elector.reliability.fuzz;

import com.code_intelligence.jazzer.junit.DictionaryFile;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.MalformedPacketException;
import dev.elector.dhcp.server.DhcpEngine;
import dev.elector.dhcp.server.Outcome;
import dev.elector.dhcp.server.ReceiveContext;
import dev.elector.dhcp.server.StaticLeaseSource;
import java.util.List;
import org.junit.jupiter.api.AfterAll;

/**
 * Whatever a client sends, the engine throws nothing, only reads the lease source (and only the
 * requester's lease), never changes a lease, never answers a MAC it does not know, and gives a MAC
 * no address but its own; see {@link EngineInvariants}. Each decoded packet is handled as if it
 * arrived by unicast and by broadcast.
 */
class DhcpEngineFuzzTest {
  private static final FuzzStats STATS =
      new FuzzStats(DhcpEngineFuzzTest.class, "answersOnlyKnownMacsWithTheirOwnAddress");
  private static final LeaseTable TABLE = LeaseTable.standard();
  private static final StaticLeaseSource SOURCE = TABLE.source();
  private static final List<String> BEFORE = TABLE.snapshot(SOURCE);
  private static final GuardedLeaseSource GUARD = new GuardedLeaseSource(SOURCE);
  private static final DhcpEngine ENGINE = new DhcpEngine(GUARD);
  private static final List<ReceiveContext> CONTEXTS =
      List.of(ReceiveContext.unicast(), ReceiveContext.broadcast());

  @DictionaryFile(resourcePath = "dhcp.dict")
  @FuzzTest(maxDuration = "40s")
  void answersOnlyKnownMacsWithTheirOwnAddress(byte[] packet) {
    STATS.execution();
    DhcpMessage request;
    try {
      request = DhcpMessage.decode(packet);
    } catch (MalformedPacketException expected) {
      return;
    }
    STATS.decoded();
    for (ReceiveContext context : CONTEXTS) {
      GUARD.expectRequestFrom(request.mac());
      Outcome outcome = ENGINE.handle(request, context);
      EngineInvariants.check(TABLE, request, outcome);
      STATS.event(outcome.kind().name());
    }
    List<String> after = TABLE.snapshot(SOURCE);
    if (!after.equals(BEFORE)) {
      throw new AssertionError(
          "the leases changed from " + BEFORE + " to " + after + "; request: " + request);
    }
  }

  @AfterAll
  static void summary() {
    System.out.println(STATS.summary());
  }
}
