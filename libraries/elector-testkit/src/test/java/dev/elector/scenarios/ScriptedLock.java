package dev.elector.scenarios;

import dev.elector.lock.LeaderLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Sits between one candidate and its lock, writes every call and its answer into a shared
 * transcript, and can script the next call: hold back an update or a create (it reaches the lock
 * only when the test lets it go, or never), or let an outside writer act just before an update or a
 * read arrives. A held call is on its way: cancelling its stage, as the elector does when it stops
 * waiting, does not stop it, just as aborting a request cannot recall one the server already has.
 */
final class ScriptedLock extends DelegatingLock {
  private final List<String> transcript;
  private CompletableFuture<Void> holdNextUpdate;
  private Runnable beforeNextUpdate;
  private CompletableFuture<Void> holdNextCreate;
  private boolean createHeld;
  private Runnable beforeNextRead;

  ScriptedLock(LeaderLock delegate, List<String> transcript) {
    super(delegate);
    this.transcript = Objects.requireNonNull(transcript, "transcript");
  }

  /** The next update waits until the returned future completes; it never arrives if it does not. */
  synchronized CompletableFuture<Void> holdNextUpdate() {
    holdNextUpdate = new CompletableFuture<>();
    return holdNextUpdate;
  }

  /** Runs {@code outsideWrite} just before the next update reaches the lock. */
  synchronized void beforeNextUpdate(Runnable outsideWrite) {
    beforeNextUpdate = outsideWrite;
  }

  /** The next create waits until the returned future completes. */
  synchronized CompletableFuture<Void> holdNextCreate() {
    holdNextCreate = new CompletableFuture<>();
    return holdNextCreate;
  }

  /** Whether a create is held back now. */
  synchronized boolean createHeld() {
    return createHeld;
  }

  /** Runs {@code outsideWrite} just before the next read reaches the lock. */
  synchronized void beforeNextRead(Runnable outsideWrite) {
    beforeNextRead = outsideWrite;
  }

  @Override
  public CompletionStage<LockRead> read(Duration timeout) {
    Runnable before;
    synchronized (this) {
      before = beforeNextRead;
      beforeNextRead = null;
    }
    if (before != null) {
      before.run();
    }
    return delegate()
        .read(timeout)
        .thenApply(
            result -> {
              log("read -> " + describe(result));
              return result;
            });
  }

  @Override
  public CompletionStage<LockWrite> create(LeaderRecord record, Duration timeout) {
    CompletableFuture<Void> hold;
    synchronized (this) {
      hold = holdNextCreate;
      holdNextCreate = null;
      createHeld = hold != null;
    }
    if (hold != null) {
      log("create naming " + holder(record) + " held back");
      return onItsWay(
          hold.thenCompose(
              ignored -> {
                synchronized (this) {
                  createHeld = false;
                }
                return forwardCreate(record, timeout);
              }));
    }
    return forwardCreate(record, timeout);
  }

  private CompletionStage<LockWrite> forwardCreate(LeaderRecord record, Duration timeout) {
    return delegate()
        .create(record, timeout)
        .thenApply(
            result -> {
              log("create naming " + holder(record) + " -> " + describe(result));
              return result;
            });
  }

  @Override
  public CompletionStage<LockWrite> update(
      String expectedVersion, LeaderRecord record, Duration timeout) {
    CompletableFuture<Void> hold;
    Runnable before;
    synchronized (this) {
      hold = holdNextUpdate;
      before = beforeNextUpdate;
      holdNextUpdate = null;
      beforeNextUpdate = null;
    }
    if (hold != null) {
      log("update naming " + holder(record) + " held back");
      return onItsWay(hold.thenCompose(ignored -> forwardUpdate(expectedVersion, record, timeout)));
    }
    if (before != null) {
      before.run();
    }
    return forwardUpdate(expectedVersion, record, timeout);
  }

  private CompletionStage<LockWrite> forwardUpdate(
      String expectedVersion, LeaderRecord record, Duration timeout) {
    return delegate()
        .update(expectedVersion, record, timeout)
        .thenApply(
            result -> {
              log("update naming " + holder(record) + " -> " + describe(result));
              return result;
            });
  }

  /** A stage whose cancellation leaves {@code call} going. */
  private static <T> CompletionStage<T> onItsWay(CompletableFuture<T> call) {
    return call.copy();
  }

  private void log(String line) {
    synchronized (transcript) {
      transcript.add(identity() + ": " + line);
    }
  }

  static String holder(LeaderRecord record) {
    return record.isReleased() ? "nobody" : record.holderIdentity();
  }

  private static String describe(Object result) {
    if (result instanceof LockWrite.Written) {
      return "written";
    }
    if (result instanceof LockWrite.Conflict) {
      return "conflict";
    }
    if (result instanceof LockRead.Found found) {
      return "holder " + holder(found.record());
    }
    if (result instanceof LockFailure failure) {
      return "failed " + failure.kind();
    }
    return result.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
  }
}
