package dev.elector.k8s;

import dev.elector.kube.PodEnvironment;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a lock backend learns its namespace and default identity: environment variables, the
 * service account's namespace file and the host name. {@link #system()} reads the real ones; {@link
 * #of} supplies fixed values, for tests. The rules are those of {@link PodEnvironment}, shared by
 * every Elector backend.
 *
 * <p>Namespace: {@code POD_NAMESPACE} (set it from the Downward API, {@code fieldRef:
 * metadata.namespace}), else the file {@value #NAMESPACE_FILE} that Kubernetes mounts with a
 * service account token. There is no fallback to {@code default} or {@code kube-system}.
 *
 * <p>Default identity: {@code POD_NAME} (Downward API, {@code metadata.name}), else the host name,
 * followed by {@code _} and a random suffix drawn once per process, so a restarted pod never
 * mistakes its predecessor's lease for its own. Two candidates for the same lock inside one process
 * need explicit identities.
 */
public final class KubeEnvironment {
  /** The namespace file of a pod's service account. */
  public static final String NAMESPACE_FILE = PodEnvironment.NAMESPACE_FILE;

  private static final KubeEnvironment SYSTEM = new KubeEnvironment(PodEnvironment.system());

  private final PodEnvironment pod;

  private KubeEnvironment(PodEnvironment pod) {
    this.pod = pod;
  }

  /** The process's real environment, files and host name. */
  public static KubeEnvironment system() {
    return SYSTEM;
  }

  /**
   * A fixed environment for tests: {@code env} holds the variables, {@code files} the content of
   * files by path, {@code hostName} the host name and {@code suffix} the identity suffix.
   */
  public static KubeEnvironment of(
      Map<String, String> env, Map<String, String> files, String hostName, String suffix) {
    return new KubeEnvironment(PodEnvironment.of(env, files, hostName, suffix));
  }

  /** The same environment as {@code pod}, the form every Elector backend shares. */
  public static KubeEnvironment of(PodEnvironment pod) {
    return new KubeEnvironment(Objects.requireNonNull(pod, "pod"));
  }

  /** The namespace of the pod this process runs in, if it can be told. */
  public Optional<String> namespace() {
    return pod.namespace();
  }

  /** The identity used when none is given: pod name or host name, {@code _}, random suffix. */
  public String defaultIdentity() {
    return pod.defaultIdentity();
  }

  PodEnvironment pod() {
    return pod;
  }
}
