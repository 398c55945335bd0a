package dev.elector.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.lock.LockFailure;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a {@link KubeObjectWatch} reports and refuses to build, without an API server. */
class KubeObjectWatchTest {

  @Test
  void everyFailureOfTheSharedLoopIsReportedAsAWatchFailureWithItsClassMessageAndCause() {
    IOException cause = new IOException("connection reset");
    for (LockFailure.Kind kind : LockFailure.Kind.values()) {
      KubeObjectWatch.Failure failure =
          KubeObjectWatch.Failure.of(new LockFailure(kind, "list failed", cause));

      assertEquals(kind.name(), failure.kind().name());
      assertEquals(
          kind.isConfigurationProblem(), failure.kind().isConfigurationProblem(), kind.name());
      assertEquals("list failed", failure.message());
      assertSame(cause, failure.cause());
    }
  }

  @Test
  void buildingWithoutTheRequiredOptionsNamesEachOne() {
    IllegalStateException refused =
        assertThrows(
            IllegalStateException.class,
            () ->
                KubeObjectWatch.newBuilder()
                    .resource("IPPools")
                    .requestTimeout(Duration.ZERO)
                    .build());

    for (String problem :
        new String[] {
          "apiClient is missing",
          "version is missing",
          "resource \"IPPools\" is not a plural resource name",
          "namespace is missing",
          "name is missing",
          "listener is missing",
          "requestTimeout PT0S must be positive"
        }) {
      assertTrue(refused.getMessage().contains(problem), refused.getMessage());
    }
  }

  @Test
  void aFailureNeedsAKindAndAMessage() {
    assertThrows(
        NullPointerException.class, () -> new KubeObjectWatch.Failure(null, "list failed", null));
    assertThrows(
        NullPointerException.class,
        () -> new KubeObjectWatch.Failure(LockFailure.Kind.TIMEOUT, null, null));
    assertEquals(
        "TIMEOUT: list timed out",
        new KubeObjectWatch.Failure(LockFailure.Kind.TIMEOUT, "list timed out", null).toString());
  }
}
