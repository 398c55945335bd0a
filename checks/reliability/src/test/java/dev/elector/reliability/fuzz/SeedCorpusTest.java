package dev.elector.reliability.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.server.DhcpEngine;
import dev.elector.dhcp.server.Outcome;
import dev.elector.dhcp.server.ReceiveContext;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every seed is a valid packet and reaches the engine path it was made for, so the fuzzers start
 * from every kind of request rather than from bytes that no longer decode.
 */
class SeedCorpusTest {
  private static final String SEEDS =
      "DhcpEngineFuzzTestInputs/answersOnlyKnownMacsWithTheirOwnAddress/";

  @ParameterizedTest
  @CsvSource({
    "udhcpc-1.35-discover, OFFERED",
    "udhcpc-1.35-request, ACKED",
    "derived-inform, INFORMED",
    "derived-release, RELEASED",
    "derived-decline, DECLINED",
    "derived-renewing, ACKED",
    "derived-relayed-discover, OFFERED",
    "derived-overload-file, OFFERED",
    "finding-nak-larger-than-client-limit, NAKED"
  }) // sent without its optional message
  void eachSeedDecodesAndReachesItsPath(String seed, Outcome.Kind expected) throws Exception {
    DhcpMessage request = DhcpMessage.decode(read(SEEDS + seed));
    LeaseTable table = LeaseTable.standard();

    Outcome outcome = new DhcpEngine(table.source()).handle(request, ReceiveContext.unicast());

    assertEquals(expected, outcome.kind(), outcome.toString());
    EngineInvariants.check(table, request, outcome);
  }

  private static byte[] read(String resource) throws IOException {
    try (InputStream in = SeedCorpusTest.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("no seed " + resource + " next to " + SeedCorpusTest.class.getName());
      }
      return in.readAllBytes();
    }
  }
}
