package dev.elector.quarkus.internal;

import io.quarkus.arc.Arc;
import io.quarkus.arc.InstanceHandle;
import io.quarkus.runtime.shutdown.ShutdownListener;

/**
 * Closes the elector in the shutdown phase of Quarkus' graceful shutdown: after the pre-shutdown
 * phase (and its {@code quarkus.shutdown.delay}), before the HTTP server stops and before {@code
 * ShutdownEvent}, whose observers run once the HTTP server no longer listens.
 */
public final class ElectorShutdownListener implements ShutdownListener {
  /** For the recorder. */
  public ElectorShutdownListener() {}

  @Override
  public void shutdown(ShutdownNotification notification) {
    try (InstanceHandle<ElectorLifecycle> lifecycle =
        Arc.container().instance(ElectorLifecycle.class)) {
      if (lifecycle.isAvailable()) {
        lifecycle.get().close();
      }
    } finally {
      notification.done();
    }
  }
}
