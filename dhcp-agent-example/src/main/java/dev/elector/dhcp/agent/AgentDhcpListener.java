package dev.elector.dhcp.agent;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.elector.dhcp.codec.DhcpMessage;
import dev.elector.dhcp.codec.Ipv4Address;
import dev.elector.dhcp.codec.MacAddress;
import dev.elector.dhcp.server.DhcpListener;
import dev.elector.dhcp.server.Outcome;
import dev.elector.time.MonotonicClock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports what the server did: every reply that left as a {@code reply} event, and each MAC the
 * pool does not know at most once a minute (INFO and an {@code unknown-client} event). The set of
 * recently reported MACs is a bounded Caffeine cache on the agent's clock, so a flood of made-up
 * MACs can neither flood the log nor grow memory. It also counts, per pool, the replies by kind
 * ({@code dhcp_agent_replies_total{kind="offered"|"acked"|"naked"|"informed"}}), the declines
 * ({@code dhcp_agent_declines_total}) and the requests from MACs the pool does not know ({@code
 * dhcp_agent_unknown_clients_total}), on the DHCP server's thread.
 */
final class AgentDhcpListener implements DhcpListener {
  private static final Logger log = LoggerFactory.getLogger(AgentDhcpListener.class);
  static final Duration REPORT_INTERVAL = Duration.ofMinutes(1);
  static final long MAX_TRACKED = 4_096;

  private final AgentEvents events;
  private final Cache<MacAddress, Boolean> recentlyReported;
  private final Map<Outcome.Kind, Counter> replies = new EnumMap<>(Outcome.Kind.class);
  private final Counter declines;
  private final java.util.function.BiConsumer<MacAddress, Ipv4Address> onDecline;
  private final Counter unknownClients;

  /**
   * @param pool the pool's "namespace/name", the {@code pool} tag of the counters
   */
  AgentDhcpListener(AgentEvents events, MonotonicClock clock, MeterRegistry registry, String pool) {
    this(events, clock, registry, pool, (mac, ip) -> {});
  }

  /** As above; {@code onDecline} hears each DECLINE (on the server's thread; keep it quick). */
  AgentDhcpListener(
      AgentEvents events,
      MonotonicClock clock,
      MeterRegistry registry,
      String pool,
      java.util.function.BiConsumer<MacAddress, Ipv4Address> onDecline) {
    this.onDecline = onDecline;
    this.events = events;
    for (Outcome.Kind kind :
        List.of(
            Outcome.Kind.OFFERED, Outcome.Kind.ACKED, Outcome.Kind.NAKED, Outcome.Kind.INFORMED)) {
      replies.put(
          kind,
          Counter.builder("dhcp.agent.replies")
              .description("DHCP replies sent, by kind")
              .tags("pool", pool, "kind", kind.name().toLowerCase(Locale.ROOT))
              .register(registry));
    }
    this.declines =
        Counter.builder("dhcp.agent.declines")
            .description("DHCPDECLINEs from known clients: the address is in use elsewhere")
            .tag("pool", pool)
            .register(registry);
    this.unknownClients =
        Counter.builder("dhcp.agent.unknown.clients")
            .description("requests from MACs the pool has no address for")
            .tag("pool", pool)
            .register(registry);
    Ticker ticker = clock::nanos;
    this.recentlyReported =
        Caffeine.newBuilder()
            .ticker(ticker)
            .expireAfterWrite(REPORT_INTERVAL)
            .maximumSize(MAX_TRACKED)
            .executor(Runnable::run)
            .build();
  }

  @Override
  public void handled(InetSocketAddress from, DhcpMessage request, Outcome outcome) {
    if (outcome.kind() == Outcome.Kind.DECLINED) {
      declines.increment();
      if (outcome.mac().isPresent()
          && outcome.address().isPresent()
          && !outcome.address().get().equals(Ipv4Address.ANY)) {
        onDecline.accept(outcome.mac().get(), outcome.address().get());
      }
    }
    if (outcome.ignoredBecause().filter(r -> r == Outcome.IgnoreReason.UNKNOWN_CLIENT).isEmpty()) {
      return;
    }
    unknownClients.increment();
    MacAddress mac = outcome.mac().orElseThrow();
    if (recentlyReported.asMap().putIfAbsent(mac, Boolean.TRUE) == null) {
      log.info(
          "DHCP {} from {} ({}): the pool has no address for this MAC; not answering (reported"
              + " once a minute per MAC)",
          request.options().messageType().map(Enum::name).orElse("?"),
          mac,
          from);
      events.emit("unknown-client", "mac", mac);
    }
  }

  @Override
  public void sent(Outcome outcome) {
    Counter counter = replies.get(outcome.kind());
    if (counter != null) {
      counter.increment();
    }
    events.emit(
        "reply",
        "kind",
        outcome.kind(),
        "mac",
        outcome.mac().map(String::valueOf).orElse("-"),
        "ip",
        outcome.address().map(String::valueOf).orElse("-"),
        "state",
        outcome.state().map(String::valueOf).orElse("-"));
  }

  /** How many MACs are being held back now (for tests). */
  long tracked() {
    recentlyReported.cleanUp();
    return recentlyReported.estimatedSize();
  }
}
