package dev.elector.spring.autoconfigure;

import dev.elector.kube.LockKind;
import dev.elector.kube.WatchMode;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

/**
 * The {@code elector.*} properties: one leader elector for the application. The timings default to
 * the core's ({@code ElectorConfig.DEFAULT_*}), written out so that the configuration metadata
 * shows them.
 *
 * <p>Internal: applications set the properties, which the configuration metadata describes, and
 * never name this class; they use the {@code LeaderElector} bean.
 */
@ConfigurationProperties("elector")
class ElectorProperties {

  /** Which Kubernetes client the lock uses. */
  enum Backend {
    /** The one whose Elector module is on the class path; when both are, set elector.backend. */
    AUTO,
    /** client-java (elector-k8s-lease, elector-configmap) on the ApiClient bean or the default. */
    CLIENT_JAVA,
    /** fabric8 (elector-fabric8) on the application's KubernetesClient bean. */
    FABRIC8
  }

  /**
   * Whether to create and run the leader elector. When false, no replica leads: @LeaderOnly methods
   * are skipped (elector.lead-when-disabled=true makes this process lead alone instead, for local
   * runs and tests).
   */
  private boolean enabled = true;

  /** Which Kubernetes client to use: auto, client-java or fabric8. */
  private Backend backend = Backend.AUTO;

  /** The kind of object that holds the lock: lease or configmap (config-map is accepted too). */
  private LockKind lockKind = LockKind.LEASE;

  /** The name of the lock object that all replicas share. Default: spring.application.name. */
  private @Nullable String name;

  /**
   * The namespace of the lock object. Default: the pod's own (POD_NAMESPACE, else the service
   * account's namespace file); never "default".
   */
  private @Nullable String namespace;

  /**
   * This replica's identity, written into the lock as holder. Default: POD_NAME (else the host
   * name) with a random per-process suffix.
   */
  private @Nullable String identity;

  /**
   * The role named in Spring Integration's OnGrantedEvent and OnRevokedEvent (the @Role of the
   * endpoints to start on the leader). Default: the lock name.
   */
  private @Nullable String role;

  /**
   * How long a lease lasts without renewal before another replica may take it. Every duration
   * property needs its unit (15s, 500ms, PT15S): a bare number is refused.
   */
  private Duration leaseDuration = Duration.ofSeconds(15);

  /** How long the leader keeps trying to renew before it steps down; below lease-duration. */
  private Duration renewDeadline = Duration.ofSeconds(10);

  /** How often candidates try to acquire, and the leader to renew. */
  private Duration retryPeriod = Duration.ofSeconds(2);

  /**
   * Candidates wait a random time between retry-period and jitter times retry-period; from 1.0 to
   * 10.0.
   */
  private double jitter = 1.2;

  /**
   * How long the elector waits for one lock call; at most renew-deadline. Default: renew-deadline /
   * 2.
   */
  private @Nullable Duration callTimeout;

  /**
   * The cap on the back-off after consecutive errors; at least retry-period. Default: 16s, or
   * retry-period if longer.
   */
  private @Nullable Duration maxBackoff;

  /**
   * How long shutdown waits for the stop callbacks and the release of the lock. Default:
   * renew-deadline.
   */
  private @Nullable Duration closeTimeout;

  /**
   * How far past lease-duration a leader may go without renewing before the health check reports it
   * down. Default: retry-period.
   */
  private @Nullable Duration healthTolerance;

  /**
   * The lock's own bound on each API request; at most call-timeout. Default: call-timeout, up to
   * 5s.
   */
  private @Nullable Duration requestTimeout;

  /** Whether followers watch the lock (a handover in milliseconds) instead of polling it. */
  private boolean watch = true;

  /**
   * How followers watch: auto (one watch per namespace where the identity may list the locks, else
   * one per lock), shared or per-lock.
   */
  private WatchMode watchMode = WatchMode.AUTO;

  /** Whether to record Kubernetes Events for leadership changes (needs create on events). */
  private boolean recordEvents = false;

  /** The component the Events name as their source; needs record-events=true. Default: elector. */
  private @Nullable String eventComponent;

  /** Whether shutdown releases the lock, so that another replica takes over at once. */
  private boolean releaseOnClose = true;

  /**
   * Whether the candidacy waits until the application is ready (ApplicationReadyEvent); when false
   * it starts with the application context.
   */
  private boolean startWhenReady = true;

  /** Whether to publish Spring Integration's OnGrantedEvent and OnRevokedEvent too. */
  private boolean integrationEvents = true;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Backend getBackend() {
    return backend;
  }

  public void setBackend(Backend backend) {
    this.backend = backend;
  }

  public LockKind getLockKind() {
    return lockKind;
  }

  public void setLockKind(LockKind lockKind) {
    this.lockKind = lockKind;
  }

  /** The former name of lock-kind, still read: the same setting. */
  @DeprecatedConfigurationProperty(replacement = "elector.lock-kind")
  public LockKind getLock() {
    return lockKind;
  }

  /** Sets lock-kind under its former name. */
  public void setLock(LockKind lock) {
    this.lockKind = lock;
  }

  public @Nullable String getName() {
    return name;
  }

  public void setName(@Nullable String name) {
    this.name = name;
  }

  public @Nullable String getNamespace() {
    return namespace;
  }

  public void setNamespace(@Nullable String namespace) {
    this.namespace = namespace;
  }

  public @Nullable String getIdentity() {
    return identity;
  }

  public void setIdentity(@Nullable String identity) {
    this.identity = identity;
  }

  public @Nullable String getRole() {
    return role;
  }

  public void setRole(@Nullable String role) {
    this.role = role;
  }

  public Duration getLeaseDuration() {
    return leaseDuration;
  }

  public void setLeaseDuration(Duration leaseDuration) {
    this.leaseDuration = leaseDuration;
  }

  public Duration getRenewDeadline() {
    return renewDeadline;
  }

  public void setRenewDeadline(Duration renewDeadline) {
    this.renewDeadline = renewDeadline;
  }

  public Duration getRetryPeriod() {
    return retryPeriod;
  }

  public void setRetryPeriod(Duration retryPeriod) {
    this.retryPeriod = retryPeriod;
  }

  public double getJitter() {
    return jitter;
  }

  public void setJitter(double jitter) {
    this.jitter = jitter;
  }

  public @Nullable Duration getCallTimeout() {
    return callTimeout;
  }

  public void setCallTimeout(@Nullable Duration callTimeout) {
    this.callTimeout = callTimeout;
  }

  public @Nullable Duration getMaxBackoff() {
    return maxBackoff;
  }

  public void setMaxBackoff(@Nullable Duration maxBackoff) {
    this.maxBackoff = maxBackoff;
  }

  public @Nullable Duration getHealthTolerance() {
    return healthTolerance;
  }

  public void setHealthTolerance(@Nullable Duration healthTolerance) {
    this.healthTolerance = healthTolerance;
  }

  public @Nullable Duration getRequestTimeout() {
    return requestTimeout;
  }

  public void setRequestTimeout(@Nullable Duration requestTimeout) {
    this.requestTimeout = requestTimeout;
  }

  public @Nullable Duration getCloseTimeout() {
    return closeTimeout;
  }

  public void setCloseTimeout(@Nullable Duration closeTimeout) {
    this.closeTimeout = closeTimeout;
  }

  public boolean isWatch() {
    return watch;
  }

  public void setWatch(boolean watch) {
    this.watch = watch;
  }

  public WatchMode getWatchMode() {
    return watchMode;
  }

  public void setWatchMode(WatchMode watchMode) {
    this.watchMode = watchMode;
  }

  public boolean isRecordEvents() {
    return recordEvents;
  }

  public void setRecordEvents(boolean recordEvents) {
    this.recordEvents = recordEvents;
  }

  public @Nullable String getEventComponent() {
    return eventComponent;
  }

  public void setEventComponent(@Nullable String eventComponent) {
    this.eventComponent = eventComponent;
  }

  public boolean isReleaseOnClose() {
    return releaseOnClose;
  }

  public void setReleaseOnClose(boolean releaseOnClose) {
    this.releaseOnClose = releaseOnClose;
  }

  public boolean isStartWhenReady() {
    return startWhenReady;
  }

  public void setStartWhenReady(boolean startWhenReady) {
    this.startWhenReady = startWhenReady;
  }

  public boolean isIntegrationEvents() {
    return integrationEvents;
  }

  public void setIntegrationEvents(boolean integrationEvents) {
    this.integrationEvents = integrationEvents;
  }
}
