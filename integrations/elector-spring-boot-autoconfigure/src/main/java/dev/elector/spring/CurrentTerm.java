package dev.elector.spring;

import dev.elector.Term;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The term of the {@link LeaderOnly} call in progress on the calling thread. Empty outside such a
 * call.
 */
public final class CurrentTerm {
  private static final ThreadLocal<@Nullable Term> CURRENT = new ThreadLocal<>();

  private CurrentTerm() {}

  /** The term of the {@code @LeaderOnly} call that this thread is running, if any. */
  public static Optional<Term> get() {
    return Optional.ofNullable(CURRENT.get());
  }

  /**
   * Runs {@code call} with {@code term} as the current term of this thread, then restores the
   * previous one. For the {@code @LeaderOnly} interceptor; a nested call keeps its outer term.
   */
  static @Nullable Object with(Term term, Call call) throws Throwable {
    Term outer = CURRENT.get();
    CURRENT.set(term);
    try {
      return call.get();
    } finally {
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer);
      }
    }
  }

  /** A call that may throw anything, as a method invocation does. */
  interface Call {
    @Nullable Object get() throws Throwable;
  }
}
