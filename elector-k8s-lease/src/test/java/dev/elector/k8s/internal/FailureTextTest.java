package dev.elector.k8s.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.kube.internal.FailureText;
import dev.elector.kube.internal.Reply;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockFailure.Kind;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** HTTP answers and I/O errors become failure kinds with messages a user can act on. */
class FailureTextTest {
  private final FailureText failures =
      new FailureText("Lease", "coordination.k8s.io", "leases", "ns", "lock", "me_1");

  private LockFailure reply(String verb, int code) {
    Reply answer =
        new Reply(
            code,
            GsonValues.parseObject(
                "{\"kind\":\"Status\",\"message\":\"server says " + code + "\"}"),
            "",
            Duration.ZERO);
    return failures.fromStatus(verb, answer.code(), answer.statusMessage());
  }

  @Test
  void aForbiddenAnswerNamingAMissingRoleSaysThatAStartingServerAnswersSoForAMoment() {
    String missingRole =
        failures
            .fromStatus(
                "patch",
                403,
                "leases.coordination.k8s.io \"lock\" is forbidden: User \"me\" cannot patch"
                    + " resource \"leases\" in API group \"coordination.k8s.io\" in the"
                    + " namespace \"ns\": RBAC: clusterrole.rbac.authorization.k8s.io"
                    + " \"lease-writer\" not found")
            .message();
    assertTrue(missingRole.contains("grant it with a Role in namespace ns"), missingRole);
    assertTrue(
        missingRole.contains(
            "or the API server has just started and its authorizer has not loaded the roles yet"),
        missingRole);
    assertFalse(
        reply("patch", 403).message().contains("has just started"), "not for a plain refusal");
  }

  @Test
  void statusCodesMapToKinds() {
    assertEquals(Kind.FORBIDDEN, reply("get", 403).kind());
    assertEquals(Kind.UNAUTHORIZED, reply("get", 401).kind());
    assertEquals(Kind.NOT_FOUND, reply("create", 404).kind());
    assertEquals(Kind.INVALID, reply("patch", 400).kind());
    assertEquals(Kind.INVALID, reply("patch", 422).kind());
    assertEquals(Kind.UNAVAILABLE, reply("get", 429).kind());
    assertEquals(Kind.UNAVAILABLE, reply("get", 500).kind());
    assertEquals(Kind.UNAVAILABLE, reply("get", 503).kind());
    assertEquals(Kind.TIMEOUT, reply("get", 504).kind());
    assertEquals(Kind.UNEXPECTED, reply("get", 418).kind());
  }

  @Test
  void forbiddenNamesVerbResourceNamespaceNameIdentityAndTheRule() {
    String message = reply("patch", 403).message();

    for (String part :
        new String[] {
          "me_1",
          "patch leases.coordination.k8s.io \"lock\"",
          "namespace ns",
          "server says 403",
          "apiGroups: [\"coordination.k8s.io\"], resources:"
              + " [\"leases\"], verbs: [\"patch\"], resourceNames: [\"lock\"]"
        }) {
      assertTrue(message.contains(part), "missing " + part + " in " + message);
    }
  }

  @Test
  void aForbiddenSharedWatchAsksForListAndWatchOnTheWholeCollectionOrNoSharing() {
    FailureText collection = failures.forCollection();
    String message = collection.fromStatus("list", 403, "no").message();

    for (String part :
        new String[] {
          "me_1 is not allowed to list leases.coordination.k8s.io in" + " namespace ns",
          "resources: [\"leases\"], verbs: [\"list\", \"watch\"]}",
          "with watchMode(PER_LOCK)"
        }) {
      assertTrue(message.contains(part), "missing " + part + " in " + message);
    }
    assertFalse(message.contains("resourceNames"), "a collection rule has no names: " + message);
  }

  @Test
  void missingNamespaceOnCreateSaysSo() {
    assertTrue(reply("create", 404).message().contains("namespace ns does not exist"));
  }

  @Test
  void timeoutsAndConnectionErrors() {
    assertEquals(
        Kind.TIMEOUT,
        failures.fromTransport("get", new InterruptedIOException("timeout"), 5).kind());
    assertEquals(
        Kind.TIMEOUT, failures.fromTransport("get", new SocketTimeoutException(), 5).kind());
    assertEquals(
        Kind.UNAVAILABLE, failures.fromTransport("get", new ConnectException("refused"), 5).kind());
    assertEquals(
        Kind.UNAVAILABLE, failures.fromTransport("get", new IOException("reset"), 5).kind());
  }
}
