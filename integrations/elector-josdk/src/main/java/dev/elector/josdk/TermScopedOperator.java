package dev.elector.josdk;

import dev.elector.ElectorConfig;
import dev.elector.LeaderCallbacks;
import dev.elector.LeaderElector;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.lock.LeaderLock;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ConfigurationService;
import io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JOSDK operator that runs only while its replica leads: an Elector on the given lock and, for
 * each term, a fresh JOSDK {@link Operator} built on the shared client, given its reconcilers by
 * {@link Builder#reconcilers} and started when the term starts; it is stopped when the term ends,
 * before another replica can lead. JOSDK's own leader election stays off, and JOSDK never closes
 * the client.
 *
 * <pre>{@code
 * TermScopedOperator operator = TermScopedOperator.newBuilder()
 *     .client(client)
 *     .lock(Fabric8LeaseLock.newBuilder(client).namespace(ns)
 *         .name("my-operator").identity(podName).build())
 *     .reconcilers((op, term) -> op.register(new MyReconciler(term)))
 *     .start();
 * }</pre>
 *
 * <p>Elector runs the term callbacks one at a time, in order, so a term's stop always follows its
 * start. A reconciler checks {@code term.isActive()} right before it writes: that turns false at
 * the term's deadline, even before the operator has been stopped, and also covers a term that ends
 * while its operator is still syncing caches. Thread-safe.
 */
public final class TermScopedOperator implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TermScopedOperator.class);

  private final KubernetesClient client;
  private final Duration reconcileStopTimeout;
  private final BiConsumer<Operator, Term> reconcilers;
  private final Consumer<ConfigurationServiceOverrider> operatorConfig;
  private final Listener listener;
  private final Function<Consumer<ConfigurationServiceOverrider>, Operator> operators;
  private final LeaderElector elector;
  // Set by onStartedLeading, cleared by onStoppedLeading (the callbacks run one at a time) or by
  // close(); whoever clears it stops the operator.
  private final AtomicReference<@Nullable Running> running = new AtomicReference<>();

  private record Running(Term term, Operator operator) {}

  private TermScopedOperator(Builder b, ElectorConfig.Builder electorConfig, Duration stopTimeout) {
    this.client = Objects.requireNonNull(b.client);
    this.reconcileStopTimeout = stopTimeout;
    this.reconcilers = Objects.requireNonNull(b.reconcilers);
    this.operatorConfig = b.operatorConfig;
    this.listener = b.listener;
    this.operators = b.operators;
    this.elector = LeaderElector.create(electorConfig.callbacks(new Callbacks()).build());
  }

  /** A builder; {@code client}, {@code lock} and {@code reconcilers} are required. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * Starts the elector: from now on this replica campaigns, and runs an operator while it leads.
   *
   * @throws IllegalStateException if started before, or closed
   */
  public void start() {
    elector.start();
  }

  /** The elector, for its health, stats and current leader. */
  public LeaderElector elector() {
    return elector;
  }

  /**
   * The term whose operator runs (or is starting), or empty between terms. The term may have ended
   * a moment ago: check {@link Term#isActive()} right before a write.
   */
  public Optional<Term> currentTerm() {
    Running r = running.get();
    return r == null ? Optional.empty() : Optional.of(r.term());
  }

  /**
   * Closes the elector: a running operator is stopped (as at any term's end) before the lock is
   * released, so another replica can lead at once. Blocks up to the elector's {@code closeTimeout};
   * an operator still running then is stopped here. Idempotent.
   */
  @Override
  public void close() {
    try {
      elector.close();
    } finally {
      Running left = running.getAndSet(null);
      if (left != null) {
        left.operator().stop();
      }
    }
  }

  @Override
  public String toString() {
    return "TermScopedOperator{" + elector.describe() + "}";
  }

  private final class Callbacks implements LeaderCallbacks {
    @Override
    public void onStartedLeading(Term term) {
      tell("operatorStarting", () -> listener.operatorStarting(term));
      Operator next =
          operators.apply(
              o -> {
                operatorConfig.accept(o);
                o.withKubernetesClient(client)
                    .withCloseClientOnStop(false) // the lock and the next term's operator use it
                    .withReconciliationTerminationTimeout(reconcileStopTimeout)
                    .withStopOnInformerErrorDuringStartup(false); // no System.exit on a slow start
              });
      reconcilers.accept(next, term);
      running.set(new Running(term, next));
      if (!term.isActive()) {
        return; // ended while being set up; onStoppedLeading follows and clears it
      }
      try {
        next.start();
      } catch (RuntimeException e) {
        // JOSDK has stopped the operator already; the term goes on without reconcilers and the
        // elector logs the failure.
        tell("operatorStartFailed", () -> listener.operatorStartFailed(term, e));
        throw e;
      }
      tell("operatorStarted", () -> listener.operatorStarted(term));
    }

    @Override
    public void onStoppedLeading(Term term, TermEnd reason) {
      tell("operatorStopping", () -> listener.operatorStopping(term, reason));
      Running current = running.getAndSet(null);
      if (current != null) {
        current.operator().stop();
      }
      tell("operatorStopped", () -> listener.operatorStopped(term, reason));
    }
  }

  private static void tell(String method, Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      log.error(
          "TermScopedOperator.Listener.{} threw; the operator's lifecycle goes on", method, e);
    }
  }

  /**
   * What happens to a term's operator, for logs and metrics. Methods run on the elector's callback
   * thread, one at a time; they must not block. An exception is logged and otherwise ignored.
   */
  public interface Listener {
    /** The term started; its operator is about to be built, given its reconcilers and started. */
    default void operatorStarting(Term term) {}

    /** The term's operator started: its caches synced and its reconcilers run. */
    default void operatorStarted(Term term) {}

    /**
     * The term's operator did not start (JOSDK has stopped it); the term goes on without
     * reconcilers. Closing the elector hands over to another replica.
     */
    default void operatorStartFailed(Term term, RuntimeException failure) {}

    /** The term ended; its operator, if any, is about to be stopped. */
    default void operatorStopping(Term term, TermEnd reason) {}

    /** The term's operator stopped: no reconcile of this term runs any longer. */
    default void operatorStopped(Term term, TermEnd reason) {}
  }

  /**
   * Settings of a {@link TermScopedOperator}. Each setter rejects null at once; {@link #build()}
   * checks the rest and lists every problem with its fix.
   */
  public static final class Builder {
    private @Nullable KubernetesClient client;
    private @Nullable LeaderLock lock;
    private @Nullable BiConsumer<Operator, Term> reconcilers;
    private Consumer<ElectorConfig.Builder> electorConfig = b -> {};
    private Consumer<ConfigurationServiceOverrider> operatorConfig = o -> {};
    private @Nullable Duration reconcileStopTimeout;
    private Listener listener = new Listener() {};
    private Function<Consumer<ConfigurationServiceOverrider>, Operator> operators = Operator::new;

    private Builder() {}

    /**
     * The client of every term's operator (required); also the one the lock should use. JOSDK never
     * closes it; close it after {@link TermScopedOperator#close()}.
     */
    public Builder client(KubernetesClient client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /** The lock to lead on (required), typically a {@code Fabric8LeaseLock}. */
    public Builder lock(LeaderLock lock) {
      this.lock = Objects.requireNonNull(lock, "lock");
      return this;
    }

    /**
     * Registers the reconcilers on a term's fresh operator (required): called once per term, before
     * the operator starts, on the elector's callback thread. The term is the one the reconcilers
     * serve: hand it to them, so they check {@code term.isActive()} before a write and pass on
     * {@code term.fencingToken()}.
     */
    public Builder reconcilers(BiConsumer<Operator, Term> reconcilers) {
      this.reconcilers = Objects.requireNonNull(reconcilers, "reconcilers");
      return this;
    }

    /**
     * Elector settings (timings, listener, executors) on a fresh {@link ElectorConfig.Builder};
     * default: Elector's defaults. The lock and the callbacks are this builder's: setting them here
     * fails {@link #build()}.
     */
    public Builder electorConfig(Consumer<ElectorConfig.Builder> electorConfig) {
      this.electorConfig = Objects.requireNonNull(electorConfig, "electorConfig");
      return this;
    }

    /**
     * JOSDK settings for every term's operator (thread pools, metrics, cache sync timeout);
     * default: JOSDK's. Applied first; the client, {@code closeClientOnStop(false)}, {@code
     * stopOnInformerErrorDuringStartup(false)} and the reconciliation termination timeout are then
     * set by this class. A leader election configuration here fails {@link #build()}.
     */
    public Builder operatorConfig(Consumer<ConfigurationServiceOverrider> operatorConfig) {
      this.operatorConfig = Objects.requireNonNull(operatorConfig, "operatorConfig");
      return this;
    }

    /**
     * How long stopping a term's operator waits for reconciles in flight before it interrupts them
     * (JOSDK's reconciliation termination timeout). Default: half of {@code leaseDuration -
     * renewDeadline}, the least time between a term's deadline and another replica's lead. Must be
     * shorter than that.
     */
    public Builder reconcileStopTimeout(Duration reconcileStopTimeout) {
      Objects.requireNonNull(reconcileStopTimeout, "reconcileStopTimeout");
      if (reconcileStopTimeout.isNegative() || reconcileStopTimeout.isZero()) {
        throw new IllegalArgumentException(
            "reconcileStopTimeout "
                + reconcileStopTimeout
                + " must be positive; give e.g. Duration.ofSeconds(2)");
      }
      this.reconcileStopTimeout = reconcileStopTimeout;
      return this;
    }

    /** Told of each term's operator start and stop; default: none. */
    public Builder listener(Listener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Builds the operator JOSDK runs per term; tests give one that does not reach a cluster. */
    Builder operators(Function<Consumer<ConfigurationServiceOverrider>, Operator> operators) {
      this.operators = Objects.requireNonNull(operators, "operators");
      return this;
    }

    /**
     * Checks the settings and builds the elector, not started.
     *
     * @throws IllegalArgumentException naming every missing or conflicting setting and its fix
     */
    public TermScopedOperator build() {
      List<String> problems = new ArrayList<>();
      if (client == null) {
        problems.add("client is missing; set client(kubernetesClient), the one the lock uses");
      }
      if (lock == null) {
        problems.add("lock is missing; set lock(Fabric8LeaseLock.newBuilder(client)...build())");
      }
      if (reconcilers == null) {
        problems.add(
            "reconcilers are missing; set reconcilers((operator, term) ->"
                + " operator.register(new MyReconciler(term)))");
      }
      if (ConfigurationService.newOverriddenConfigurationService(operatorConfig)
          .getLeaderElectionConfiguration()
          .isPresent()) {
        problems.add(
            "operatorConfig sets a leader election configuration, which would run JOSDK's own"
                + " election beside Elector's; remove withLeaderElectionConfiguration(...)");
      }
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException(String.join("; ", problems));
      }
      LeaderLock lock = Objects.requireNonNull(this.lock);
      LeaderCallbacks placeholder = LeaderCallbacks.of(t -> {}, (t, e) -> {});
      ElectorConfig.Builder config = ElectorConfig.newBuilder().lock(lock).callbacks(placeholder);
      electorConfig.accept(config);
      ElectorConfig checked = config.build(); // Elector's own checks, with their fixes
      if (checked.lock() != lock) {
        problems.add("electorConfig sets a lock; set it with TermScopedOperator.Builder.lock");
      }
      if (checked.callbacks() != placeholder) {
        problems.add(
            "electorConfig sets callbacks, which run the term's operator here; use"
                + " TermScopedOperator.Builder.listener for what should happen at a term's start"
                + " and end");
      }
      Duration window = checked.leaseDuration().minus(checked.renewDeadline());
      Duration stopTimeout =
          reconcileStopTimeout != null ? reconcileStopTimeout : window.dividedBy(2);
      if (stopTimeout.compareTo(window) >= 0) {
        problems.add(
            "reconcileStopTimeout "
                + stopTimeout
                + " must be shorter than leaseDuration - renewDeadline "
                + window
                + ", or an operator may still reconcile when another replica leads; lower"
                + " reconcileStopTimeout or raise leaseDuration");
      }
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException(String.join("; ", problems));
      }
      return new TermScopedOperator(this, config, stopTimeout);
    }

    /**
     * Builds and starts: as {@code build()} then {@link TermScopedOperator#start()}.
     *
     * @throws IllegalArgumentException as {@link #build()}
     */
    public TermScopedOperator start() {
      TermScopedOperator operator = build();
      operator.start();
      return operator;
    }
  }
}
