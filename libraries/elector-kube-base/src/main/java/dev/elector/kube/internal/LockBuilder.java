package dev.elector.kube.internal;

import dev.elector.kube.KubeLock;
import dev.elector.kube.PodEnvironment;
import dev.elector.kube.WatchMode;
import dev.elector.time.MonotonicClock;
import dev.elector.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The one {@link KubeLock.Builder}: every backend's {@code newBuilder(client)} returns one, given
 * the object kind, the user's client and how requests go through it. Setters reject null at once;
 * {@link #build()} resolves namespace and identity and reports every problem in one {@link
 * IllegalStateException}.
 *
 * @param <C> the backend's client
 */
public final class LockBuilder<C> implements KubeLock.Builder {
  private final ObjectKind kind;
  private final C client;
  private final BiFunction<C, Duration, ApiTransport> transport;
  private @Nullable String namespace;
  private @Nullable String name;
  private @Nullable String identity;
  private @Nullable Duration requestTimeout;
  private @Nullable Executor executor;
  private WatchMode watchMode = WatchMode.AUTO;
  private boolean recordEvents;
  private @Nullable String eventComponent;
  private PodEnvironment environment = PodEnvironment.system();
  private MonotonicClock clock = MonotonicClock.system();
  private @Nullable Scheduler scheduler;
  private @Nullable RandomGenerator random;

  /**
   * A builder of locks in objects of {@code kind} through {@code client}.
   *
   * @param transport the backend's requests through the client, given the client and the request
   *     timeout
   * @throws NullPointerException if an argument is null
   */
  public LockBuilder(ObjectKind kind, C client, BiFunction<C, Duration, ApiTransport> transport) {
    this.kind = Objects.requireNonNull(kind, "kind");
    this.client = Objects.requireNonNull(client, "client");
    this.transport = Objects.requireNonNull(transport, "transport");
  }

  @Override
  public LockBuilder<C> namespace(String namespace) {
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    return this;
  }

  @Override
  public LockBuilder<C> name(String name) {
    this.name = Objects.requireNonNull(name, "name");
    return this;
  }

  @Override
  public LockBuilder<C> identity(String identity) {
    this.identity = Objects.requireNonNull(identity, "identity");
    return this;
  }

  @Override
  public LockBuilder<C> requestTimeout(Duration requestTimeout) {
    this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
    return this;
  }

  @Override
  public LockBuilder<C> executor(Executor executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
    return this;
  }

  @Override
  public LockBuilder<C> watchMode(WatchMode watchMode) {
    this.watchMode = Objects.requireNonNull(watchMode, "watchMode");
    return this;
  }

  @Override
  public LockBuilder<C> sharedWatch(boolean sharedWatch) {
    return watchMode(sharedWatch ? WatchMode.SHARED : WatchMode.PER_LOCK);
  }

  @Override
  public LockBuilder<C> recordEvents(boolean recordEvents) {
    this.recordEvents = recordEvents;
    return this;
  }

  @Override
  public LockBuilder<C> eventComponent(String eventComponent) {
    this.eventComponent = Objects.requireNonNull(eventComponent, "eventComponent");
    return this;
  }

  @Override
  public LockBuilder<C> environment(PodEnvironment environment) {
    this.environment = Objects.requireNonNull(environment, "environment");
    return this;
  }

  @Override
  public LockBuilder<C> clock(MonotonicClock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  @Override
  public LockBuilder<C> scheduler(Scheduler scheduler) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    return this;
  }

  @Override
  public LockBuilder<C> random(RandomGenerator random) {
    this.random = Objects.requireNonNull(random, "random");
    return this;
  }

  @Override
  public KubeLock build() {
    return new ObjectLock(settings());
  }

  /**
   * The settings after defaults and checks.
   *
   * @throws IllegalStateException listing every missing or invalid option
   */
  ObjectLock.Settings settings() {
    LockOptions.Resolved r =
        LockOptions.resolve(
            kind.kind(),
            name,
            namespace,
            identity,
            requestTimeout,
            environment,
            LockOptions.eventProblems(recordEvents, eventComponent));
    return new ObjectLock.Settings(
        kind,
        client,
        transport.apply(client, LockOptions.requestTimeoutOrDefault(r.requestTimeout())),
        r.namespace(),
        r.name(),
        r.identity(),
        r.requestTimeout(),
        executor != null ? executor : DaemonThreads.shared(),
        watchMode,
        LockOptions.eventComponent(recordEvents, eventComponent),
        new LockTime(clock, scheduler, random));
  }
}
