package dev.elector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.lock.InMemoryLockStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ElectorConfigTest {
  private final LeaderCallbacks callbacks = LeaderCallbacks.of(t -> {}, (t, r) -> {});

  private ElectorConfig.Builder valid() {
    return ElectorConfig.newBuilder()
        .lock(InMemoryLockStore.create("l").lockFor("me"))
        .callbacks(callbacks);
  }

  @Test
  void defaultsAreClientGoCompatible() {
    ElectorConfig config = valid().build();
    assertEquals(Duration.ofSeconds(15), config.leaseDuration());
    assertEquals(Duration.ofSeconds(10), config.renewDeadline());
    assertEquals(Duration.ofSeconds(2), config.retryPeriod());
    assertEquals(1.2, config.jitter());
    assertEquals(Duration.ofSeconds(5), config.callTimeout());
    assertTrue(config.releaseOnClose());
  }

  @Test
  void oneExceptionListsEveryViolationWithTheFix() {
    ElectorConfigException e =
        assertThrows(
            ElectorConfigException.class,
            () ->
                ElectorConfig.newBuilder()
                    .lock(InMemoryLockStore.create("l").lockFor(" "))
                    .leaseDuration(Duration.ofSeconds(10))
                    .renewDeadline(Duration.ofSeconds(12))
                    .retryPeriod(Duration.ZERO)
                    .jitter(0.5)
                    .build());
    assertEquals(5, e.violations().size(), e.getMessage());
    assertTrue(e.getMessage().contains("identity of in-memory lock l is blank"), e.getMessage());
    assertTrue(e.getMessage().contains("callbacks are missing"));
    assertTrue(e.getMessage().contains("retryPeriod PT0S must be positive"));
    assertTrue(e.getMessage().contains("jitter 0.5 must be between 1.0 and 10.0"));
    assertTrue(
        e.getMessage()
            .contains(
                "renewDeadline PT12S must be shorter than leaseDuration"
                    + " PT10S; raise leaseDuration or lower renewDeadline"));
  }

  @Test
  void renewDeadlineMustExceedTheLongestJitteredRetry() {
    ElectorConfigException e =
        assertThrows(
            ElectorConfigException.class, () -> valid().retryPeriod(Duration.ofSeconds(9)).build());
    assertEquals(1, e.violations().size());
    assertTrue(
        e.violations().get(0).contains("jitter 1.2 x retryPeriod PT9S = PT10.8S"), e.getMessage());
  }

  @Test
  void missingLockAndBadTimeoutsAreReported() {
    ElectorConfigException e =
        assertThrows(
            ElectorConfigException.class,
            () ->
                ElectorConfig.newBuilder()
                    .callbacks(callbacks)
                    .callTimeout(Duration.ofSeconds(11))
                    .maxBackoff(Duration.ofSeconds(1))
                    .build());
    assertTrue(e.getMessage().contains("lock is missing"));
    assertTrue(e.getMessage().contains("callTimeout PT11S must not exceed renewDeadline"));
    assertTrue(e.getMessage().contains("maxBackoff PT1S must be at least retryPeriod"));
  }

  @Test
  void theDefaultBackoffCapGrowsWithALongRetryPeriod() {
    ElectorConfig slow =
        valid()
            .leaseDuration(Duration.ofSeconds(150))
            .renewDeadline(Duration.ofSeconds(100))
            .retryPeriod(Duration.ofSeconds(20))
            .build();
    assertEquals(Duration.ofSeconds(20), slow.maxBackoff(), "the default cap is the retryPeriod");
    assertEquals(ElectorConfig.DEFAULT_MAX_BACKOFF, valid().build().maxBackoff());
  }

  @Test
  void toBuilderCopiesAndStaysEditable() {
    ElectorConfig base = valid().leaseDuration(Duration.ofSeconds(20)).build();
    ElectorConfig variant = base.toBuilder().renewDeadline(Duration.ofSeconds(15)).build();
    assertEquals(Duration.ofSeconds(20), variant.leaseDuration());
    assertEquals(Duration.ofSeconds(15), variant.renewDeadline());
    assertEquals(Duration.ofSeconds(10), base.renewDeadline());
  }

  @Test
  void aCopyWithShorterTimingsDerivesItsDefaultsAnew() {
    ElectorConfig base = valid().build();
    ElectorConfig fast =
        base.toBuilder()
            .leaseDuration(Duration.ofSeconds(4))
            .renewDeadline(Duration.ofSeconds(3))
            .retryPeriod(Duration.ofSeconds(1))
            .build();
    assertEquals(Duration.ofMillis(1500), fast.callTimeout(), "renewDeadline / 2 of the copy");
    assertEquals(Duration.ofSeconds(3), fast.closeTimeout(), "renewDeadline of the copy");
    assertEquals(Duration.ofSeconds(1), fast.healthTolerance(), "retryPeriod of the copy");
    assertEquals(ElectorConfig.DEFAULT_MAX_BACKOFF, fast.maxBackoff());
  }

  @Test
  void aCopyWithLongerTimingsDoesNotKeepTheOldDerivedValues() {
    ElectorConfig slow =
        valid().build().toBuilder()
            .leaseDuration(Duration.ofSeconds(90))
            .renewDeadline(Duration.ofSeconds(60))
            .retryPeriod(Duration.ofSeconds(20))
            .build();
    assertEquals(Duration.ofSeconds(30), slow.callTimeout());
    assertEquals(Duration.ofSeconds(60), slow.closeTimeout());
    assertEquals(Duration.ofSeconds(20), slow.maxBackoff(), "at least the retryPeriod");
  }

  @Test
  void aCopyKeepsWhatTheCallerSet() {
    ElectorConfig base =
        valid().callTimeout(Duration.ofSeconds(2)).closeTimeout(Duration.ofSeconds(4)).build();
    ElectorConfig copy = base.toBuilder().leaseDuration(Duration.ofSeconds(30)).build();
    assertEquals(Duration.ofSeconds(2), copy.callTimeout());
    assertEquals(Duration.ofSeconds(4), copy.closeTimeout());
  }

  @Test
  void nullIsRejectedAtTheCall() {
    NullPointerException e =
        assertThrows(
            NullPointerException.class, () -> ElectorConfig.newBuilder().leaseDuration(null));
    assertEquals("leaseDuration", e.getMessage());
  }
}
