package dev.elector;

import dev.elector.internal.time.TokenBucket;
import dev.elector.lock.LockFailure;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * Logs lock failures without flooding, however they come: one long streak or many short ones (a
 * flapping API server that fails every other call). At most one failure is reported per minute, at
 * WARN (ERROR for configuration problems such as a missing permission), with a count of the
 * failures and streaks held back since the previous report; the rest go to DEBUG. A streak that was
 * reported gets one INFO line when it ends; one that was not ends at DEBUG.
 */
final class FailureLog {
  static final long REPORT_INTERVAL_NANOS = 60_000_000_000L;

  /** One report, then one per {@link #REPORT_INTERVAL_NANOS}. */
  private final TokenBucket reports = TokenBucket.of(1, Duration.ofNanos(REPORT_INTERVAL_NANOS));

  private final Logger log;
  private final String subject;
  private long streak;
  private boolean streakReported;
  private long heldBack;
  private long streaksHeldBack;

  FailureLog(Logger log, String subject) {
    this.log = log;
    this.subject = subject;
  }

  void failure(String action, LockFailure failure, long now, String consequence) {
    streak++;
    boolean report = reports.tryAcquire(now) == 0;
    if (!report) {
      heldBack++;
      if (streak == 1) {
        streaksHeldBack++;
      }
      log.debug("{}: {} failed ({} in a row): {}", subject, action, streak, failure);
      return;
    }
    String summary =
        heldBack == 0
            ? ""
            : " ("
                + heldBack
                + " more failures in "
                + streaksHeldBack
                + " streaks since the last report were logged at DEBUG)";
    String inARow = streak == 1 ? "" : " " + streak + " times in a row";
    if (failure.kind().isConfigurationProblem()) {
      log.error(
          "{}: {} failed{}: {}. {}{}",
          subject,
          action,
          inARow,
          failure.message(),
          consequence,
          summary);
    } else {
      log.warn("{}: {} failed{}: {}. {}{}", subject, action, inARow, failure, consequence, summary);
    }
    heldBack = 0;
    streaksHeldBack = 0;
    streakReported = true;
  }

  void success(String action) {
    if (streak > 0) {
      if (streakReported) {
        log.info("{}: {} succeeded again after {} failures", subject, action, streak);
      } else {
        log.debug("{}: {} succeeded again after {} failures", subject, action, streak);
      }
    }
    streak = 0;
    streakReported = false;
  }

  long streak() {
    return streak;
  }
}
