package dev.elector.spring.autoconfigure;

import dev.elector.LeaderElector;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the candidacy with the context (the candidacy itself waits for the readiness gate, which
 * {@link ApplicationReadyEvent} opens) and closes the elector when the context stops, before the
 * web server's graceful shutdown: its phase is above that of Boot's {@code
 * WebServerGracefulShutdownLifecycle} ({@code DEFAULT_PHASE - 1024}), so it starts after and stops
 * before it, and below the default phase of the task scheduler, which stops first.
 */
final class ElectorLifecycle implements SmartLifecycle, ApplicationListener<ApplicationReadyEvent> {
  /** Stops before the web server's graceful shutdown (DEFAULT_PHASE - 1024) begins. */
  static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

  private static final Logger log = LoggerFactory.getLogger(ElectorLifecycle.class);

  private final LeaderElector elector;
  private final CompletableFuture<Void> ready;
  private final ElectorProperties.@Nullable Backend backend;
  private final boolean waitsForReady;
  private volatile boolean running;

  ElectorLifecycle(
      LeaderElector elector,
      CompletableFuture<Void> ready,
      ElectorProperties.@Nullable Backend backend,
      boolean waitsForReady) {
    this.elector = elector;
    this.ready = ready;
    this.backend = backend;
    this.waitsForReady = waitsForReady;
  }

  /** The client the lock uses; null for the in-memory lock of elector.lead-when-disabled. */
  ElectorProperties.@Nullable Backend backend() {
    return backend;
  }

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    ready.complete(null);
  }

  @Override
  public void start() {
    elector.start();
    running = true;
    log.info(
        "{} is a candidate for {} ({}){}",
        elector.identity(),
        elector.describe(),
        backend == null
            ? "in this process only"
            : backend == ElectorProperties.Backend.FABRIC8 ? "on fabric8" : "on client-java",
        ready.isDone() || !waitsForReady ? "" : " once the application is ready");
  }

  @Override
  public void stop() {
    running = false;
    elector.close();
    log.info("{} closed its candidacy for {}", elector.identity(), elector.describe());
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
