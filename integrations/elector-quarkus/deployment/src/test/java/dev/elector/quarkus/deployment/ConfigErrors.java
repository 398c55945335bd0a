package dev.elector.quarkus.deployment;

/** What the config error tests share. */
final class ConfigErrors {
  private ConfigErrors() {}

  /** The deepest cause of a startup failure: what the extension or SmallRye Config threw. */
  static Throwable cause(Throwable thrown) {
    Throwable cause = thrown;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause;
  }
}
