package dev.elector.demo;

import dev.elector.testkit.kube.KubeCluster;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Gives a local process the identity a pod would have: applies a shipped RBAC file (ServiceAccount,
 * Role, RoleBinding) into a namespace, as {@code kubectl apply -n NAMESPACE -f FILE} would, and
 * writes a kubeconfig that authenticates as that ServiceAccount with a TokenRequest token. Used by
 * {@code examples/hello-leader/ci.sh}:
 *
 * <pre>
 * LocalServiceAccount --admin-kubeconfig FILE --namespace NS --rbac FILE --service-account NAME
 *     --out FILE
 * </pre>
 */
public final class LocalServiceAccount {
  private LocalServiceAccount() {}

  /** Runs it; exits with status 2 on bad arguments, 1 when the API server refuses. */
  public static void main(String[] args) throws Exception {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      options.put(args[i], args[i + 1]);
    }
    List<String> required =
        List.of("--admin-kubeconfig", "--namespace", "--rbac", "--service-account", "--out");
    if (args.length % 2 != 0
        || !options.keySet().containsAll(required)
        || options.size() != required.size()) {
      System.err.println(
          "usage: LocalServiceAccount --admin-kubeconfig FILE --namespace NS"
              + " --rbac FILE --service-account NAME --out FILE (got "
              + String.join(" ", args)
              + ")");
      System.exit(2);
    }
    String namespace = options.get("--namespace");
    try (KubeCluster cluster =
        KubeCluster.fromKubeconfig(
            "admin kubeconfig", Path.of(options.get("--admin-kubeconfig")), null)) {
      CoreV1Api core = new CoreV1Api(cluster.admin());
      Manifests.ensureNamespace(core, namespace);
      for (String applied :
          Manifests.apply(cluster.admin(), Path.of(options.get("--rbac")), namespace)) {
        System.out.println("applied " + applied);
      }
      AuthenticationV1TokenRequest token =
          core.createNamespacedServiceAccountToken(
                  options.get("--service-account"),
                  namespace,
                  new AuthenticationV1TokenRequest()
                      .spec(new V1TokenRequestSpec().expirationSeconds(3600L)))
              .execute();
      Path out = Path.of(options.get("--out"));
      Files.writeString(out, cluster.kubeconfigYaml(token.getStatus().getToken()));
      System.out.println(
          "wrote "
              + out
              + " for system:serviceaccount:"
              + namespace
              + ":"
              + options.get("--service-account"));
    }
  }
}
