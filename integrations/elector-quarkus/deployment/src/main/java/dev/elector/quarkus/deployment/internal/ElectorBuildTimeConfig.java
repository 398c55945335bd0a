package dev.elector.quarkus.deployment.internal;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** What the extension adds to the application, fixed when it is built. */
@ConfigMapping(prefix = "quarkus.elector")
@ConfigRoot(phase = ConfigPhase.BUILD_TIME)
interface ElectorBuildTimeConfig {
  /**
   * Whether the application takes part in the election: false registers no elector, no events, no
   * health check and no meters (for a profile such as {@code %dev} or {@code %test}).
   */
  @WithDefault("true")
  boolean enabled();

  /** The liveness check. */
  Health health();

  /** The meters. */
  Metrics metrics();

  /** What the extension adds to the manifests that quarkus-kubernetes generates. */
  Kubernetes kubernetes();

  /** The liveness check. */
  interface Health {
    /**
     * Whether the liveness check {@code elector} is added when quarkus-smallrye-health is there.
     */
    @WithDefault("true")
    boolean enabled();
  }

  /** The meters. */
  interface Metrics {
    /**
     * Whether the elector's meters ({@code leader_election_master_status} and {@code elector_*})
     * are bound when quarkus-micrometer is there and enabled.
     */
    @WithDefault("true")
    boolean enabled();
  }

  /** What the extension adds to the manifests that quarkus-kubernetes generates. */
  interface Kubernetes {
    /**
     * Whether the extension adds to the manifests that quarkus-kubernetes (or quarkus-openshift,
     * quarkus-knative) generates, when the application has it: the environment variables {@code
     * POD_NAME} and {@code POD_NAMESPACE} from the Downward API, a Role with what the elector needs
     * on its lock, a RoleBinding of it to the application's ServiceAccount, and that
     * ServiceAccount. The lock's name, kind and the Events and shared watch permissions are those
     * of {@code quarkus.elector.*} as set when the application is built; values given only at run
     * time are not seen. Set false to write the RBAC yourself.
     */
    @WithDefault("true")
    boolean enabled();
  }
}
