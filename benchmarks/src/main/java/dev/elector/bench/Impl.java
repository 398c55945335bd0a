package dev.elector.bench;

/** The implementations compared; ELECTOR_POLL is Elector with watching followers turned off. */
enum Impl {
  ELECTOR("Elector (watching followers)", "elector"),
  ELECTOR_POLL("Elector (polling followers)", "elector-poll"),
  /**
   * Elector tuned for many locks per JVM with its documented options: no watch ({@code
   * watchWhenFollowing(false)}) and 4 shared I/O threads ({@code executor(...)}).
   */
  ELECTOR_BOUNDED("Elector (polling, 4 shared I/O threads)", "elector-4io"),
  /**
   * Elector for many locks per JVM that keeps watching: one watch of the namespace's Leases shared
   * by all its locks ({@code sharedWatch(true)}) and the same 4 shared I/O threads.
   */
  ELECTOR_SHARED("Elector (shared watch, 4 shared I/O threads)", "elector-shared"),
  /** Elector with watching followers on the fabric8 backend ({@code Fabric8LeaseLock}). */
  ELECTOR_FABRIC8("Elector (fabric8 backend)", "elector-fabric8"),
  CLIENT_JAVA("client-java-extended 25.0.0", "client-java"),
  FABRIC8("fabric8 kubernetes-client 8.0.0", "fabric8"),
  /**
   * client-go v0.37.2's elector (LeaseLock, ReleaseOnCancel) in a Go process of its own per
   * candidate: testenv/cmd/elector-gocandidate.
   */
  CLIENT_GO("client-go v0.37.2 (Go process)", "client-go");

  final String label;
  final String key;

  Impl(String label, String key) {
    this.label = label;
    this.key = key;
  }

  boolean isElector() {
    return this == ELECTOR
        || this == ELECTOR_POLL
        || this == ELECTOR_BOUNDED
        || this == ELECTOR_SHARED
        || this == ELECTOR_FABRIC8;
  }
}
