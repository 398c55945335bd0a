package dev.elector.bench;

import java.util.Locale;

/**
 * The goals RESULTS.md checks, in the order of its table: each one's words, with {@code {0}},
 * {@code {1}}, ... standing for its limits, and the limits themselves.
 */
enum Goal {
  /** Elector's graceful handover, median from the close call: below this many ms. */
  HANDOVER_MEDIAN("graceful handover median < {0} ms", 100),
  /**
   * Elector's crash failover, median from the last renewal: at most the lease plus this many ms.
   */
  FAILOVER_AFTER_LEASE("crash failover, n={n}: median after the last renewal ≤ {bound} ms", 100),
  /** Elector's crash failover, median from the stop: below both Java anchors. */
  FAILOVER_BELOW_ANCHORS("crash failover, n={n}: median from the stop below both anchors"),
  /** An acquire of a free Lease, median: at most the create floor plus this many ms. */
  ACQUIRE_OVER_CREATE_FLOOR("acquire median ≤ create floor + {0} ms", 2),
  /** Elector's graceful handover, median: at most the handover floor plus this many ms. */
  HANDOVER_OVER_FLOOR("graceful handover median ≤ handover floor + {0} ms", 5),
  /** API requests of 1 leader and 9 followers: at least this many times fewer than the anchors'. */
  FEWER_REQUESTS("API requests (1 leader + 9 followers) ≥ {0}× fewer than the better anchor", 5),
  /** A renewal, JMH median: at most this many percent over the bare read+replace. */
  RENEW_NEAR_FLOOR("renew within {0}% of the bare read+replace floor (JMH median)", 5),
  /** 1,000 default-built electors: at most {0} threads added, all on time, leading within {1} s. */
  THOUSAND_DEFAULT_BUILDERS(
      "1,000 electors with default builders: ≤ {0} platform threads added at peak, all renewing"
          + " on time, all leading within {1} s",
      16, 3),
  /** 1,000 electors tuned for many locks: all on time with at most this many threads added. */
  THOUSAND_TUNED("1,000 electors renewing on time with ≤ {0} platform threads", 8),
  /** 10,000 default-built electors at the long timings: all leading and renewing on time. */
  TEN_THOUSAND(
      "10,000 electors on 10,000 Leases (default builders, one shared watch, timings {timings}):"
          + " all leading and renewing on time");

  private final String words;
  private final double[] limits;

  Goal(String words, double... limits) {
    this.words = words;
    this.limits = limits.clone();
  }

  /** The first limit. */
  double limit() {
    return limit(0);
  }

  double limit(int i) {
    return limits[i];
  }

  /** The goal's words with its limits written in. */
  String words() {
    String text = words;
    for (int i = 0; i < limits.length; i++) {
      text = text.replace("{" + i + "}", number(limits[i]));
    }
    return text;
  }

  private static String number(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%s", v);
  }
}
