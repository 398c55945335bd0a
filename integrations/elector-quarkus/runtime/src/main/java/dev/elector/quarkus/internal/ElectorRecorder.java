package dev.elector.quarkus.internal;

import io.quarkus.runtime.annotations.Recorder;
import io.quarkus.runtime.shutdown.ShutdownListener;

/** What the build steps record for the application's start. */
@Recorder
public class ElectorRecorder {
  /** For Quarkus' bytecode recording. */
  public ElectorRecorder() {}

  /** The listener that closes the elector before the HTTP server stops. */
  public ShutdownListener shutdownListener() {
    return new ElectorShutdownListener();
  }
}
