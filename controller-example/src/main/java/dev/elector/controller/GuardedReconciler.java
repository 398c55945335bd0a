package dev.elector.controller;

import dev.elector.Term;
import io.kubernetes.client.extended.controller.reconciler.Reconciler;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.openapi.ApiException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adapts a {@link KeyReconciler} to client-java's {@link Reconciler}: does nothing once the term
 * has ended, and turns failures into results. A conflict (409) or any other API error is retried
 * through the work queue's rate limiter (per-item exponential back-off), never in a hot loop; the
 * end of the term stops the item without retry.
 */
final class GuardedReconciler implements Reconciler {
  private static final Logger log = LoggerFactory.getLogger(GuardedReconciler.class);

  private final String kind;
  private final Term term;
  private final KeyReconciler delegate;
  private final ControllerStats stats;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Set<Request> retrying = ConcurrentHashMap.newKeySet();

  GuardedReconciler(String kind, Term term, KeyReconciler delegate, ControllerStats stats) {
    this.kind = kind;
    this.term = term;
    this.delegate = delegate;
    this.stats = stats;
  }

  @Override
  public Result reconcile(Request request) {
    retrying.remove(request);
    if (!term.isActive()) {
      return KeyReconciler.DONE;
    }
    inFlight.incrementAndGet();
    stats.reconciles.incrementAndGet();
    try {
      return delegate.reconcile(request.getNamespace(), request.getName());
    } catch (TermEndedException e) {
      log.debug("{} {}: {}", kind, request, e.getMessage());
      return KeyReconciler.DONE;
    } catch (ApiException e) {
      if (e.getCode() == 409) {
        log.debug("{} {}: conflict, the cache was stale; retrying", kind, request);
      } else {
        log.warn(
            "{} {}: API call failed with {}: {}; retrying with back-off{}",
            kind,
            request,
            e.getCode(),
            e.getResponseBody() == null ? e.getMessage() : e.getResponseBody(),
            e.getCode() == 403 ? " (grant what deploy/controller/rbac.yaml grants)" : "");
      }
      return retry(request);
    } catch (PoolAllocator.ConflictsExhausted e) {
      log.warn("{} {}: {}", kind, request, e.getMessage());
      return retry(request);
    } catch (RuntimeException e) {
      log.error("{} {}: reconcile failed; retrying with back-off", kind, request, e);
      return retry(request);
    } finally {
      inFlight.decrementAndGet();
    }
  }

  private Result retry(Request request) {
    if (!term.isActive()) {
      return KeyReconciler.DONE;
    }
    stats.requeues.incrementAndGet();
    retrying.add(request);
    return new Result(true);
  }

  /** Whether no reconcile runs and none waits for a retry. */
  boolean idle() {
    return inFlight.get() == 0 && retrying.isEmpty();
  }
}
