package dev.elector.kube.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.kube.WatchMode;
import dev.elector.kube.internal.WatchSharing.Choice;
import dev.elector.lock.LockFailure;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/** The mode decision: what each mode chooses, what a 403 changes, and what is logged. */
class WatchSharingTest {
  private static final String LEASES = "/apis/coordination.k8s.io/v1/namespaces/ns/leases";
  private static final String CONFIGMAPS = "/api/v1/namespaces/ns/configmaps";
  private static final String WHAT = "leases.coordination.k8s.io in namespace ns";
  private static final String RULE = "{list, watch on the lock's name}";

  private final List<String> lines = new ArrayList<>();
  private final WatchSharing sharing = new WatchSharing(recording(lines));

  /** A logger that keeps "LEVEL message args" of every call. */
  private static Logger recording(List<String> lines) {
    return (Logger)
        Proxy.newProxyInstance(
            Logger.class.getClassLoader(),
            new Class<?>[] {Logger.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getName")) {
                return "test";
              }
              if (method.getName().startsWith("is")) {
                return true;
              }
              if (method.getReturnType() == void.class) {
                lines.add(
                    method.getName().toUpperCase(java.util.Locale.ROOT)
                        + " "
                        + Arrays.deepToString(args));
              }
              return null;
            });
  }

  private static LockFailure failure(LockFailure.Kind kind) {
    return LockFailure.of(kind, kind + " on list " + WHAT);
  }

  @Test
  void autoSharesWhileNothingIsKnownAndForcedModesIgnoreWhatIsKnown() {
    assertEquals(Choice.SHARED, sharing.choose(WatchMode.AUTO, LEASES));
    assertEquals(Choice.SHARED, sharing.choose(WatchMode.SHARED, LEASES));
    assertEquals(Choice.PER_LOCK, sharing.choose(WatchMode.PER_LOCK, LEASES));
    assertTrue(sharing.refused(LEASES, WHAT, failure(LockFailure.Kind.FORBIDDEN), RULE));
    assertEquals(Choice.SHARED, sharing.choose(WatchMode.SHARED, LEASES));
    assertEquals(Choice.PER_LOCK, sharing.choose(WatchMode.PER_LOCK, LEASES));
    assertEquals(List.of(), lines.stream().filter(l -> !l.startsWith("INFO")).toList());
  }

  @Test
  void a403RefusesSharingForThatClientAndCollectionOnlyAndIsLoggedOnce() {
    assertTrue(sharing.refused(LEASES, WHAT, failure(LockFailure.Kind.FORBIDDEN), RULE));
    assertTrue(sharing.refused(LEASES, WHAT, failure(LockFailure.Kind.FORBIDDEN), RULE));
    assertEquals(Choice.PER_LOCK, sharing.choose(WatchMode.AUTO, LEASES));
    assertEquals(Choice.SHARED, sharing.choose(WatchMode.AUTO, CONFIGMAPS));
    assertEquals(1, lines.size(), lines.toString());
    String line = lines.get(0);
    assertTrue(
        line.startsWith("INFO")
            && line.contains(WHAT)
            && line.contains("may not list")
            && line.contains("each watch their own object")
            && line.contains(RULE)
            && line.contains("FORBIDDEN on list"),
        line);
  }

  @Test
  void otherFailuresAreBreaksNotRefusals() {
    for (LockFailure.Kind kind : LockFailure.Kind.values()) {
      if (kind != LockFailure.Kind.FORBIDDEN) {
        assertFalse(sharing.refused(LEASES, WHAT, failure(kind), RULE), kind.name());
      }
    }
    assertEquals(Choice.SHARED, sharing.choose(WatchMode.AUTO, LEASES));
    assertEquals(null, sharing.lookup(LEASES));
    assertEquals(List.of(), lines);
  }

  @Test
  void aListThatWorksIsLoggedOnceAndAfterARefusalSharesAgain() {
    sharing.listed(LEASES, WHAT);
    sharing.listed(LEASES, WHAT);
    assertEquals(1, lines.size(), lines.toString());
    assertTrue(
        lines.get(0).startsWith("INFO") && lines.get(0).contains("share one watch"), lines.get(0));
    assertEquals(true, sharing.lookup(LEASES));

    sharing.refused(LEASES, WHAT, failure(LockFailure.Kind.FORBIDDEN), RULE);
    assertEquals(Choice.PER_LOCK, sharing.choose(WatchMode.AUTO, LEASES));
    sharing.listed(LEASES, WHAT); // a forced shared watch listed: the Role was granted
    assertEquals(Choice.SHARED, sharing.choose(WatchMode.AUTO, LEASES));
    assertEquals(3, lines.size(), lines.toString());
  }

  @Test
  void clientsAreToldApartByIdentityEvenWhenTheyCompareEqual() {
    Object first = new EqualToAll();
    Object second = new EqualToAll();
    assertTrue(
        ClientState.of(first)
            .sharing()
            .refused(LEASES, WHAT, failure(LockFailure.Kind.FORBIDDEN), RULE));

    assertSame(ClientState.of(first), ClientState.of(first));
    assertEquals(Choice.PER_LOCK, ClientState.of(first).sharing().choose(WatchMode.AUTO, LEASES));
    assertEquals(
        Choice.SHARED,
        ClientState.of(second).sharing().choose(WatchMode.AUTO, LEASES),
        "another client, though equal, has its own identity and may list");
  }

  /** A client whose equals says yes to every other, as a value-based client could. */
  private static final class EqualToAll {
    @Override
    public boolean equals(Object other) {
      return other instanceof EqualToAll;
    }

    @Override
    public int hashCode() {
      return 1;
    }
  }
}
