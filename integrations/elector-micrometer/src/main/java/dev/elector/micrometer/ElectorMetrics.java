package dev.elector.micrometer;

import dev.elector.CallOutcome;
import dev.elector.ElectorStats;
import dev.elector.LeaderElector;
import dev.elector.LockCall;
import dev.elector.TermEnd;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for one or many electors.
 *
 * <pre>{@code
 * ElectorMetrics.of(elector).bindTo(registry);
 * }</pre>
 *
 * <p>Every meter is read when the registry is scraped or published ({@link Gauge}, {@link
 * FunctionCounter}, {@link FunctionTimer} over {@link LeaderElector#stats()} and {@link
 * LeaderElector#isLeader()}): nothing runs on the elector's threads, so metrics can never delay a
 * renewal. Each meter carries the tags {@value #TAG_NAME} (the lock's name), {@value #TAG_IDENTITY}
 * (the candidate's identity) and {@value #TAG_LOCK} (the lock's description, such as {@code Lease
 * ns/name}), plus the common tags given to the builder.
 *
 * <table>
 *   <caption>Meters, and their names in Prometheus</caption>
 *   <tr><th>meter</th><th>Prometheus</th><th>what</th></tr>
 *   <tr><td>{@value #LEADER}</td><td>{@code leader_election_master_status}</td>
 *       <td>gauge, 1 while leading, else 0: client-go's leader metric, so its dashboards and
 *       alerts work (they select on {@code name})</td></tr>
 *   <tr><td>{@value #CALLS}</td><td>{@code elector_lock_calls_total}</td>
 *       <td>lock calls, tagged {@code call} (read, create, update) and {@code outcome} (ok,
 *       absent, malformed, conflict, failed, timeout)</td></tr>
 *   <tr><td>{@value #LATENCY}</td><td>{@code elector_lock_latency_seconds_count}, {@code _sum}</td>
 *       <td>time of the answered or timed-out calls, tagged {@code purpose} (read, acquire,
 *       renew, release)</td></tr>
 *   <tr><td>{@value #TERMS_STARTED}</td><td>{@code elector_terms_started_total}</td>
 *       <td>terms this candidate started</td></tr>
 *   <tr><td>{@value #TERMS_ENDED}</td><td>{@code elector_terms_ended_total}</td>
 *       <td>terms ended, tagged {@code reason} (renew_deadline_exceeded, lock_lost, closed, stepped_down)</td></tr>
 *   <tr><td>{@value #FOLLOWING}</td><td>{@code elector_following}</td>
 *       <td>gauge tagged {@code mode} (watching, polling): 1 for how this candidate follows now,
 *       0 for the other; both 0 while it leads</td></tr>
 *   <tr><td>{@value #DEFERRED}</td><td>{@code elector_calls_deferred_total}</td>
 *       <td>calls held back by the call budget</td></tr>
 *   <tr><td>{@value #LATE}</td><td>{@code elector_calls_late_total}</td>
 *       <td>answers that came after their call timed out</td></tr>
 *   <tr><td>{@value #FAILURES}</td><td>{@code elector_failures_consecutive}</td>
 *       <td>gauge: a candidate's failed calls in a row, 0 after a success (a leader's failing
 *       renewals show in {@code elector_lock_calls_total{outcome="failed"}})</td></tr>
 *   <tr><td>{@value #HEALTHY}</td><td>{@code elector_healthy}</td>
 *       <td>gauge, 1 while {@link ElectorStats#healthy()}, else 0</td></tr>
 * </table>
 *
 * <p>Immutable and thread-safe; it may be bound to several registries. The meters stay registered
 * after an elector closes (leading 0); remove them from the registry if the elector is gone for
 * good.
 */
public final class ElectorMetrics implements MeterBinder {
  /** client-go's leader gauge; {@code leader_election_master_status} in Prometheus. */
  public static final String LEADER = "leader.election.master.status";

  /** Lock calls by kind and outcome. */
  public static final String CALLS = "elector.lock.calls";

  /** Latency of lock calls by purpose. */
  public static final String LATENCY = "elector.lock.latency";

  /** Terms started. */
  public static final String TERMS_STARTED = "elector.terms.started";

  /** Terms ended, by reason. */
  public static final String TERMS_ENDED = "elector.terms.ended";

  /** How a follower learns of changes: watching or polling. */
  public static final String FOLLOWING = "elector.following";

  /** Calls held back by the call budget. */
  public static final String DEFERRED = "elector.calls.deferred";

  /** Answers that arrived after their call timed out. */
  public static final String LATE = "elector.calls.late";

  /** Failed calls in a row. */
  public static final String FAILURES = "elector.failures.consecutive";

  /** Whether the elector's health check passes. */
  public static final String HEALTHY = "elector.healthy";

  /** Tag with the lock's name, as in client-go's gauge. */
  public static final String TAG_NAME = "name";

  /** Tag with the candidate's identity. */
  public static final String TAG_IDENTITY = "identity";

  /** Tag with the lock's description. */
  public static final String TAG_LOCK = "lock";

  private final Map<LeaderElector, String> electors;
  private final Tags tags;

  private ElectorMetrics(Builder builder) {
    this.electors = Collections.unmodifiableMap(new LinkedHashMap<>(builder.electors));
    this.tags = builder.tags;
  }

  /**
   * Meters for these electors, each named after its lock ({@link #lockName}).
   *
   * @throws IllegalStateException if none is given or one is given twice
   */
  public static ElectorMetrics of(LeaderElector... electors) {
    Builder builder = newBuilder();
    for (LeaderElector elector : Objects.requireNonNull(electors, "electors")) {
      builder.elector(elector);
    }
    return builder.build();
  }

  /** A builder, for lock names of your own or common tags. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * The default {@value #TAG_NAME} of an elector's meters: its lock's description after the last
   * {@code /} or space, which for the Kubernetes locks ({@code Lease ns/name}) is the object's
   * name, the value client-go's gauge carries.
   */
  public static String lockName(LeaderElector elector) {
    String described = elector.describe();
    int cut = Math.max(described.lastIndexOf('/'), described.lastIndexOf(' '));
    String name = described.substring(cut + 1);
    return name.isBlank() ? described : name;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    electors.forEach(
        (elector, name) ->
            bind(
                registry,
                elector,
                tags.and(
                    Tag.of(TAG_NAME, name),
                    Tag.of(TAG_IDENTITY, elector.identity()),
                    Tag.of(TAG_LOCK, elector.describe()))));
  }

  private static void bind(MeterRegistry registry, LeaderElector elector, Tags base) {
    Gauge.builder(LEADER, elector, e -> e.isLeader() ? 1 : 0)
        .tags(base)
        .description("1 while this candidate leads the lock, else 0")
        .strongReference(true)
        .register(registry);
    for (LockCall call : LockCall.values()) {
      for (CallOutcome outcome : CallOutcome.values()) {
        counter(
            registry,
            CALLS,
            elector,
            s -> s.calls(call, outcome),
            base.and(Tag.of("call", lower(call)), Tag.of("outcome", lower(outcome))),
            "lock calls made (answered or timed out), by what they were for and outcome");
      }
      FunctionTimer.builder(
              LATENCY,
              elector,
              e -> e.stats().calls(call),
              e -> e.stats().latency(call).toNanos(),
              TimeUnit.NANOSECONDS)
          .tags(base.and(Tag.of("purpose", lower(call))))
          .description("time of the lock calls that were answered or timed out, by purpose")
          .register(registry);
    }
    counter(
        registry,
        TERMS_STARTED,
        elector,
        ElectorStats::termsStarted,
        base,
        "terms this candidate started");
    for (TermEnd reason : TermEnd.values()) {
      counter(
          registry,
          TERMS_ENDED,
          elector,
          s -> s.termsEnded(reason),
          base.and(Tag.of("reason", lower(reason))),
          "terms this candidate ended, by reason");
    }
    Map<String, Predicate<ElectorStats>> modes =
        Map.of("watching", ElectorStats::watching, "polling", ElectorStats::polling);
    modes.forEach(
        (mode, following) ->
            gauge(
                registry,
                FOLLOWING,
                elector,
                s -> following.test(s) ? 1 : 0,
                base.and(Tag.of("mode", mode)),
                "1 for how this candidate follows the lock now (watching or polling), else 0"));
    counter(
        registry,
        DEFERRED,
        elector,
        ElectorStats::deferredCalls,
        base,
        "lock calls held back by the call budget");
    counter(
        registry,
        LATE,
        elector,
        ElectorStats::lateResults,
        base,
        "answers that arrived after their call had timed out");
    gauge(
        registry,
        FAILURES,
        elector,
        ElectorStats::consecutiveFailures,
        base,
        "failed lock calls in a row");
    Gauge.builder(HEALTHY, elector, e -> e.stats().healthy() ? 1 : 0)
        .tags(base)
        .description("1 while the elector's health check passes, else 0")
        .strongReference(true)
        .register(registry);
  }

  private static void counter(
      MeterRegistry registry,
      String name,
      LeaderElector elector,
      ToDoubleFunction<ElectorStats> value,
      Tags tags,
      String description) {
    FunctionCounter.builder(name, elector, e -> value.applyAsDouble(e.stats()))
        .tags(tags)
        .description(description)
        .register(registry);
  }

  private static void gauge(
      MeterRegistry registry,
      String name,
      LeaderElector elector,
      ToDoubleFunction<ElectorStats> value,
      Tags tags,
      String description) {
    Gauge.builder(name, elector, e -> value.applyAsDouble(e.stats()))
        .tags(tags)
        .description(description)
        .strongReference(true)
        .register(registry);
  }

  private static String lower(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }

  /** Builds {@link ElectorMetrics}; add at least one elector. */
  public static final class Builder {
    // LeaderElector keeps Object's identity equality
    private final Map<LeaderElector, String> electors = new LinkedHashMap<>();
    private Tags tags = Tags.empty();

    private Builder() {}

    /** Adds an elector, its meters tagged with {@link #lockName(LeaderElector)}. */
    public Builder elector(LeaderElector elector) {
      Objects.requireNonNull(elector, "elector");
      return elector(elector, lockName(elector));
    }

    /**
     * Adds an elector whose meters carry {@code name} as {@value #TAG_NAME}, for example the name a
     * Go candidate of the same election reports.
     *
     * @throws IllegalArgumentException if the name is blank or the elector was already added
     */
    public Builder elector(LeaderElector elector, String name) {
      Objects.requireNonNull(elector, "elector");
      Objects.requireNonNull(name, "name");
      if (name.isBlank()) {
        throw new IllegalArgumentException(
            "the name of "
                + elector
                + " is blank; pass the lock's"
                + " name, or use elector(elector) for the default");
      }
      if (electors.containsKey(elector)) {
        throw new IllegalArgumentException(
            elector
                + " was added twice; add each elector once,"
                + " or its meters would be registered twice");
      }
      electors.put(elector, name);
      return this;
    }

    /** Tags added to every meter, such as the application's name; default none. */
    public Builder tags(Iterable<Tag> tags) {
      this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
      return this;
    }

    /**
     * Builds the binder.
     *
     * @throws IllegalStateException if no elector was added, or a common tag clashes with the tags
     *     the meters carry themselves
     */
    public ElectorMetrics build() {
      List<String> problems = new ArrayList<>();
      if (electors.isEmpty()) {
        problems.add("no elector was added; call elector(...) at least once");
      }
      for (Tag tag : tags) {
        if (List.of(
                TAG_NAME, TAG_IDENTITY, TAG_LOCK, "call", "outcome", "purpose", "reason", "mode")
            .contains(tag.getKey())) {
          problems.add(
              "common tag \""
                  + tag.getKey()
                  + "\" clashes with a tag the meters set"
                  + " themselves; rename it");
        }
      }
      if (!problems.isEmpty()) {
        throw new IllegalStateException(
            "cannot build ElectorMetrics: " + String.join("; ", problems));
      }
      return new ElectorMetrics(this);
    }
  }
}
