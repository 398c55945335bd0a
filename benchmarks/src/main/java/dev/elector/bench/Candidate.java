package dev.elector.bench;

/**
 * One candidate of one implementation, on its own identity, driven the same way for all. Public
 * because the reliability module's {@code MigrationIT} drives the same candidates on one shared
 * lock.
 */
public interface Candidate {
  String identity();

  /** The probe inside this candidate's lock. */
  Probe probe();

  /** Joins the election. */
  void start();

  /** Stops leading and releases the lock, as the implementation does on a graceful shutdown. */
  void closeGracefully();

  /**
   * The process dies: from now on no call reaches the API server, so nothing is released. The
   * implementation's own threads are then stopped in the background.
   */
  void crash();

  /** Stops whatever still runs; idempotent, never throws. */
  void shutdown();
}
