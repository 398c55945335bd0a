package dev.elector.kube.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.kube.PodEnvironment;
import dev.elector.testkit.VirtualTime;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The options every backend's lock builder shares: where the namespace and the identity come from,
 * the defaults, and every problem reported at once by build().
 */
class LockBuilderTest {
  private static final String FILE = PodEnvironment.NAMESPACE_FILE;
  private static final Object CLIENT = new Object();

  /** A transport no test here sends through: building a lock sends nothing. */
  private static final ApiTransport NO_TRANSPORT =
      new ScriptedTransport() {
        @Override
        Reply answer(String method, String path, @Nullable Object body) {
          throw new AssertionError("sent " + method + " " + path);
        }
      };

  /** A backend's builder with a client that sends nothing. */
  private static LockBuilder<Object> newBuilder() {
    return new LockBuilder<>(ObjectKind.LEASE, CLIENT, (client, timeout) -> NO_TRANSPORT);
  }

  private static LockBuilder<Object> builder(PodEnvironment environment) {
    return newBuilder().name("lock").environment(environment);
  }

  @Test
  void namespaceComesFromTheBuilderThenPodNamespaceThenTheServiceAccountFile() {
    PodEnvironment both =
        PodEnvironment.of(
            Map.of("POD_NAMESPACE", "from-env"), Map.of(FILE, "from-file\n"), "host", "x1");
    PodEnvironment fileOnly =
        PodEnvironment.of(Map.of(), Map.of(FILE, "from-file\n"), "host", "x1");

    assertEquals("explicit", builder(both).namespace("explicit").settings().namespace());
    assertEquals("from-env", builder(both).settings().namespace());
    assertEquals("from-file", builder(fileOnly).settings().namespace());
  }

  @Test
  void withoutANamespaceBuildFailsSayingWhereToSetIt() {
    PodEnvironment nothing = PodEnvironment.of(Map.of(), Map.of(), "host", "x1");

    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> builder(nothing).settings());

    assertTrue(e.getMessage().contains("POD_NAMESPACE"), e.getMessage());
    assertTrue(e.getMessage().contains(FILE), e.getMessage());
  }

  @Test
  void identityIsExplicitElsePodNameElseHostNameWithTheProcessSuffix() {
    PodEnvironment pod =
        PodEnvironment.of(
            Map.of("POD_NAME", "web-7d9", "POD_NAMESPACE", "ns"), Map.of(), "node-host", "ab12cd");
    PodEnvironment host =
        PodEnvironment.of(Map.of("POD_NAMESPACE", "ns"), Map.of(), "node-host", "ab12cd");

    assertEquals("me", builder(pod).identity("me").settings().identity());
    assertEquals("web-7d9_ab12cd", builder(pod).settings().identity());
    assertEquals("node-host_ab12cd", builder(host).settings().identity());
  }

  @Test
  void theSystemIdentityHasARandomSuffix() {
    assertTrue(PodEnvironment.system().defaultIdentity().matches(".+_[a-z0-9]{6}"));
  }

  @Test
  void everyProblemIsReportedAtOnceNamingTheKind() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                newBuilder()
                    .name("Not_Valid")
                    .namespace("ns")
                    .requestTimeout(Duration.ZERO)
                    .eventComponent("ops")
                    .settings());

    assertTrue(e.getMessage().startsWith("cannot build the Lease lock: "), e.getMessage());
    assertTrue(e.getMessage().contains("\"Not_Valid\" is not a valid"), e.getMessage());
    assertTrue(e.getMessage().contains("requestTimeout PT0S"), e.getMessage());
    assertTrue(e.getMessage().contains("add recordEvents(true)"), e.getMessage());
  }

  @SuppressWarnings("NullAway") // the nulls a caller without NullAway may pass
  @Test
  void theKindTheClientAndTheTransportAreRequiredWhereTheBuilderIsMade() {
    assertThrows(
        NullPointerException.class,
        () -> new LockBuilder<>(ObjectKind.LEASE, null, (client, timeout) -> NO_TRANSPORT));
    assertThrows(
        NullPointerException.class,
        () -> new LockBuilder<>(null, CLIENT, (client, timeout) -> NO_TRANSPORT));
    assertThrows(
        NullPointerException.class, () -> new LockBuilder<>(ObjectKind.LEASE, CLIENT, null));
  }

  @Test
  void defaultsAreARequestTimeoutThatFollowsTheElectorTheSharedThreadsAndNoEvents() {
    ObjectLock.Settings settings =
        newBuilder().name("lock").namespace("ns").identity("me").settings();

    assertSame(CLIENT, settings.client());
    assertNull(settings.requestTimeout(), "unset: it follows the elector's callTimeout");
    assertSame(DaemonThreads.shared(), settings.executor());
    assertNull(settings.eventComponent());
    assertEquals(
        "elector",
        newBuilder()
            .name("lock")
            .namespace("ns")
            .identity("me")
            .recordEvents(true)
            .settings()
            .eventComponent());
  }

  @Test
  void theTimeSeamReachesTheLockAndDefaultsToTheRealOnes() {
    VirtualTime time = VirtualTime.create();
    MonotonicClock clock = time.clock();
    Scheduler scheduler = time.scheduler();
    SplittableRandom random = new SplittableRandom(3);

    LockTime given =
        newBuilder()
            .name("lock")
            .namespace("ns")
            .identity("me")
            .clock(clock)
            .scheduler(scheduler)
            .random(random)
            .settings()
            .time();
    LockTime defaults = newBuilder().name("lock").namespace("ns").identity("me").settings().time();

    assertSame(clock, given.clock());
    assertSame(scheduler, given.scheduler());
    assertSame(random, given.random());
    assertSame(MonotonicClock.system(), defaults.clock());
    assertNull(defaults.scheduler(), "a daemon thread for each watch");
    assertNull(defaults.random(), "a fresh generator for each watch");
  }
}
