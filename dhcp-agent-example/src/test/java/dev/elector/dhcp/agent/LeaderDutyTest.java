package dev.elector.dhcp.agent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.server.DhcpEngine;
import dev.elector.dhcp.server.DhcpServer;
import dev.elector.ippool.IPPoolRef;
import dev.elector.lock.InMemoryLockStore;
import dev.elector.testkit.VirtualTime;
import dev.elector.time.MonotonicClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The leader's duty: the address and the server follow the term and the pool, in order. */
class LeaderDutyTest {
  private final List<String> transcript = new CopyOnWriteArrayList<>();
  private final AtomicBoolean addFails = new AtomicBoolean();
  private final VirtualTime time = VirtualTime.withSeed(5);
  private final InMemoryLockStore store = InMemoryLockStore.create("dhcp-agent");
  private final ByteArrayOutputStream eventBytes = new ByteArrayOutputStream();
  private final AgentEvents events =
      new AgentEvents(
          new PrintStream(eventBytes, true, StandardCharsets.UTF_8),
          Clock.systemUTC(),
          MonotonicClock.system(),
          true);
  private final AtomicReference<LeaderDuty> dutyRef = new AtomicReference<>();
  private final PoolLeaseCache cache =
      new PoolLeaseCache(
          new IPPoolRef("default", "net-48"),
          Optional.empty(),
          Optional.empty(),
          s -> {
            LeaderDuty d = dutyRef.get();
            if (d != null) {
              d.poolChanged();
            }
          });
  private final LeaderDuty duty =
      new LeaderDuty(cache, this::fakeAddress, this::openServer, events);
  private LeaderElector elector;

  LeaderDutyTest() {
    dutyRef.set(duty);
  }

  @AfterEach
  void tearDown() {
    duty.close();
    if (elector != null) {
      time.close(elector);
    }
  }

  private ServerAddress fakeAddress(LeaderDuty.Target target) {
    String address = target.serverIp() + "/" + target.cidr().prefixLength();
    return new ServerAddress() {
      @Override
      public void add() throws IOException {
        if (addFails.get()) {
          throw new IOException(
              "'ip addr replace " + address + "' failed: Operation not" + " permitted");
        }
        transcript.add("add " + address);
      }

      @Override
      public void remove() {
        transcript.add("remove " + address);
      }

      @Override
      public String describe() {
        return address;
      }

      @Override
      public String address() {
        return address;
      }

      @Override
      public String nic() {
        return "net1";
      }
    };
  }

  private DhcpServer openServer(LeaderDuty.Target target, Term term) throws IOException {
    transcript.add("open " + target.serverIp() + " token=" + term.fencingToken());
    DhcpServer server =
        DhcpServer.builder()
            .engine(new DhcpEngine(cache))
            .bindAddress(Ipv4Address.parse("127.0.0.1"))
            .port(0)
            .servingGate(term::isActive)
            .threadName("duty-test-" + term.fencingToken())
            .build();
    server.start();
    server.setServing(true);
    return server;
  }

  private Term lead() {
    AtomicReference<Term> started = new AtomicReference<>();
    elector =
        LeaderElector.start(
            time.configure(ElectorConfig.newBuilder())
                .lock(store.lockFor("agent-a"))
                .callbacks(LeaderCallbacks.of(started::set, (term, reason) -> {}))
                .build());
    time.advanceUntil(() -> started.get() != null, Duration.ofSeconds(5));
    return started.get();
  }

  private void endTerm() {
    time.close(elector);
    elector = null;
  }

  private void awaitTranscript(int size) {
    await().atMost(Duration.ofSeconds(5)).until(() -> transcript.size() >= size);
  }

  @Test
  void aStartedTermTakesTheAddressThenServes() {
    cache.apply(Pools.pool("1", Map.of()));
    Term term = lead();

    duty.started(term);

    assertEquals(
        List.of("add 192.0.2.1/24", "open 192.0.2.1 token=" + term.fencingToken()), transcript);
    assertTrue(duty.serving());
    assertEquals(Optional.empty(), duty.problem());
  }

  @Test
  void anEndedTermStopsAnsweringAtOnceThenGivesTheAddressUp() {
    cache.apply(Pools.pool("1", Map.of()));
    Term term = lead();
    duty.started(term);

    endTerm();
    assertFalse(duty.serving(), "the gate closed with the term, before the stop callback");
    duty.stopped(term, TermEnd.CLOSED);

    assertEquals(
        List.of(
            "add 192.0.2.1/24",
            "open 192.0.2.1 token=" + term.fencingToken(),
            "remove 192.0.2.1/24"),
        transcript);
    String printed = eventBytes.toString(StandardCharsets.UTF_8);
    assertTrue(printed.indexOf("address-added") < printed.indexOf("address-removed"), printed);
  }

  @Test
  void anEndedTermGivesTheAddressUpWithoutWaitingForTheStopCallback() {
    cache.apply(Pools.pool("1", Map.of()));
    Term term = lead();
    duty.started(term);

    endTerm(); // the elector's stop callback here does nothing: whenEnded() alone tears down
    awaitTranscript(3);

    assertEquals(
        List.of(
            "add 192.0.2.1/24",
            "open 192.0.2.1 token=" + term.fencingToken(),
            "remove 192.0.2.1/24"),
        transcript);
    assertFalse(duty.serving());
  }

  @Test
  void aNewServerIpInThePoolMovesTheAddress() throws Exception {
    cache.apply(Pools.pool("1", Map.of()));
    Term term = lead();
    duty.started(term);

    cache.apply(Pools.pool("2", Pools.config().serverIP("192.0.2.2"), Map.of()));
    awaitTranscript(5);

    assertEquals(
        List.of(
            "add 192.0.2.1/24",
            "open 192.0.2.1 token=" + term.fencingToken(),
            "remove 192.0.2.1/24",
            "add 192.0.2.2/24",
            "open 192.0.2.2 token=" + term.fencingToken()),
        transcript);
  }

  @Test
  void anUpdateWithTheSameServerAddressChangesNothing() throws Exception {
    cache.apply(Pools.pool("1", Map.of()));
    duty.started(lead());

    cache.apply(Pools.pool("2", Map.of("192.0.2.10", "52:54:00:00:00:0a")));
    duty.stopped(null, TermEnd.CLOSED); // a no-op barrier: waits for the worker to go idle

    assertEquals(2, transcript.size(), transcript.toString());
  }

  @Test
  void aLeaderWithoutAPoolServesOnceThePoolAppears() throws Exception {
    cache.absent();
    Term term = lead();
    duty.started(term);
    assertEquals(List.of(), transcript);
    assertFalse(duty.serving());

    cache.apply(Pools.pool("3", Map.of()));
    awaitTranscript(2);

    assertEquals(
        List.of("add 192.0.2.1/24", "open 192.0.2.1 token=" + term.fencingToken()), transcript);
  }

  @Test
  void aFailedAddIsReportedForTheHealthCheckAndNothingIsServed() {
    cache.apply(Pools.pool("1", Map.of()));
    addFails.set(true);

    duty.started(lead());

    assertEquals(List.of(), transcript);
    assertFalse(duty.serving());
    assertTrue(
        duty.problem().orElseThrow().contains("Operation not permitted"),
        duty.problem().toString());
    assertTrue(eventBytes.toString(StandardCharsets.UTF_8).contains("address-failed"));
  }

  @Test
  void aFollowerIgnoresPoolChanges() throws Exception {
    cache.apply(Pools.pool("1", Map.of()));
    cache.apply(Pools.pool("2", Pools.config().serverIP("192.0.2.2"), Map.of()));
    duty.stopped(null, TermEnd.CLOSED);

    assertEquals(List.of(), transcript);
  }

  @Test
  void aTermThatEndedBeforeTheDutyStartedLeavesNothingBehind() {
    cache.apply(Pools.pool("1", Map.of()));
    Term term = lead();
    endTerm();

    duty.started(term);

    assertEquals(List.of(), transcript);
    assertFalse(duty.serving());
  }
}
