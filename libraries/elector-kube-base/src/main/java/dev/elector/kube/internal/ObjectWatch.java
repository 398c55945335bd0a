package dev.elector.kube.internal;

import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import java.io.Closeable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches exactly one lock object (field selector on its name), on a thread of its own (or the
 * lock's injected scheduler): the current state after every (re)list, then each change, and {@link
 * LockFailure} on a break. Needs only list and watch on that one name. Bounded by the shared {@link
 * ListWatchLoop}.
 */
public final class ObjectWatch extends ListWatchLoop implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(ObjectWatch.class);

  /** From this many watches at once on, the process is told once about sharing. */
  public static final int MANY = 64;

  private static final AtomicInteger OPEN = new AtomicInteger();
  private static final AtomicBoolean TOLD = new AtomicBoolean();
  private final AtomicBoolean counted = new AtomicBoolean();
  private final ObjectLock lock;
  private final Consumer<LockRead> listener;
  private boolean warned; // only the watch's thread

  ObjectWatch(ObjectLock lock, Consumer<LockRead> listener) {
    super(
        new CollectionTransport(lock.http(), lock.collectionPath(), lock.name()),
        lock.failures(),
        lock.requestTimeout(),
        lock.time());
    this.lock = lock;
    this.listener = listener;
  }

  void start() {
    counted.set(true);
    if (OPEN.incrementAndGet() >= MANY && TOLD.compareAndSet(false, true)) {
      log.info(
          "{} locks in this process each watch on a thread of their own; with list and"
              + " watch on the namespace's {} (deploy/lease/rbac-shared-watch.yaml), locks built with"
              + " the default watchMode AUTO share one watch per namespace instead",
          MANY,
          lock.failures().qualifiedResource());
    }
    start("elector-watch-" + lock.name() + "-");
  }

  /** Stops the watch. Idempotent. */
  @Override
  public void close() {
    if (counted.compareAndSet(true, false)) {
      OPEN.decrementAndGet();
    }
    stop();
  }

  @Override
  protected String describe() {
    return lock.describe();
  }

  @Override
  protected void listed(List<Map<String, Object>> objects) {
    warned = false;
    listener.accept(objects.isEmpty() ? new LockRead.Absent() : lock.toRead(objects.get(0)));
  }

  @Override
  protected void changed(String type, Map<String, Object> object) {
    listener.accept(type.equals("DELETED") ? new LockRead.Absent() : lock.toRead(object));
  }

  @Override
  protected void broke(LockFailure failure, boolean firstInARow) {
    if (!warned && failure.kind().isConfigurationProblem()) {
      warned = true; // once until the next successful list; polling goes on meanwhile
      log.warn(
          "{}: cannot watch the lock, followers poll instead: {}",
          lock.describe(),
          failure.message());
    }
    listener.accept(failure);
  }
}
