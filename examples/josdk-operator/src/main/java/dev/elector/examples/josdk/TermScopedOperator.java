package dev.elector.examples.josdk;

import dev.elector.LeaderCallbacks;
import dev.elector.Term;
import dev.elector.TermEnd;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * Elector callbacks that run a fresh JOSDK {@link Operator} for each term: built, registered and
 * started when the term starts, stopped when it ends. JOSDK's own leader election stays off (no
 * {@code LeaderElectionConfiguration}), and the shared client is never closed by the operator.
 *
 * <p>Elector calls the callbacks one at a time, in order, so a stop always follows the start of its
 * term. {@link Operator#stop()} stops the informers and event processing, waits up to {@code
 * reconcileStopTimeout} for reconciles in flight, then interrupts them; keep it below {@code
 * leaseDuration - renewDeadline}, the time between this term's deadline and the earliest moment
 * another replica may lead. Reconcilers should also check {@code term.isActive()} right before they
 * write, which covers a start that is still syncing caches when the term ends.
 */
public final class TermScopedOperator implements LeaderCallbacks {
  private final KubernetesClient client;
  private final Duration reconcileStopTimeout;
  private final BiConsumer<Operator, Term> register;
  private final Events events;
  private volatile Operator operator; // set and cleared by the callbacks, which run one at a time

  /**
   * Callbacks that start an operator on {@code client} per term, with the reconcilers that {@code
   * register} adds for that term.
   */
  public TermScopedOperator(
      KubernetesClient client, Duration reconcileStopTimeout, BiConsumer<Operator, Term> register) {
    this(client, reconcileStopTimeout, register, null);
  }

  TermScopedOperator(
      KubernetesClient client,
      Duration reconcileStopTimeout,
      BiConsumer<Operator, Term> register,
      Events events) {
    this.client = Objects.requireNonNull(client, "client");
    this.reconcileStopTimeout =
        Objects.requireNonNull(reconcileStopTimeout, "reconcileStopTimeout");
    this.register = Objects.requireNonNull(register, "register");
    this.events = events;
  }

  @Override
  public void onStartedLeading(Term term) {
    print("LEADING", "token", term.fencingToken(), "activeUntil", term.activeUntilNanos());
    Operator next =
        new Operator(
            o ->
                o.withKubernetesClient(client)
                    .withCloseClientOnStop(false) // the lock and the next term use it too
                    .withReconciliationTerminationTimeout(reconcileStopTimeout)
                    .withStopOnInformerErrorDuringStartup(false)); // no System.exit on a slow start
    register.accept(next, term);
    operator = next;
    if (term.isActive()) {
      try {
        next.start();
      } catch (RuntimeException e) {
        // JOSDK has stopped the operator already; the term goes on without reconcilers, and the
        // elector logs the failure at ERROR. An operator may rather close its elector here.
        print("OPERATOR_START_FAILED", "token", term.fencingToken());
        throw e;
      }
      print("OPERATOR_STARTED", "token", term.fencingToken());
    }
  }

  @Override
  public void onStoppedLeading(Term term, TermEnd reason) {
    print(
        "TERM_ENDED",
        "token",
        term.fencingToken(),
        "reason",
        reason,
        "activeUntil",
        term.activeUntilNanos());
    Operator current = operator;
    operator = null;
    if (current != null) {
      current.stop();
    }
    print("STOPPED", "token", term.fencingToken(), "reason", reason);
  }

  private void print(String kind, Object... fields) {
    if (events != null) {
      events.print(kind, fields);
    }
  }
}
