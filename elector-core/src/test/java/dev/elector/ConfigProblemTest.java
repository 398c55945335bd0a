package dev.elector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.elector.lock.InMemoryLockStore;
import dev.elector.lock.LeaderLock;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each violation as data: setting, value, rule and fix, and the sentence they make. */
class ConfigProblemTest {
  private static final LeaderCallbacks CALLBACKS = LeaderCallbacks.of(t -> {}, (t, r) -> {});

  @Test
  void theOrderingRuleNamesTheSettingTheValueTheRuleAndTheFix() {
    List<ConfigProblem> problems =
        ElectorConfig.newBuilder()
            .leaseDuration(Duration.ofSeconds(10))
            .renewDeadline(Duration.ofSeconds(12))
            .timingProblems();
    assertEquals(
        List.of(
            new ConfigProblem(
                "renewDeadline",
                "PT12S",
                "must be shorter than leaseDuration PT10S",
                "raise leaseDuration or lower renewDeadline")),
        problems);
    assertEquals(
        "renewDeadline PT12S must be shorter than leaseDuration PT10S; raise leaseDuration or"
            + " lower renewDeadline",
        problems.get(0).message());
  }

  @Test
  void aNonPositiveDurationSaysSoAndSuggestsTheDefault() {
    ConfigProblem problem =
        ElectorConfig.newBuilder().retryPeriod(Duration.ZERO).timingProblems().get(0);
    assertEquals("retryPeriod", problem.setting());
    assertEquals("PT0S", problem.value());
    assertEquals("must be positive", problem.rule());
    assertEquals("use a duration such as PT2S (the default)", problem.fix());

    ConfigProblem noDefault =
        ElectorConfig.newBuilder().closeTimeout(Duration.ofSeconds(-1)).timingProblems().get(0);
    assertEquals(
        new ConfigProblem(
            "closeTimeout", "PT-1S", "must be positive", "use a duration such as PT5S"),
        noDefault);
  }

  @Test
  void jitterOutsideItsBoundsGivesTheBoundsAndTheDefault() {
    for (double jitter : new double[] {0.5, 10.5, Double.NaN, Double.POSITIVE_INFINITY}) {
      List<ConfigProblem> problems = ElectorConfig.newBuilder().jitter(jitter).timingProblems();
      assertEquals(
          List.of(
              new ConfigProblem(
                  "jitter",
                  String.valueOf(jitter),
                  "must be between 1.0 and 10.0",
                  "the default is 1.2")),
          problems);
    }
    // The bounds themselves are valid.
    assertEquals(List.of(), ElectorConfig.newBuilder().jitter(1.0).timingProblems());
    assertEquals(
        List.of(),
        ElectorConfig.newBuilder()
            .leaseDuration(Duration.ofSeconds(60))
            .renewDeadline(Duration.ofSeconds(30))
            .retryPeriod(Duration.ofSeconds(2))
            .jitter(10.0)
            .timingProblems());
  }

  @Test
  void timingProblemsNeedNoLockAndAreThoseBuildReports() {
    ElectorConfig.Builder builder =
        ElectorConfig.newBuilder()
            .renewDeadline(Duration.ofSeconds(4))
            .retryPeriod(Duration.ofSeconds(4))
            .callTimeout(Duration.ofSeconds(5))
            .maxBackoff(Duration.ofSeconds(1))
            .healthTolerance(Duration.ofMillis(-1));
    List<ConfigProblem> timings = builder.timingProblems();
    assertEquals(
        List.of("healthTolerance", "renewDeadline", "callTimeout", "maxBackoff"),
        timings.stream().map(ConfigProblem::setting).toList());
    assertEquals(List.of(), ElectorConfig.newBuilder().timingProblems());

    builder.lock(InMemoryLockStore.create("l").lockFor("me")).callbacks(CALLBACKS);
    assertEquals(timings, builder.problems());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
    assertEquals(
        "Invalid elector configuration (4 problems):"
            + timings.stream()
                .map(problem -> "\n  - " + problem.message())
                .reduce("", String::concat),
        e.getMessage());
  }

  @Test
  void theMissingLockAndCallbacksAreProblemsToo() {
    ElectorConfig.Builder builder = ElectorConfig.newBuilder();
    assertEquals(
        List.of(
            new ConfigProblem(
                "lock", "", "is missing", "set lock(...) to a Lease, ConfigMap or in-memory lock"),
            new ConfigProblem(
                "callbacks",
                "",
                "are missing",
                "set callbacks(LeaderCallbacks.of(onStart, onStop))")),
        builder.problems());
    assertEquals(
        "lock is missing; set lock(...) to a Lease, ConfigMap or in-memory lock",
        builder.problems().get(0).message());
    assertEquals(List.of(), builder.timingProblems(), "neither is a timing problem");
  }

  @Test
  void aValidBuilderHasNoProblems() {
    LeaderLock lock = InMemoryLockStore.create("l").lockFor("me");
    ElectorConfig.Builder builder = ElectorConfig.newBuilder().lock(lock).callbacks(CALLBACKS);
    assertEquals(List.of(), builder.problems());
    assertEquals(lock, builder.build().lock());
  }

  @Test
  void aFrameworkNamesEverySettingItsOwnWay() {
    Map<String, String> properties =
        Map.of(
            "renewDeadline", "app.renew-deadline",
            "retryPeriod", "app.retry-period",
            "jitter", "app.jitter");
    ConfigProblem problem =
        ElectorConfig.newBuilder()
            .renewDeadline(Duration.ofSeconds(2))
            .retryPeriod(Duration.ofSeconds(2))
            .timingProblems()
            .get(0);
    assertEquals(
        "app.renew-deadline PT2S must be longer than app.jitter 1.2 x app.retry-period PT2S ="
            + " PT2.4S; raise app.renew-deadline or lower app.retry-period",
        problem.message(properties));
    // The data stays the builder's.
    assertEquals("renewDeadline", problem.setting());
    assertEquals("must be longer than jitter 1.2 x retryPeriod PT2S = PT2.4S", problem.rule());
  }

  @Test
  void aProblemSurvivesSerialization() throws Exception {
    ConfigProblem problem = ElectorConfig.newBuilder().jitter(0.5).timingProblems().get(0);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(problem);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      assertEquals(problem, in.readObject());
    }
  }

  @Test
  void everyPartIsRequired() {
    assertThrows(NullPointerException.class, () -> new ConfigProblem("a", "b", "c", nullString()));
  }

  @SuppressWarnings("NullAway")
  private static String nullString() {
    return null;
  }
}
