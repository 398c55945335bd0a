package dev.elector.dhcp.server;

import static dev.elector.dhcp.server.Fixtures.KNOWN;
import static dev.elector.dhcp.server.Fixtures.KNOWN_IP;
import static dev.elector.dhcp.server.Fixtures.LEASES;
import static dev.elector.dhcp.server.Fixtures.OTHER_IP;
import static dev.elector.dhcp.server.Fixtures.POOL;
import static dev.elector.dhcp.server.Fixtures.SERVER;
import static dev.elector.dhcp.server.Fixtures.STRANGER;
import static dev.elector.dhcp.server.Fixtures.ip;
import static dev.elector.dhcp.server.Fixtures.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.DhcpOptions;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.codec.MessageType;
import dev.elector.dhcp.codec.OptionCode;
import dev.elector.dhcp.server.Destination.Kind;
import dev.elector.dhcp.server.Outcome.IgnoreReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class DhcpEngineTest {
  private static final Destination BROADCAST =
      new Destination(Kind.BROADCAST, Ipv4Address.BROADCAST, 68);
  private static final Ipv4Address RELAY = ip("198.51.100.1");

  private final RecordingLeaseSource leases = new RecordingLeaseSource(LEASES);
  private final DhcpEngine engine = new DhcpEngine(leases);

  private Outcome handle(DhcpMessage.Builder request) {
    return engine.handle(request.build(), ReceiveContext.broadcast());
  }

  private static DhcpMessage replyOf(Outcome outcome) {
    return outcome.reply().orElseThrow(() -> new AssertionError("no reply: " + outcome)).message();
  }

  private static DhcpOptions.Builder options() {
    return DhcpOptions.builder();
  }

  @Nested
  class Discover {
    @Test
    void offersTheLeasedAddressWithEveryPoolOptionByBroadcast() {
      Outcome outcome = handle(request(KNOWN, MessageType.DISCOVER));

      assertEquals(Outcome.Kind.OFFERED, outcome.kind());
      assertEquals(Optional.of(KNOWN_IP), outcome.address());
      assertEquals(BROADCAST, outcome.reply().orElseThrow().destination());
      DhcpMessage offer = replyOf(outcome);
      assertEquals(DhcpMessage.BOOTREPLY, offer.op());
      assertEquals(0x0a0b0c0d, offer.xid());
      assertEquals(Optional.of(KNOWN), offer.mac());
      assertEquals(KNOWN_IP, offer.yiaddr());
      assertEquals(Ipv4Address.ANY, offer.ciaddr());
      assertEquals(Ipv4Address.ANY, offer.giaddr());
      DhcpOptions o = offer.options();
      assertEquals(Optional.of(MessageType.OFFER), o.messageType());
      assertEquals(Optional.of(SERVER), o.serverId());
      assertEquals(3600, o.leaseTime().orElseThrow());
      assertEquals(1800, o.renewalTime().orElseThrow());
      assertEquals(3150, o.rebindingTime().orElseThrow());
      assertEquals(Optional.of(ip("255.255.255.0")), o.subnetMask());
      assertEquals(List.of(ip("192.0.2.254")), o.routers());
      assertEquals(List.of(ip("192.0.2.53"), ip("192.0.2.54")), o.dns());
      assertEquals(Optional.of("example.test"), o.domainName());
      assertEquals(List.of("example.test", "lab.example.test"), o.domainSearch());
      assertEquals(List.of(ip("192.0.2.123")), o.ntp());
      assertEquals(List.of(53, 54, 51, 58, 59, 1, 3, 6, 15, 119, 42), o.codes());
    }

    @Test
    void encodesTheDomainSearchListCompressedPerRfc3397() {
      DhcpMessage offer = replyOf(handle(request(KNOWN, MessageType.DISCOVER)));

      assertEquals(
          "076578616d706c650474657374" + "00" + "036c6162c000",
          HexFormat.of().formatHex(offer.options().raw(OptionCode.DOMAIN_SEARCH).orElseThrow()));
    }

    @Test
    void keepsTheBroadcastFlagAndStillBroadcasts() {
      Outcome outcome = handle(request(KNOWN, MessageType.DISCOVER).broadcast(true));

      assertTrue(replyOf(outcome).broadcast());
      assertEquals(BROADCAST, outcome.reply().orElseThrow().destination());
    }

    @Test
    void saysNothingToAMacThePoolDoesNotKnow() {
      Outcome outcome = handle(request(STRANGER, MessageType.DISCOVER));

      assertEquals(Outcome.Kind.IGNORED, outcome.kind());
      assertEquals(Optional.of(IgnoreReason.UNKNOWN_CLIENT), outcome.ignoredBecause());
      assertEquals(Optional.empty(), outcome.reply());
    }

    @Test
    void computesT1AsHalfAndT2AsSevenEighthsOfTheLeaseRoundedDown() {
      PoolOptions pool = POOL.toBuilder().leaseTime(Duration.ofSeconds(1001)).build();
      DhcpEngine odd = new DhcpEngine(StaticLeaseSource.of(pool, Map.of(KNOWN, KNOWN_IP)));

      DhcpOptions o =
          replyOf(
                  odd.handle(
                      request(KNOWN, MessageType.DISCOVER).build(), ReceiveContext.broadcast()))
              .options();

      assertEquals(1001, o.leaseTime().orElseThrow());
      assertEquals(500, o.renewalTime().orElseThrow());
      assertEquals(875, o.rebindingTime().orElseThrow());
    }
  }

  @Nested
  class ParameterRequestList {
    @Test
    void sendsOnlyTheRequestedOptionalOptionsInTheClientsOrderButAlwaysTheMask() {
      DhcpOptions o =
          replyOf(
                  handle(
                      request(
                          KNOWN,
                          MessageType.DISCOVER,
                          options().parameterRequestList(List.of(6, 3, 12, 28)))))
              .options();

      assertEquals(List.of(53, 54, 51, 58, 59, 1, 6, 3), o.codes());
    }

    @Test
    void omitsOptionsThePoolDoesNotConfigureEvenWhenRequested() {
      PoolOptions bare =
          PoolOptions.builder().serverIp(SERVER).cidr(Ipv4Cidr.parse("192.0.2.0/24")).build();
      DhcpEngine plain = new DhcpEngine(StaticLeaseSource.of(bare, Map.of(KNOWN, KNOWN_IP)));

      DhcpOptions o =
          replyOf(
                  plain.handle(
                      request(
                              KNOWN,
                              MessageType.DISCOVER,
                              options().parameterRequestList(List.of(1, 3, 6, 15, 42, 119)))
                          .build(),
                      ReceiveContext.broadcast()))
              .options();

      assertEquals(List.of(53, 54, 51, 58, 59, 1), o.codes());
      assertEquals(PoolOptions.DEFAULT_LEASE_TIME.toSeconds(), o.leaseTime().orElseThrow());
    }

    @Test
    void dropsOptionalOptionsThatWouldExceedTheClientsMaximumMessageSize() {
      List<String> search = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        search.add(("s" + i).repeat(20) + ".example" + i + ".test");
      }
      PoolOptions big = POOL.toBuilder().domainSearch(search).build();
      DhcpEngine bigEngine = new DhcpEngine(StaticLeaseSource.of(big, Map.of(KNOWN, KNOWN_IP)));

      DhcpMessage small =
          replyOf(
              bigEngine.handle(
                  request(KNOWN, MessageType.DISCOVER, options().maxMessageSize(576)).build(),
                  ReceiveContext.broadcast()));
      DhcpMessage large =
          replyOf(
              bigEngine.handle(
                  request(KNOWN, MessageType.DISCOVER, options().maxMessageSize(1500)).build(),
                  ReceiveContext.broadcast()));

      assertTrue(small.encode().length <= 576 - 28, "reply of " + small.encode().length + " bytes");
      assertFalse(small.options().contains(OptionCode.DOMAIN_SEARCH));
      assertTrue(
          small.options().contains(OptionCode.NTP), "options after the dropped one still fit");
      assertEquals(search, large.options().domainSearch());
      assertTrue(large.encode().length > 576 - 28);
    }

    @Test
    void treatsAnnouncedSizesBelowTheRfcMinimumAs576() {
      DhcpMessage reply =
          replyOf(handle(request(KNOWN, MessageType.DISCOVER, options().maxMessageSize(100))));

      assertTrue(reply.options().contains(OptionCode.DNS));
    }
  }

  @Nested
  class Selecting {
    private DhcpMessage.Builder selecting(Ipv4Address serverId, Ipv4Address requested) {
      return request(
          KNOWN, MessageType.REQUEST, options().serverId(serverId).requestedIp(requested));
    }

    @Test
    void acknowledgesTheOfferedAddress() {
      Outcome outcome = handle(selecting(SERVER, KNOWN_IP));

      assertEquals(Outcome.Kind.ACKED, outcome.kind());
      assertEquals(Optional.of(RequestState.SELECTING), outcome.state());
      assertEquals(BROADCAST, outcome.reply().orElseThrow().destination());
      DhcpMessage ack = replyOf(outcome);
      assertEquals(Optional.of(MessageType.ACK), ack.options().messageType());
      assertEquals(KNOWN_IP, ack.yiaddr());
      assertEquals(3600, ack.options().leaseTime().orElseThrow());
    }

    @Test
    void refusesAnotherAddressWithABroadcastNakCarryingNoConfiguration() {
      Outcome outcome = handle(selecting(SERVER, OTHER_IP));

      assertEquals(Outcome.Kind.NAKED, outcome.kind());
      assertEquals(Optional.of(OTHER_IP), outcome.address());
      assertEquals(BROADCAST, outcome.reply().orElseThrow().destination());
      DhcpMessage nak = replyOf(outcome);
      assertEquals(List.of(53, 54, 56), nak.options().codes());
      assertEquals(Optional.of(MessageType.NAK), nak.options().messageType());
      assertEquals(Ipv4Address.ANY, nak.yiaddr());
      assertEquals(Ipv4Address.ANY, nak.ciaddr());
    }

    @Test
    void ignoresARequestThatChoseAnotherServer() {
      Outcome outcome = handle(selecting(ip("192.0.2.2"), KNOWN_IP));

      assertEquals(Optional.of(IgnoreReason.OTHER_SERVER), outcome.ignoredBecause());
      assertEquals(Optional.empty(), outcome.reply());
    }

    @Test
    void ignoresASelectingRequestWithoutARequestedAddress() {
      Outcome outcome = handle(request(KNOWN, MessageType.REQUEST, options().serverId(SERVER)));

      assertEquals(Optional.of(IgnoreReason.INCOMPLETE_REQUEST), outcome.ignoredBecause());
    }

    @Test
    void ignoresAnUnknownMacEvenWhenItNamesUs() {
      Outcome outcome =
          handle(
              request(
                  STRANGER, MessageType.REQUEST, options().serverId(SERVER).requestedIp(KNOWN_IP)));

      assertEquals(Optional.of(IgnoreReason.UNKNOWN_CLIENT), outcome.ignoredBecause());
    }
  }

  @Nested
  class InitReboot {
    @Test
    void acknowledgesTheRememberedAddressWhenItIsTheLease() {
      Outcome outcome =
          handle(request(KNOWN, MessageType.REQUEST, options().requestedIp(KNOWN_IP)));

      assertEquals(Outcome.Kind.ACKED, outcome.kind());
      assertEquals(Optional.of(RequestState.INIT_REBOOT), outcome.state());
      assertEquals(BROADCAST, outcome.reply().orElseThrow().destination());
    }

    @Test
    void naksAWrongRememberedAddress() {
      Outcome outcome =
          handle(request(KNOWN, MessageType.REQUEST, options().requestedIp(ip("192.0.2.99"))));

      assertEquals(Outcome.Kind.NAKED, outcome.kind());
      assertEquals(Optional.of(RequestState.INIT_REBOOT), outcome.state());
      assertEquals(BROADCAST, outcome.reply().orElseThrow().destination());
    }

    @Test
    void sendsNoNakLargerThanTheClientAcceptsDroppingItsMessageFirst() {
      // Found by the reliability fuzzer: a NAK echoes the client identifier whatever its size.
      DhcpOptions.Builder longId = options().requestedIp(ip("192.0.2.99")).clientId(clientId(260));
      DhcpOptions.Builder longerId =
          options().requestedIp(ip("192.0.2.99")).clientId(clientId(340));

      Outcome shortened = handle(request(KNOWN, MessageType.REQUEST, longId));
      Outcome tooLarge = handle(request(KNOWN, MessageType.REQUEST, longerId));
      Outcome fits = handle(request(KNOWN, MessageType.REQUEST, longId.maxMessageSize(1500)));

      assertEquals(Outcome.Kind.NAKED, shortened.kind());
      assertFalse(replyOf(shortened).options().contains(OptionCode.MESSAGE), "message dropped");
      assertTrue(replyOf(shortened).encodedLength() <= 576 - 28);
      assertEquals(Optional.of(IgnoreReason.REPLY_TOO_LARGE), tooLarge.ignoredBecause());
      assertEquals(Optional.empty(), tooLarge.reply());
      assertEquals(Outcome.Kind.NAKED, fits.kind());
      assertTrue(replyOf(fits).options().contains(OptionCode.MESSAGE), "kept when it fits");
      assertTrue(replyOf(fits).encodedLength() > 576 - 28);
    }

    private byte[] clientId(int length) {
      byte[] id = new byte[length];
      id[0] = 1;
      return id;
    }

    @Test
    void staysSilentForAnUnknownMac() {
      Outcome outcome =
          handle(request(STRANGER, MessageType.REQUEST, options().requestedIp(KNOWN_IP)));

      assertEquals(Optional.of(IgnoreReason.UNKNOWN_CLIENT), outcome.ignoredBecause());
      assertEquals(Optional.empty(), outcome.reply());
    }

    @Test
    void ignoresARequestWithNeitherRequestedAddressNorCiaddr() {
      assertEquals(
          Optional.of(IgnoreReason.INCOMPLETE_REQUEST),
          handle(request(KNOWN, MessageType.REQUEST)).ignoredBecause());
    }
  }

  @Nested
  class RenewingAndRebinding {
    @Test
    void renewingGetsAnAckUnicastToCiaddr() {
      Outcome outcome =
          engine.handle(
              request(KNOWN, MessageType.REQUEST).ciaddr(KNOWN_IP).build(),
              ReceiveContext.unicast());

      assertEquals(Outcome.Kind.ACKED, outcome.kind());
      assertEquals(Optional.of(RequestState.RENEWING), outcome.state());
      assertEquals(
          new Destination(Kind.CLIENT, KNOWN_IP, 68), outcome.reply().orElseThrow().destination());
      DhcpMessage ack = replyOf(outcome);
      assertEquals(KNOWN_IP, ack.ciaddr());
      assertEquals(KNOWN_IP, ack.yiaddr());
    }

    @Test
    void rebindingGetsTheSameAckAlsoUnicastToCiaddr() {
      Outcome outcome =
          engine.handle(
              request(KNOWN, MessageType.REQUEST).ciaddr(KNOWN_IP).broadcast(true).build(),
              ReceiveContext.broadcast());

      assertEquals(Outcome.Kind.ACKED, outcome.kind());
      assertEquals(Optional.of(RequestState.REBINDING), outcome.state());
      assertEquals(
          new Destination(Kind.CLIENT, KNOWN_IP, 68), outcome.reply().orElseThrow().destination());
    }

    @Test
    void renewingAnAddressThatIsNotTheLeaseIsNakedByBroadcast() {
      Outcome outcome =
          engine.handle(
              request(KNOWN, MessageType.REQUEST).ciaddr(OTHER_IP).build(),
              ReceiveContext.unicast());

      assertEquals(Outcome.Kind.NAKED, outcome.kind());
      assertEquals(Optional.of(RequestState.RENEWING), outcome.state());
      assertEquals(BROADCAST, outcome.reply().orElseThrow().destination());
    }
  }

  @Nested
  class Relayed {
    private final byte[] option82 = HexFormat.of().parseHex("0106000400010203" + "0204deadbeef");

    @Test
    void answersTheRelayOnPort67AndEchoesOption82LastAndUnchanged() {
      Outcome outcome =
          handle(
              request(
                      KNOWN,
                      MessageType.DISCOVER,
                      options()
                          .relayAgentInformation(option82)
                          .clientId(HexFormat.of().parseHex("0152540000000a")))
                  .giaddr(RELAY)
                  .hops(1));

      assertEquals(
          new Destination(Kind.RELAY, RELAY, 67), outcome.reply().orElseThrow().destination());
      DhcpMessage offer = replyOf(outcome);
      assertEquals(RELAY, offer.giaddr());
      assertEquals(0, offer.hops());
      List<Integer> codes = offer.options().codes();
      assertEquals(OptionCode.RELAY_AGENT_INFORMATION, codes.get(codes.size() - 1));
      assertArrayEquals(option82, offer.options().relayAgentInformation().orElseThrow());
      assertArrayEquals(
          HexFormat.of().parseHex("0152540000000a"), offer.options().clientId().orElseThrow());
    }

    @Test
    void sendsANakToTheRelayWithTheBroadcastBitSet() {
      Outcome outcome =
          handle(
              request(
                      KNOWN,
                      MessageType.REQUEST,
                      options().requestedIp(OTHER_IP).relayAgentInformation(option82))
                  .giaddr(RELAY));

      assertEquals(Outcome.Kind.NAKED, outcome.kind());
      assertEquals(
          new Destination(Kind.RELAY, RELAY, 67), outcome.reply().orElseThrow().destination());
      assertTrue(replyOf(outcome).broadcast());
      assertArrayEquals(option82, replyOf(outcome).options().relayAgentInformation().orElseThrow());
    }

    @Test
    void prefersTheRelayOverCiaddr() {
      Outcome outcome = handle(request(KNOWN, MessageType.REQUEST).ciaddr(KNOWN_IP).giaddr(RELAY));

      assertEquals(Kind.RELAY, outcome.reply().orElseThrow().destination().kind());
    }
  }

  @Nested
  class Inform {
    @Test
    void acknowledgesWithConfigurationButNoLeaseAndNoYiaddr() {
      Outcome outcome = handle(request(KNOWN, MessageType.INFORM).ciaddr(KNOWN_IP));

      assertEquals(Outcome.Kind.INFORMED, outcome.kind());
      assertEquals(
          new Destination(Kind.CLIENT, KNOWN_IP, 68), outcome.reply().orElseThrow().destination());
      DhcpMessage ack = replyOf(outcome);
      assertEquals(Optional.of(MessageType.ACK), ack.options().messageType());
      assertEquals(Ipv4Address.ANY, ack.yiaddr());
      assertEquals(KNOWN_IP, ack.ciaddr());
      assertFalse(ack.options().contains(OptionCode.LEASE_TIME));
      assertFalse(ack.options().contains(OptionCode.RENEWAL_TIME));
      assertFalse(ack.options().contains(OptionCode.REBINDING_TIME));
      assertEquals(List.of(53, 54, 1, 3, 6, 15, 119, 42), ack.options().codes());
    }

    @Test
    void ignoresAnUnknownMac() {
      assertEquals(
          Optional.of(IgnoreReason.UNKNOWN_CLIENT),
          handle(request(STRANGER, MessageType.INFORM).ciaddr(KNOWN_IP)).ignoredBecause());
    }
  }

  @Nested
  class ReleaseAndDecline {
    @Test
    void releaseIsReportedWithoutReplyAndTheLeaseOnlyRead() {
      Outcome outcome =
          handle(request(KNOWN, MessageType.RELEASE, options().serverId(SERVER)).ciaddr(KNOWN_IP));

      assertEquals(Outcome.Kind.RELEASED, outcome.kind());
      assertEquals(Optional.of(KNOWN_IP), outcome.address());
      assertEquals(Optional.empty(), outcome.reply());
      assertEquals(List.of("options", "leaseFor " + KNOWN), leases.calls());
    }

    @Test
    void declineIsReportedWithoutReplyAndTheNextDiscoverStillGetsTheSameAddress() {
      Outcome declined =
          handle(
              request(
                  KNOWN, MessageType.DECLINE, options().serverId(SERVER).requestedIp(KNOWN_IP)));

      assertEquals(Outcome.Kind.DECLINED, declined.kind());
      assertEquals(Optional.of(KNOWN_IP), declined.address());
      assertEquals(Optional.empty(), declined.reply());
      assertEquals(KNOWN_IP, replyOf(handle(request(KNOWN, MessageType.DISCOVER))).yiaddr());
      assertEquals(Optional.of(new Lease(KNOWN, KNOWN_IP)), LEASES.leaseFor(KNOWN));
    }

    @Test
    void releaseNamingAnotherServerIsIgnored() {
      assertEquals(
          Optional.of(IgnoreReason.OTHER_SERVER),
          handle(request(KNOWN, MessageType.RELEASE, options().serverId(ip("192.0.2.2"))))
              .ignoredBecause());
    }
  }

  @Nested
  class NotForUs {
    @Test
    void ignoresServerMessages() {
      assertEquals(
          Optional.of(IgnoreReason.NOT_A_REQUEST),
          handle(request(KNOWN, MessageType.DISCOVER).op(DhcpMessage.BOOTREPLY)).ignoredBecause());
      assertEquals(
          Optional.of(IgnoreReason.UNSUPPORTED_TYPE),
          handle(request(KNOWN, MessageType.OFFER)).ignoredBecause());
    }

    @Test
    void ignoresPlainBootpAndNonEthernetClients() {
      assertEquals(
          Optional.of(IgnoreReason.NOT_DHCP),
          handle(DhcpMessage.builder().mac(KNOWN)).ignoredBecause());
      assertEquals(
          Optional.of(IgnoreReason.NOT_ETHERNET),
          handle(request(KNOWN, MessageType.DISCOVER).htype(6)).ignoredBecause());
      assertEquals(
          Optional.of(IgnoreReason.NOT_ETHERNET),
          handle(request(KNOWN, MessageType.DISCOVER).hlen(8)).ignoredBecause());
      assertEquals(List.of(), leases.calls());
    }

    @Test
    void neverEchoesUnvalidatedClientOptions() {
      DhcpMessage offer =
          replyOf(
              handle(
                  request(
                      KNOWN,
                      MessageType.DISCOVER,
                      options()
                          .hostName("evil")
                          .raw(224, new byte[] {1, 2, 3})
                          .raw(60, new byte[] {'x'}))));

      assertFalse(offer.options().contains(OptionCode.HOST_NAME));
      assertFalse(offer.options().contains(224));
      assertFalse(offer.options().contains(60));
    }
  }

  @Test
  void answersCorrectlyFromManyThreadsAtOnce() throws Exception {
    Map<MacAddress, Ipv4Address> table = new java.util.HashMap<>();
    for (int i = 0; i < 100; i++) {
      table.put(
          new MacAddress(0x525400000000L + i), new Ipv4Address(ip("192.0.2.100").value() + i));
    }
    DhcpEngine shared = new DhcpEngine(StaticLeaseSource.of(POOL, table));
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int seed = t;
        results.add(
            pool.submit(
                (Callable<Integer>)
                    () -> {
                      int checked = 0;
                      for (int i = 0; i < 2_000; i++) {
                        MacAddress mac = new MacAddress(0x525400000000L + (i * 7 + seed) % 100);
                        DhcpMessage reply =
                            replyOf(
                                shared.handle(
                                    request(mac, MessageType.DISCOVER).build(),
                                    ReceiveContext.broadcast()));
                        assertEquals(table.get(mac), reply.yiaddr());
                        checked++;
                      }
                      return checked;
                    }));
      }
      for (Future<Integer> result : results) {
        assertEquals(2_000, result.get());
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
