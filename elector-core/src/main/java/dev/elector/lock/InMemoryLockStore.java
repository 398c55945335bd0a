package dev.elector.lock;

import java.io.Closeable;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One lock held in memory, shared by any number of candidates in this JVM, with the optimistic
 * concurrency of a real backend: every write produces a new version, and an update based on a stale
 * version is a {@link LockWrite.Conflict}. For tests, demos and single-process use.
 *
 * <p>Besides the candidates' views from {@link #lockFor(String)}, it offers the operations of an
 * outside writer ({@link #overwrite}, {@link #delete}, {@link #corrupt}) so tests can hijack,
 * delete or garble the lock. Thread-safe.
 */
public final class InMemoryLockStore {
  private final String name;
  private final List<Consumer<LockRead>> watchers = new CopyOnWriteArrayList<>();
  private long nextVersion = 1;

  /** The lock as a read would find it now: absent, found or malformed; never failed. */
  private LockRead state = new LockRead.Absent();

  private InMemoryLockStore(String name) {
    this.name = name;
  }

  /** Creates an empty store; {@code name} appears in {@link LeaderLock#describe()}. */
  public static InMemoryLockStore create(String name) {
    Objects.requireNonNull(name, "name");
    return new InMemoryLockStore(name);
  }

  /** Returns the view of this lock for the candidate {@code identity}. */
  public LeaderLock lockFor(String identity) {
    Objects.requireNonNull(identity, "identity");
    return new View(identity);
  }

  /** The current record, if the lock exists and is readable. */
  public synchronized Optional<LeaderRecord> current() {
    return state instanceof LockRead.Found found ? Optional.of(found.record()) : Optional.empty();
  }

  /** The current version, if the lock exists. */
  public synchronized Optional<String> version() {
    return Optional.ofNullable(versionNow());
  }

  /** Writes {@code newRecord} unconditionally, as an outside writer would. */
  public void overwrite(LeaderRecord newRecord) {
    Objects.requireNonNull(newRecord, "newRecord");
    LockRead event;
    synchronized (this) {
      event = store(newRecord);
    }
    publish(event);
  }

  /** Deletes the lock object. */
  public void delete() {
    synchronized (this) {
      state = new LockRead.Absent();
    }
    publish(new LockRead.Absent());
  }

  /** Replaces the record with unreadable content, as a buggy writer would. */
  public void corrupt(String problem) {
    Objects.requireNonNull(problem, "problem");
    LockRead event;
    synchronized (this) {
      event = new LockRead.Malformed(Long.toString(nextVersion++), problem);
      state = event;
    }
    publish(event);
  }

  private synchronized LockRead readNow() {
    return state;
  }

  /** The current version, or null while the lock does not exist. */
  private @Nullable String versionNow() {
    if (state instanceof LockRead.Found found) {
      return found.version();
    }
    return state instanceof LockRead.Malformed bad ? bad.version() : null;
  }

  private LockRead store(LeaderRecord newRecord) {
    state = new LockRead.Found(Long.toString(nextVersion++), newRecord);
    return state;
  }

  private LockWrite createNow(LeaderRecord newRecord) {
    LockRead event;
    synchronized (this) {
      String version = versionNow();
      if (version != null) {
        return new LockWrite.Conflict(name + " already exists at version " + version);
      }
      event = store(newRecord);
    }
    publish(event);
    return new LockWrite.Written(((LockRead.Found) event).version());
  }

  private LockWrite updateNow(String expectedVersion, LeaderRecord newRecord) {
    LockRead event;
    synchronized (this) {
      String version = versionNow();
      if (version == null) {
        return new LockWrite.Conflict(name + " does not exist");
      }
      if (!version.equals(expectedVersion)) {
        return new LockWrite.Conflict(
            name + " is at version " + version + ", not " + expectedVersion);
      }
      event = store(newRecord);
    }
    publish(event);
    return new LockWrite.Written(((LockRead.Found) event).version());
  }

  private void publish(LockRead event) {
    for (Consumer<LockRead> watcher : watchers) {
      watcher.accept(event);
    }
  }

  private final class View implements LeaderLock {
    private final String identity;

    View(String identity) {
      this.identity = identity;
    }

    @Override
    public CompletionStage<LockRead> read(Duration timeout) {
      return CompletableFuture.completedFuture(readNow());
    }

    @Override
    public CompletionStage<LockWrite> create(LeaderRecord newRecord, Duration timeout) {
      Objects.requireNonNull(newRecord, "record");
      return CompletableFuture.completedFuture(createNow(newRecord));
    }

    @Override
    public CompletionStage<LockWrite> update(
        String expectedVersion, LeaderRecord newRecord, Duration timeout) {
      Objects.requireNonNull(expectedVersion, "expectedVersion");
      Objects.requireNonNull(newRecord, "record");
      return CompletableFuture.completedFuture(updateNow(expectedVersion, newRecord));
    }

    @Override
    public Optional<Closeable> watch(Consumer<LockRead> listener) {
      Objects.requireNonNull(listener, "listener");
      watchers.add(listener);
      return Optional.of(() -> watchers.remove(listener));
    }

    @Override
    public String identity() {
      return identity;
    }

    @Override
    public String describe() {
      return "in-memory lock " + name;
    }
  }
}
