package dev.elector.k8s.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import dev.elector.TermEnd;
import dev.elector.k8s.LeaseLock;
import dev.elector.kube.KubeLock;
import dev.elector.kube.internal.EventRecorder;
import dev.elector.kube.internal.ObjectLock;
import dev.elector.kube.internal.Reply;
import dev.elector.testkit.VirtualTime;
import dev.elector.time.MonotonicClock;
import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/** The Events of recordEvents(true): content, never on the caller's thread, rate limit, 403. */
class EventRecorderTest {
  private static final AtomicInteger NAMESPACES = new AtomicInteger();

  private final VirtualTime time = VirtualTime.create();
  private final MonotonicClock clock = time.clock();

  /** The refusals reported on the one client of this test's recorders. */
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  private final Clock wall = Clock.fixed(Instant.parse("2026-12-03T14:00:00.123Z"), ZoneOffset.UTC);
  private final Queue<Runnable> executor = new ArrayDeque<>();
  private final List<JsonObject> posted = new ArrayList<>();
  private final List<String> lines = new ArrayList<>();
  private int answer = 201;
  private final String namespace = "ns-" + NAMESPACES.incrementAndGet();

  private EventRecorder recorder(String identity) {
    return new EventRecorder(
        "coordination.k8s.io/v1",
        "Lease",
        namespace,
        "orders",
        identity,
        "my-operator",
        () -> "uid-1",
        event -> {
          posted.add(GsonValues.toTree(event).getAsJsonObject());
          return new Reply(answer, null, answer == 403 ? "events is forbidden" : "", Duration.ZERO);
        },
        executor::add,
        clock,
        wall,
        reported::add,
        recordingLogger());
  }

  private void runQueued() {
    while (!executor.isEmpty()) {
      executor.poll().run();
    }
  }

  private List<String> messages() {
    return posted.stream().map(e -> e.get("message").getAsString()).toList();
  }

  private List<String> loud() {
    return lines.stream().filter(l -> l.startsWith("WARN") || l.startsWith("ERROR")).toList();
  }

  @Test
  void becameAndStoppedLeadingAreCoreV1EventsOnTheLockLikeClientGos() {
    EventRecorder events = recorder("pod-a");
    events.started("pod-a");
    events.ended("pod-a", TermEnd.CLOSED);
    events.started("pod-a");
    events.ended("pod-a", TermEnd.LOCK_LOST);
    runQueued();

    assertEquals(
        List.of(
            "pod-a became leader",
            "pod-a stopped leading (closed)",
            "pod-a became leader",
            "pod-a stopped leading: someone else wrote the lock"),
        messages());
    JsonObject first = posted.get(0);
    assertEquals("v1", first.get("apiVersion").getAsString());
    assertEquals("Event", first.get("kind").getAsString());
    assertEquals("orders.", first.getAsJsonObject("metadata").get("generateName").getAsString());
    assertEquals(namespace, first.getAsJsonObject("metadata").get("namespace").getAsString());
    assertEquals("LeaderElection", first.get("reason").getAsString());
    assertEquals("Normal", first.get("type").getAsString());
    assertEquals("my-operator", first.getAsJsonObject("source").get("component").getAsString());
    assertEquals("my-operator", first.get("reportingComponent").getAsString());
    assertEquals("pod-a", first.get("reportingInstance").getAsString());
    assertEquals("2026-12-03T14:00:00Z", first.get("firstTimestamp").getAsString());
    JsonObject involved = first.getAsJsonObject("involvedObject");
    assertEquals("coordination.k8s.io/v1", involved.get("apiVersion").getAsString());
    assertEquals("Lease", involved.get("kind").getAsString());
    assertEquals("orders", involved.get("name").getAsString());
    assertEquals(namespace, involved.get("namespace").getAsString());
    assertEquals("uid-1", involved.get("uid").getAsString());
    assertEquals("Warning", posted.get(3).get("type").getAsString(), "a lost term is a warning");
    assertEquals(List.of(), loud());
  }

  @Test
  void nothingIsSentOnTheElectorsThread() {
    EventRecorder events = recorder("pod-a");
    events.started("pod-a");
    events.ended("pod-a", TermEnd.RENEW_DEADLINE_EXCEEDED);
    assertEquals(List.of(), posted, "the elector's thread only queues");
    assertEquals(1, executor.size(), "one drain task for both, sent in order");
    runQueued();
    assertEquals(
        List.of(
            "pod-a became leader", "pod-a stopped leading: could not renew within renewDeadline"),
        messages());
  }

  @Test
  void aFlappingLeaderIsRateLimitedAndTheNextEventCountsWhatWasHeldBack() {
    EventRecorder events = recorder("pod-a");
    for (int i = 0; i < 5; i++) { // ten events at once
      events.started("pod-a");
      events.ended("pod-a", TermEnd.LOCK_LOST);
    }
    runQueued();
    assertEquals(EventRecorder.BURST, posted.size());

    time.advance(Duration.ofSeconds(59));
    events.started("pod-a");
    runQueued();
    assertEquals(EventRecorder.BURST, posted.size(), "no token within the minute");

    time.advance(Duration.ofSeconds(1));
    events.ended("pod-a", TermEnd.CLOSED);
    runQueued();
    assertEquals(EventRecorder.BURST + 1, posted.size());
    assertEquals(
        "pod-a stopped leading (closed) (5 earlier leader election events were not"
            + " recorded: at most 6 at once, then one a minute)",
        messages().get(posted.size() - 1));

    time.advance(Duration.ofHours(1)); // the bucket refills to the burst, no further
    for (int i = 0; i < 10; i++) {
      events.started("pod-a");
    }
    runQueued();
    assertEquals(2 * EventRecorder.BURST + 1, posted.size());
  }

  @Test
  void withoutThePermissionOneWarnNamesTheRuleForEveryLockOfThatIdentity() {
    answer = 403;
    EventRecorder first = recorder("pod-a");
    EventRecorder second = recorder("pod-a"); // another lock, same identity and namespace
    for (int i = 0; i < 3; i++) {
      first.started("pod-a");
      second.started("pod-a");
      time.advance(Duration.ofMinutes(1));
    }
    runQueued();

    assertEquals(6, posted.size(), "it keeps trying: the permission may be granted later");
    List<String> warnings = loud();
    assertEquals(1, warnings.size(), lines.toString());
    String warning = warnings.get(0);
    assertTrue(warning.contains("pod-a may not create Events in namespace " + namespace), warning);
    assertTrue(
        warning.contains("{apiGroups: [\"\"], resources: [\"events\"], verbs: [\"create\"]}"),
        warning);
    assertTrue(warning.contains("deploy/lease/rbac-events.yaml"), warning);
    assertTrue(warning.contains("the election is not affected"), warning);
    assertEquals(6, first.counts()[1] + second.counts()[1]);
  }

  @Test
  void otherFailuresWarnOnceUntilAnEventGoesThroughAgain() {
    EventRecorder events =
        new EventRecorder(
            "coordination.k8s.io/v1",
            "Lease",
            namespace,
            "orders",
            "pod-a",
            "elector",
            () -> null,
            event -> {
              posted.add(GsonValues.toTree(event).getAsJsonObject());
              if (answer == 0) {
                throw new IOException("connection refused");
              }
              return new Reply(answer, null, "", Duration.ZERO);
            },
            executor::add,
            clock,
            wall,
            reported::add,
            recordingLogger());
    answer = 0;
    events.started("pod-a");
    events.ended("pod-a", TermEnd.CLOSED);
    runQueued();
    assertEquals(1, loud().size(), lines.toString());
    assertTrue(loud().get(0).contains("connection refused"), loud().get(0));
    assertTrue(!posted.get(0).getAsJsonObject("involvedObject").has("uid"), "uid not known yet");

    answer = 500;
    events.started("pod-a");
    runQueued();
    assertEquals(1, loud().size(), "the same streak of failures: " + lines);
    answer = 201;
    events.started("pod-a");
    runQueued();
    answer = 500;
    events.ended("pod-a", TermEnd.CLOSED);
    runQueued();
    assertEquals(2, loud().size(), "after a success, a new failure is reported: " + lines);
  }

  @Test
  void theLockRecordsOnlyWhenAskedAndTheBuilderChecksTheComponent() {
    ApiClient client = new ApiClient();
    KubeLock plain = LeaseLock.newBuilder(client).namespace("ns").name("l").identity("me").build();
    assertEquals(Optional.empty(), ((ObjectLock) plain).eventRecorder());
    KubeLock recording =
        LeaseLock.newBuilder(client)
            .namespace("ns")
            .name("l")
            .identity("me")
            .recordEvents(true)
            .eventComponent("example.com/my-operator")
            .build();
    assertTrue(((ObjectLock) recording).eventRecorder().isPresent());

    IllegalStateException bad =
        assertThrows(
            IllegalStateException.class,
            () ->
                LeaseLock.newBuilder(client)
                    .namespace("ns")
                    .name("l")
                    .identity("me")
                    .recordEvents(true)
                    .eventComponent("my operator!")
                    .build());
    assertTrue(
        bad.getMessage()
            .contains("eventComponent \"my operator!\" is not a Kubernetes" + " qualified name"),
        bad.getMessage());
    IllegalStateException unused =
        assertThrows(
            IllegalStateException.class,
            () ->
                LeaseLock.newBuilder(client)
                    .namespace("ns")
                    .name("l")
                    .identity("me")
                    .eventComponent("my-operator")
                    .build());
    assertTrue(unused.getMessage().contains("add recordEvents(true)"), unused.getMessage());
  }

  /** A Logger that records "LEVEL message" with the arguments filled in. */
  private Logger recordingLogger() {
    return (Logger)
        Proxy.newProxyInstance(
            Logger.class.getClassLoader(),
            new Class<?>[] {Logger.class},
            (proxy, method, args) -> {
              String name = method.getName();
              if (List.of("debug", "info", "warn", "error").contains(name)
                  && args != null
                  && args[0] instanceof String format) {
                Object[] values =
                    args.length == 2 && args[1] instanceof Object[] array
                        ? array
                        : java.util.Arrays.copyOfRange(args, 1, args.length);
                String text = format;
                for (Object value : values) {
                  text =
                      text.replaceFirst(
                          "\\{}", java.util.regex.Matcher.quoteReplacement(String.valueOf(value)));
                }
                lines.add(name.toUpperCase(Locale.ROOT) + " " + text);
                return null;
              }
              if (name.startsWith("is") && name.endsWith("Enabled")) {
                return true;
              }
              return name.equals("getName") ? "test" : null;
            });
  }
}
