/**
 * The time tools the elector and its Kubernetes locks share: a token bucket for call budgets and
 * log rates, capped exponential back-off, and the scheduler on the shared daemon threads. Internal:
 * not part of the API.
 */
@NullMarked
package dev.elector.internal.time;

import org.jspecify.annotations.NullMarked;
