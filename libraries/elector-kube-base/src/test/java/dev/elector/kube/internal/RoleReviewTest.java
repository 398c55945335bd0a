package dev.elector.kube.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A refused request names every permission the lock lacks, from one rules review, so that one
 * change of the Role is enough: not one verb per restart.
 */
class RoleReviewTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final String GROUP = "coordination.k8s.io";

  private static Map<String, Object> rule(
      List<String> verbs, List<String> groups, List<String> resources, List<String> names) {
    return Map.of(
        "verbs", verbs, "apiGroups", groups, "resources", resources, "resourceNames", names);
  }

  private static RoleReview.Missing missing(List<Map<String, Object>> rules) {
    return RoleReview.missing(
        Map.of("resourceRules", rules, "incomplete", false), GROUP, "leases", "lock");
  }

  @Test
  void noRuleLacksEverything() {
    RoleReview.Missing none = missing(List.of());
    assertEquals(List.of("get", "list", "watch", "patch"), none.named());
    assertTrue(none.create());
  }

  @Test
  void theShippedRoleLacksNothing() {
    assertTrue(
        missing(
                List.of(
                    rule(
                        List.of("get", "list", "watch", "patch"),
                        List.of(GROUP),
                        List.of("leases"),
                        List.of("lock")),
                    rule(List.of("create"), List.of(GROUP), List.of("leases"), List.of())))
            .none());
  }

  @Test
  void aRuleForAnotherNameOrGroupDoesNotCount() {
    RoleReview.Missing other =
        missing(
            List.of(
                rule(List.of("*"), List.of(GROUP), List.of("leases"), List.of("other-lock")),
                rule(List.of("*"), List.of(""), List.of("leases"), List.of())));
    assertEquals(List.of("get", "list", "watch", "patch"), other.named());
    assertTrue(other.create());
  }

  @Test
  void createByNameCannotBeGrantedButWildcardsCount() {
    RoleReview.Missing byName =
        missing(
            List.of(
                rule(List.of("create", "get"), List.of(GROUP), List.of("leases"), List.of("lock")),
                rule(List.of("list", "watch"), List.of("*"), List.of("*"), List.of())));
    assertEquals(List.of("patch"), byName.named());
    assertTrue(byName.create(), "create restricted by name never allows a create");
  }

  @Test
  void anIncompleteReviewSaysSo() {
    RoleReview.Missing incomplete =
        RoleReview.missing(
            Map.of("resourceRules", List.of(), "incomplete", true), GROUP, "leases", "lock");
    assertTrue(incomplete.incomplete());
  }

  // ---------------------------------------------------------------- the lock

  private final FakeServer server = new FakeServer();
  private final AtomicLong nanos = new AtomicLong();
  private final ObjectLock lock = server.leaseLock(new LockTime(nanos::get, null, null));

  /**
   * Refuses the lock's requests while {@link #refuse}; answers rules reviews with {@link #rules}.
   */
  private static final class FakeServer extends ScriptedTransport {
    boolean refuse = true;
    List<Map<String, Object>> rules = List.of();

    @Override
    Reply answer(String method, String path, @Nullable Object body) {
      if (path.equals(RoleReview.RULES_REVIEWS)) {
        return new Reply(
            201,
            Map.of("status", Map.of("resourceRules", rules, "incomplete", false)),
            null,
            Duration.ZERO);
      }
      if (refuse) {
        return new Reply(403, Map.of("message", "forbidden"), null, Duration.ZERO);
      }
      return new Reply(404, Map.of(), null, Duration.ZERO);
    }
  }

  private long reviews() {
    return server.requests.stream().filter(r -> r.endsWith(RoleReview.RULES_REVIEWS)).count();
  }

  private String refusedRead() {
    return assertInstanceOf(LockFailure.class, lock.read(TIMEOUT).toCompletableFuture().join())
        .message();
  }

  @Test
  void theFirstRefusalNamesEveryMissingVerbAndTheShippedRole() {
    String message = refusedRead();

    assertEquals(1, reviews());
    for (String part :
        List.of(
            "me is not allowed to get leases.coordination.k8s.io \"lock\" in namespace ns",
            "me lacks get, list, watch, patch, create",
            "verbs: [\"get\", \"list\", \"watch\", \"patch\"], resourceNames: [\"lock\"]}",
            "{apiGroups: [\"coordination.k8s.io\"], resources: [\"leases\"], verbs: [\"create\"]}",
            "deploy/lease/rbac.yaml")) {
      assertTrue(message.contains(part), "missing " + part + " in: " + message);
    }
  }

  @Test
  void aPartialRoleIsToldOnlyWhatItLacks() {
    server.rules =
        List.of(
            rule(List.of("get", "list", "watch"), List.of(GROUP), List.of("leases"), List.of()));
    LeaderRecord record =
        new LeaderRecord("me", Duration.ofSeconds(15), Instant.EPOCH, Instant.EPOCH, 0);

    String message =
        assertInstanceOf(
                LockFailure.class, lock.update("1", record, TIMEOUT).toCompletableFuture().join())
            .message();

    assertTrue(message.contains("me lacks patch, create"), message);
    assertTrue(message.contains("verbs: [\"patch\"], resourceNames: [\"lock\"]"), message);
    assertFalse(message.contains("\"get\""), message);
  }

  @Test
  void aStreakOfRefusalsAsksAtMostOncePerThirtySecondsAndAnAnswerEndsTheStreak() {
    refusedRead();
    refusedRead();
    nanos.addAndGet(ObjectLock.REVIEW_TTL_NANOS);
    refusedRead();
    assertEquals(1, reviews(), "within 30 s of the review");

    nanos.addAndGet(1);
    refusedRead();
    assertEquals(2, reviews(), "a review older than 30 s is asked again");

    server.refuse = false;
    lock.read(TIMEOUT).toCompletableFuture().join();
    server.refuse = true;
    refusedRead();
    assertEquals(3, reviews(), "the first refusal after an answer asks again");
  }

  @Test
  void withoutAReviewTheRefusalStillNamesEverythingTheLockNeeds() {
    RoleReview.Missing unknown = null;
    String message =
        new FailureText("Lease", GROUP, "leases", "ns", "lock", "me")
            .forbidden("patch", "forbidden", unknown)
            .message();
    assertTrue(message.contains("verbs: [\"patch\"], resourceNames: [\"lock\"]"), message);
    assertTrue(
        message.contains(
            "the lock needs get, list, watch and patch on \"lock\" and create on"
                + " leases.coordination.k8s.io, all granted by deploy/lease/rbac.yaml"),
        message);
  }
}
