package dev.elector;

import dev.elector.lock.LockFailure;
import org.slf4j.Logger;

/**
 * Logs a streak of lock failures without flooding: the first failure of a streak and a summary at
 * most once a minute at WARN (ERROR for configuration problems such as a missing permission), the
 * rest at DEBUG, and one INFO line when the streak ends.
 */
final class FailureLog {
  private static final long SUMMARY_INTERVAL_NANOS = 60_000_000_000L;

  private final Logger log;
  private final String subject;
  private long streak;
  private long suppressed;
  private long lastLoudNanos;

  FailureLog(Logger log, String subject) {
    this.log = log;
    this.subject = subject;
  }

  void failure(String action, LockFailure failure, long now, String consequence) {
    streak++;
    boolean loud = streak == 1 || now - lastLoudNanos >= SUMMARY_INTERVAL_NANOS;
    if (!loud) {
      suppressed++;
      log.debug("{}: {} failed again ({} in a row): {}", subject, action, streak, failure);
      return;
    }
    String summary = streak == 1 ? "" : " (" + streak + " failures in a row, " + suppressed
        + " not logged)";
    if (failure.kind().isConfigurationProblem()) {
      log.error("{}: {} failed{}: {}. {}", subject, action, summary, failure.message(), consequence);
    } else {
      log.warn("{}: {} failed{}: {}. {}", subject, action, summary, failure, consequence);
    }
    lastLoudNanos = now;
    suppressed = 0;
  }

  void success(String action) {
    if (streak > 0) {
      log.info("{}: {} succeeded again after {} failures", subject, action, streak);
    }
    streak = 0;
    suppressed = 0;
  }

  long streak() {
    return streak;
  }
}
