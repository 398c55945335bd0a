package dev.elector.scenarios;

import dev.elector.lock.ForwardingWatchableLock;
import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import dev.elector.lock.WatchableLock;
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
final class ScriptedLock extends ForwardingWatchableLock {
  private final List<String> transcript;
  private CompletableFuture<Void> holdNextUpdate;
  private Runnable beforeNextUpdate;
  private CompletableFuture<Void> holdNextCreate;
  private boolean createHeld;
  private Runnable beforeNextRead;

  ScriptedLock(WatchableLock delegate, List<String> transcript) {
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
  public CompletionStage<LockRead> read() {
    Runnable before;
    synchronized (this) {
      before = beforeNextRead;
      beforeNextRead = null;
    }
    if (before != null) {
      before.run();
    }
    return delegate()
        .read()
        .thenApply(
            result -> {
              log("read -> " + describe(result));
              return result;
            });
  }

  @Override
  public CompletionStage<LockWrite> create(LeaderRecord record) {
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
                return forwardCreate(record);
              }));
    }
    return forwardCreate(record);
  }

  private CompletionStage<LockWrite> forwardCreate(LeaderRecord record) {
    return delegate()
        .create(record)
        .thenApply(
            result -> {
              log("create naming " + holder(record) + " -> " + describe(result));
              return result;
            });
  }

  @Override
  public CompletionStage<LockWrite> update(String expectedVersion, LeaderRecord record) {
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
      return onItsWay(hold.thenCompose(ignored -> forwardUpdate(expectedVersion, record)));
    }
    if (before != null) {
      before.run();
    }
    return forwardUpdate(expectedVersion, record);
  }

  private CompletionStage<LockWrite> forwardUpdate(String expectedVersion, LeaderRecord record) {
    return delegate()
        .update(expectedVersion, record)
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
    if (result instanceof LockWrite.Failed failed) {
      return "failed " + failed.failure().kind();
    }
    if (result instanceof LockRead.Found found) {
      return "holder " + holder(found.record());
    }
    if (result instanceof LockRead.Failed failed) {
      return "failed " + failed.failure().kind();
    }
    return result.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
  }
}
