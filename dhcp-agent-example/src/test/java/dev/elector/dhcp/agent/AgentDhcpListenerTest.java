package dev.elector.dhcp.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.DhcpOptions;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.codec.MessageType;
import dev.elector.dhcp.server.DhcpEngine;
import dev.elector.dhcp.server.Ipv4Cidr;
import dev.elector.dhcp.server.Outcome;
import dev.elector.dhcp.server.PoolOptions;
import dev.elector.dhcp.server.ReceiveContext;
import dev.elector.dhcp.server.StaticLeaseSource;
import dev.elector.examples.ProcessEvent;
import dev.elector.testkit.VirtualTime;
import dev.elector.time.MonotonicClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reporting in virtual time: each unknown MAC once a minute, in bounded memory. */
class AgentDhcpListenerTest {
  private static final MacAddress KNOWN = MacAddress.parse("52:54:00:00:00:0a");
  private static final InetSocketAddress FROM = new InetSocketAddress("127.0.0.1", 68);

  private final VirtualTime time = VirtualTime.create();
  private final MonotonicClock clock = time.clock();
  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AgentDhcpListener listener =
      new AgentDhcpListener(
          new AgentEvents(
              new PrintStream(printed, true, StandardCharsets.UTF_8),
              Clock.systemUTC(),
              clock,
              true),
          clock,
          registry,
          "tenant-a/net-48");
  private final DhcpEngine engine =
      new DhcpEngine(
          StaticLeaseSource.of(
              PoolOptions.builder()
                  .serverIp(Ipv4Address.parse("192.0.2.1"))
                  .cidr(Ipv4Cidr.parse("192.0.2.0/24"))
                  .build(),
              Map.of(KNOWN, Ipv4Address.parse("192.0.2.10"))));

  private Outcome discoverFrom(MacAddress mac) {
    DhcpMessage discover =
        DhcpMessage.builder()
            .mac(mac)
            .xid(1)
            .options(DhcpOptions.builder().messageType(MessageType.DISCOVER).build())
            .build();
    Outcome outcome = engine.handle(discover, ReceiveContext.broadcast());
    listener.handled(FROM, discover, outcome);
    return outcome;
  }

  private long lines(String kind) {
    return Arrays.stream(printed.toString(StandardCharsets.UTF_8).split("\n"))
        .flatMap(l -> ProcessEvent.parse(l).stream())
        .filter(e -> e.kind().equals(kind))
        .count();
  }

  @Test
  void reportsAnUnknownMacOnceAMinute() {
    MacAddress stranger = MacAddress.parse("02:00:00:00:00:99");
    discoverFrom(stranger);
    time.advance(Duration.ofSeconds(59));
    discoverFrom(stranger);
    assertEquals(1, lines("unknown-client"));

    time.advance(Duration.ofSeconds(1));
    discoverFrom(stranger);

    assertEquals(2, lines("unknown-client"));
  }

  @Test
  void aFloodOfMadeUpMacsStaysWithinTheTrackingBound() {
    for (long i = 0; i < 20_000; i++) {
      discoverFrom(new MacAddress(0x020000000000L + i));
    }

    assertTrue(
        listener.tracked() <= AgentDhcpListener.MAX_TRACKED, "tracked " + listener.tracked());
  }

  @Test
  void printsOneReplyEventPerReplySentAndNothingForAKnownClientHandled() {
    Outcome offer = discoverFrom(KNOWN);
    assertEquals(0, lines("unknown-client"));

    listener.sent(offer);

    String text = printed.toString(StandardCharsets.UTF_8);
    assertTrue(
        text.matches(
            "\\{\"event\":\"reply\",\"time\":\\d+,\"mono\":\\d+,\"kind\":\"OFFERED\","
                + "\"mac\":\"52:54:00:00:00:0a\",\"ip\":\"192.0.2.10\",\"state\":\"-\"}\n"),
        text);
  }

  @Test
  void countsRepliesByKindDeclinesAndUnknownClientsPerPool() {
    Outcome offer = discoverFrom(KNOWN);
    listener.sent(offer);
    listener.sent(offer);
    discoverFrom(MacAddress.parse("02:00:00:00:00:98"));
    discoverFrom(MacAddress.parse("02:00:00:00:00:98")); // counted, though reported only once
    DhcpMessage decline =
        DhcpMessage.builder()
            .mac(KNOWN)
            .xid(2)
            .options(
                DhcpOptions.builder()
                    .messageType(MessageType.DECLINE)
                    .requestedIp(Ipv4Address.parse("192.0.2.10"))
                    .serverId(Ipv4Address.parse("192.0.2.1"))
                    .build())
            .build();
    Outcome declined = engine.handle(decline, ReceiveContext.broadcast());
    listener.handled(FROM, decline, declined);

    assertEquals(Outcome.Kind.DECLINED, declined.kind());
    assertEquals(
        2.0,
        registry
            .get("dhcp.agent.replies")
            .tags("pool", "tenant-a/net-48", "kind", "offered")
            .counter()
            .count());
    assertEquals(0.0, registry.get("dhcp.agent.replies").tags("kind", "acked").counter().count());
    assertEquals(2.0, registry.get("dhcp.agent.unknown.clients").counter().count());
    assertEquals(
        1.0, registry.get("dhcp.agent.declines").tags("pool", "tenant-a/net-48").counter().count());
  }
}
