package dev.elector.k8s;

import dev.elector.kube.internal.DaemonThreads;
import java.util.concurrent.Executor;

/**
 * The default executor for blocking requests: the bounded pool of daemon threads every Kubernetes
 * lock of the process shares, whichever client it uses (see {@link DaemonThreads#shared()}).
 */
final class KubeThreads {
  private KubeThreads() {}

  static Executor shared() {
    return DaemonThreads.shared();
  }
}
