package dev.elector;

import dev.elector.lock.LeaderLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The rules {@link ElectorConfig.Builder#build()} checks: a lock with a non-blank identity,
 * callbacks, positive durations, and client-go's ordering {@code leaseDuration > renewDeadline >
 * jitter × retryPeriod}, with callTimeout at most renewDeadline and maxBackoff at least
 * retryPeriod. Each violation is one {@link ConfigProblem} naming the setting, its value, the rule
 * and the fix; a rule between two settings is checked only when both are valid on their own.
 */
final class ConfigRules {
  private ConfigRules() {}

  /** Every violation, in a fixed order; empty when the settings are valid. */
  static List<ConfigProblem> violations(ConfigValues v) {
    List<ConfigProblem> problems = new ArrayList<>();
    LeaderLock lock = v.lock;
    if (lock == null) {
      problems.add(
          new ConfigProblem(
              "lock", "", "is missing", "set lock(...) to a Lease, ConfigMap or in-memory lock"));
    } else {
      String identity = lock.identity();
      if (identity == null || identity.isBlank()) {
        problems.add(
            new ConfigProblem(
                "identity",
                identity == null ? "" : identity,
                "of " + lock.describe() + " is blank",
                "give every candidate a unique identity, for example the pod name with a"
                    + " per-process suffix"));
      }
    }
    if (v.callbacks == null) {
      problems.add(
          new ConfigProblem(
              "callbacks",
              "",
              "are missing",
              "set callbacks(LeaderCallbacks.of(onStart, onStop))"));
    }
    problems.addAll(timings(v));
    return problems;
  }

  /** The violations of the timing settings alone, in a fixed order; no lock or callbacks needed. */
  static List<ConfigProblem> timings(ConfigValues v) {
    List<ConfigProblem> problems = new ArrayList<>();
    Duration callTimeout = v.callTimeout;
    Duration maxBackoff = v.maxBackoff;
    Duration closeTimeout = v.closeTimeout;
    Duration healthTolerance = v.healthTolerance;
    boolean leaseOk =
        positive(problems, "leaseDuration", v.leaseDuration, ConfigValues.DEFAULT_LEASE_DURATION);
    boolean renewOk =
        positive(problems, "renewDeadline", v.renewDeadline, ConfigValues.DEFAULT_RENEW_DEADLINE);
    boolean retryOk =
        positive(problems, "retryPeriod", v.retryPeriod, ConfigValues.DEFAULT_RETRY_PERIOD);
    boolean backoffOk =
        maxBackoff == null
            || positive(problems, "maxBackoff", maxBackoff, ConfigValues.DEFAULT_MAX_BACKOFF);
    boolean callTimeoutOk =
        callTimeout == null || positive(problems, "callTimeout", callTimeout, null);
    if (closeTimeout != null) {
      positive(problems, "closeTimeout", closeTimeout, null);
    }
    if (healthTolerance != null && healthTolerance.isNegative()) {
      problems.add(
          new ConfigProblem(
              "healthTolerance", healthTolerance.toString(), "is negative", "use zero or more"));
    }
    double jitter = v.jitter;
    boolean jitterValid = Double.isFinite(jitter) && jitter >= 1.0 && jitter <= 10.0;
    if (!jitterValid) {
      problems.add(
          new ConfigProblem(
              "jitter",
              String.valueOf(jitter),
              "must be between 1.0 and 10.0",
              "the default is " + ConfigValues.DEFAULT_JITTER));
    }
    Duration renewDeadline = v.renewDeadline;
    Duration retryPeriod = v.retryPeriod;
    if (leaseOk && renewOk && renewDeadline.compareTo(v.leaseDuration) >= 0) {
      problems.add(
          new ConfigProblem(
              "renewDeadline",
              renewDeadline.toString(),
              "must be shorter than leaseDuration " + v.leaseDuration,
              "raise leaseDuration or lower renewDeadline"));
    }
    if (!renewOk || !retryOk) {
      return problems;
    }
    if (jitterValid) {
      long jitteredNanos = (long) (jitter * retryPeriod.toNanos());
      if (renewDeadline.toNanos() <= jitteredNanos) {
        problems.add(
            new ConfigProblem(
                "renewDeadline",
                renewDeadline.toString(),
                "must be longer than jitter "
                    + jitter
                    + " x retryPeriod "
                    + retryPeriod
                    + " = "
                    + Duration.ofNanos(jitteredNanos),
                "raise renewDeadline or lower retryPeriod"));
      }
    }
    if (callTimeoutOk && callTimeout != null && callTimeout.compareTo(renewDeadline) > 0) {
      problems.add(
          new ConfigProblem(
              "callTimeout",
              callTimeout.toString(),
              "must not exceed renewDeadline "
                  + renewDeadline
                  + ", or a hung call could outlive a term",
              "lower callTimeout"));
    }
    if (backoffOk && maxBackoff != null && maxBackoff.compareTo(retryPeriod) < 0) {
      problems.add(
          new ConfigProblem(
              "maxBackoff",
              maxBackoff.toString(),
              "must be at least retryPeriod " + retryPeriod,
              "raise maxBackoff"));
    }
    return problems;
  }

  /** Whether {@code value} is positive; if not, adds the problem with the default as example. */
  private static boolean positive(
      List<ConfigProblem> problems, String name, Duration value, @Nullable Duration defaultValue) {
    if (value.isZero() || value.isNegative()) {
      String example = defaultValue == null ? "PT5S" : defaultValue + " (the default)";
      problems.add(
          new ConfigProblem(
              name, value.toString(), "must be positive", "use a duration such as " + example));
      return false;
    }
    return true;
  }
}
