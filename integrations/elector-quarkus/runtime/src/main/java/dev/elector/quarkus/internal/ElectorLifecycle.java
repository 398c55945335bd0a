package dev.elector.quarkus.internal;

import dev.elector.LeaderElector;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import jakarta.interceptor.Interceptor;
import org.jspecify.annotations.Nullable;

/**
 * Starts the elector once the application has started and closes it when the application shuts
 * down, before the HTTP server stops.
 *
 * <p>Start: on {@link StartupEvent}, after the application's own observers of it (priority {@code
 * LIBRARY_AFTER}, later than an observer's default), so that what they prepare is there before this
 * replica can lead. Creating the elector checks {@code quarkus.elector.*}, so a bad setting fails
 * the startup.
 *
 * <p>Close: in the shutdown phase of Quarkus' graceful shutdown ({@link ElectorShutdownListener}),
 * which comes after {@code quarkus.shutdown.delay} and before the HTTP server stops and before
 * {@link ShutdownEvent}: the term ends, the {@code LeadershipRevoked} observers run while the
 * application still serves and every bean is there, then the lock is released so that another
 * replica leads at once. {@link ShutdownEvent} closes it too (it is closed once), for a stop
 * without that phase.
 */
@Singleton
public class ElectorLifecycle {
  private volatile @Nullable LeaderElector started;

  /** For CDI. */
  public ElectorLifecycle() {}

  void start(
      @Observes @Priority(Interceptor.Priority.LIBRARY_AFTER) StartupEvent event,
      LeaderElector elector) {
    elector.start();
    started = elector;
  }

  void close(@Observes @Priority(Interceptor.Priority.LIBRARY_BEFORE) ShutdownEvent event) {
    close();
  }

  /** Closes the elector if it was started: stops leading, then releases. Idempotent. */
  public void close() {
    LeaderElector elector = started;
    if (elector != null) {
      elector.close();
    }
  }
}
