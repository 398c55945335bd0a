package dev.elector.controller;

import io.kubernetes.client.extended.controller.reconciler.Result;
import io.kubernetes.client.openapi.ApiException;

/**
 * One reconcile of the object "namespace/name"; failures are handled by {@link GuardedReconciler}.
 */
interface KeyReconciler {
  /** Done, nothing to retry. */
  Result DONE = new Result(false);

  Result reconcile(String namespace, String name) throws ApiException;
}
