package dev.elector;

import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import java.util.Optional;

/**
 * A lock call's answer as the election receives it: a read's or a write's. Each kind says what it
 * means for the counters and for a claim, so code that takes any answer asks it rather than test
 * its class.
 */
sealed interface CallAnswer {

  /** How the call ended, for the counters; {@code timedOut} when callTimeout answered it. */
  CallOutcome outcome(boolean timedOut);

  /** The version a write left naming this candidate, if it was a successful write. */
  Optional<String> writtenVersion();

  /** A read's answer. */
  record Read(LockRead result) implements CallAnswer {
    @Override
    public CallOutcome outcome(boolean timedOut) {
      if (timedOut) {
        return CallOutcome.TIMEOUT;
      }
      if (result instanceof LockRead.Found) {
        return CallOutcome.OK;
      }
      if (result instanceof LockRead.Absent) {
        return CallOutcome.ABSENT;
      }
      if (result instanceof LockRead.Malformed) {
        return CallOutcome.MALFORMED;
      }
      return failed((LockFailure) result); // the last of LockRead's four kinds
    }

    @Override
    public Optional<String> writtenVersion() {
      return Optional.empty();
    }
  }

  /** A write's answer: a create's, an acquisition's, a renewal's or a release's. */
  record Write(LockWrite result) implements CallAnswer {
    @Override
    public CallOutcome outcome(boolean timedOut) {
      if (timedOut) {
        return CallOutcome.TIMEOUT;
      }
      if (result instanceof LockWrite.Written) {
        return CallOutcome.OK;
      }
      if (result instanceof LockWrite.Conflict) {
        return CallOutcome.CONFLICT;
      }
      return failed((LockFailure) result); // the last of LockWrite's three kinds
    }

    @Override
    public Optional<String> writtenVersion() {
      return result instanceof LockWrite.Written written
          ? Optional.of(written.version())
          : Optional.empty();
    }
  }

  private static CallOutcome failed(LockFailure failure) {
    if (failure.kind() == LockFailure.Kind.TIMEOUT) {
      return CallOutcome.TIMEOUT;
    }
    return failure.kind().isConfigurationProblem() ? CallOutcome.REFUSED : CallOutcome.FAILED;
  }
}
