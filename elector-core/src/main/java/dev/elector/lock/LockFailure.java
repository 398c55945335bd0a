package dev.elector.lock;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Why a lock call failed: the outcome of a read or a write that failed (a failed write may have
 * taken effect or not). Failures are expected outcomes: the elector retries them (with capped
 * exponential back-off while the lock is someone else's anyway, or after a configuration problem)
 * and logs them without flooding.
 *
 * @param kind the class of failure, which decides how loudly it is reported
 * @param message what went wrong and, where known, how to fix it
 * @param cause the underlying exception, or null
 */
public record LockFailure(Kind kind, String message, @Nullable Throwable cause)
    implements LockRead, LockWrite {

  /** Classes of failure. */
  public enum Kind {
    /** Not allowed: the identity lacks a permission (HTTP 403). A configuration problem. */
    FORBIDDEN(true),
    /** The lock's container is missing, for example its namespace (HTTP 404 on create). */
    NOT_FOUND(true),
    /** The request was rejected as invalid (HTTP 400, 422). A configuration or data problem. */
    INVALID(true),
    /** Not authenticated (HTTP 401): credentials are missing or expired. */
    UNAUTHORIZED(true),
    /** The backend is unavailable or overloaded (HTTP 5xx, 429, connection errors). Transient. */
    UNAVAILABLE(false),
    /** The call did not complete in time. Transient. */
    TIMEOUT(false),
    /** Anything else. */
    UNEXPECTED(false);

    private final boolean configurationProblem;

    Kind(boolean configurationProblem) {
      this.configurationProblem = configurationProblem;
    }

    /** True when retrying will not help until someone changes the configuration or permissions. */
    public boolean isConfigurationProblem() {
      return configurationProblem;
    }
  }

  /** Checks that the kind and the message are given. */
  public LockFailure {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(message, "message");
  }

  /** A failure without an underlying exception. */
  public static LockFailure of(Kind kind, String message) {
    return new LockFailure(kind, message, null);
  }

  @Override
  public String toString() {
    return kind + ": " + message;
  }
}
