package dev.elector.quarkus.internal;

import dev.elector.ElectorConfig;
import dev.elector.kube.LockKind;
import dev.elector.kube.PodEnvironment;
import dev.elector.kube.WatchMode;
import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The elector's settings, read at startup from {@code quarkus.elector.*}. Every setting left unset
 * takes the default of Elector's core builder ({@link ElectorConfig.Builder}) or lock builder, so
 * the defaults are the library's own, and every value goes through the same checks: a violation
 * fails the startup with the core's message, naming the property to change. All problems are
 * reported at once.
 *
 * <p>The settings, their names and their values are those of the Spring Boot integration's {@code
 * elector.*} (there {@code elector.lock-kind}, {@code elector.lease-duration}, ...).
 *
 * <p>Durations take Quarkus' formats: {@code 15s}, {@code 500ms}, {@code PT15S}; a bare number is
 * seconds, Quarkus' own rule, so {@code 15} is 15 s (the Spring integration refuses a bare number,
 * which Spring reads as milliseconds).
 *
 * <p>Internal: applications set these properties and never name this interface. Quarkus requires a
 * mapping interface to be public, so it lives in this package.
 */
@ConfigMapping(prefix = "quarkus.elector")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface ElectorRuntimeConfig {
  /**
   * The kind of Kubernetes object that holds the lock: {@code lease} or {@code configmap} ({@code
   * config-map} is accepted too); default {@code lease}.
   */
  @WithDefault("lease")
  @WithConverter(LockKindConverter.class)
  LockKind lockKind();

  /**
   * The name of the lock object, shared by every replica of the application; default {@code
   * quarkus.application.name}. A Kubernetes object name: lower case letters, digits, '-' and '.'.
   */
  Optional<String> name();

  /**
   * The namespace of the lock object; default the pod's own: {@code POD_NAMESPACE} (set it from the
   * Downward API, {@code fieldRef: metadata.namespace}), else the service account's namespace file
   * ({@value PodEnvironment#NAMESPACE_FILE}). There is no fallback to {@code default}: without
   * either, the startup fails and says so. The namespace of {@code quarkus.kubernetes-client} is
   * not used.
   */
  Optional<String> namespace();

  /**
   * This replica's identity, written into the lock as its holder; unique among the replicas.
   * Default {@code POD_NAME} (else the host name) followed by {@code _} and a random suffix per
   * process.
   */
  Optional<String> identity();

  /**
   * How long a lease lasts after each renewal; default {@link ElectorConfig#DEFAULT_LEASE_DURATION}
   * (15 s).
   */
  Optional<Duration> leaseDuration();

  /**
   * How long the leader keeps trying to renew before it steps down; shorter than {@code
   * lease-duration}; default {@link ElectorConfig#DEFAULT_RENEW_DEADLINE} (10 s).
   */
  Optional<Duration> renewDeadline();

  /**
   * How often the leader renews and a candidate retries; {@code jitter} times this must be shorter
   * than {@code renew-deadline}; default {@link ElectorConfig#DEFAULT_RETRY_PERIOD} (2 s).
   */
  Optional<Duration> retryPeriod();

  /**
   * Candidates wait a random time between {@code retry-period} and jitter times {@code
   * retry-period}; from 1.0 to 10.0; default {@link ElectorConfig#DEFAULT_JITTER} (1.2).
   */
  OptionalDouble jitter();

  /**
   * How long the elector waits for one lock call; at most {@code renew-deadline}; default {@code
   * renew-deadline} / 2.
   */
  Optional<Duration> callTimeout();

  /**
   * The cap on the back-off after consecutive errors; at least {@code retry-period}; default {@link
   * ElectorConfig#DEFAULT_MAX_BACKOFF} (16 s), or {@code retry-period} if longer.
   */
  Optional<Duration> maxBackoff();

  /**
   * How long the shutdown waits for the {@link dev.elector.quarkus.LeadershipRevoked} observers and
   * the release; default {@code renew-deadline}.
   */
  Optional<Duration> closeTimeout();

  /**
   * How far past {@code lease-duration} a leader may go without renewing before the liveness check
   * reports it down; default {@code retry-period}.
   */
  Optional<Duration> healthTolerance();

  /**
   * The lock's own bound on each API request, at most {@code call-timeout}; default {@code
   * call-timeout}, up to 5 s.
   */
  Optional<Duration> requestTimeout();

  /**
   * Whether the leader releases the lock when the application shuts down, so that another replica
   * takes over at once instead of after {@code lease-duration}; default true.
   */
  Optional<Boolean> releaseOnClose();

  /**
   * Whether a follower watches the lock object instead of polling it every {@code retry-period};
   * default true.
   */
  Optional<Boolean> watch();

  /**
   * How a following replica watches: {@code auto} (one shared watch of the namespace's locks when
   * the identity may list them, else one watch of its own lock), {@code shared} or {@code
   * per-lock}; default {@code auto}.
   */
  Optional<WatchMode> watchMode();

  /**
   * Whether to record client-go's leader election Events ({@code <identity> became leader}) on the
   * lock object; needs {@code create} on {@code events}; default false.
   */
  Optional<Boolean> recordEvents();

  /**
   * The component the Events name as their source; needs {@code record-events=true}; default {@code
   * elector}.
   */
  Optional<String> eventComponent();

  /**
   * Whether this process leads alone, on a lock in its own memory: no cluster, no namespace, no
   * Kubernetes client calls; for local runs and tests only, since every process started so leads.
   * Default: true in dev and test mode when {@code namespace} is not set and the process does not
   * run in a pod, false otherwise (a production start without a namespace fails and says so).
   */
  Optional<Boolean> leadAlone();
}
