package dev.elector.testkit.kube;

import dev.elector.testkit.internal.LocalControlPlane;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.AuthenticationV1TokenRequest;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.openapi.models.V1TokenRequestSpec;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.Yaml;
import io.kubernetes.client.util.credentials.AccessTokenAuthentication;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * A Kubernetes API server for tests: an admin client, fresh namespaces and restricted identities.
 * One per test JVM, from {@link KubeClusterExtension}. Namespaces are never deleted (a local
 * control plane has no namespace controller); their names are unique instead. Thread-safe.
 */
public final class KubeCluster implements AutoCloseable {
  private final String description;
  private final String server;
  private final byte @Nullable [] certificateAuthority;
  private final ApiClient admin;
  private final String adminKubeconfigYaml;
  private final @Nullable LocalControlPlane local;
  private final @Nullable AutoCloseable resource;
  private final Deque<LocalControlPlane.StaticUser> freeStaticUsers = new ArrayDeque<>();
  private @Nullable Boolean tokenRequestWorks;

  private KubeCluster(
      String description,
      String kubeconfigYaml,
      @Nullable Path kubeconfigFile,
      @Nullable LocalControlPlane local,
      @Nullable AutoCloseable resource)
      throws IOException {
    KubeConfig config = KubeConfig.loadKubeConfig(new StringReader(kubeconfigYaml));
    if (kubeconfigFile != null) {
      config.setFile(kubeconfigFile.toFile());
    }
    this.server = config.getServer();
    this.certificateAuthority = certificateAuthority(config, kubeconfigFile);
    this.admin = ClientBuilder.kubeconfig(config).build();
    this.adminKubeconfigYaml = kubeconfigYaml;
    this.description = description;
    this.local = local;
    this.resource = resource;
    if (local != null) {
      freeStaticUsers.addAll(local.users());
    }
  }

  /**
   * A cluster from a kubeconfig file (its current context), for use outside JUnit, such as a demo;
   * {@code resource} (the process behind it, say) is closed with the cluster, unless null.
   *
   * @throws IOException if the kubeconfig cannot be read
   */
  public static KubeCluster fromKubeconfig(
      String description, Path file, @Nullable AutoCloseable resource) throws IOException {
    return new KubeCluster(description, Files.readString(file), file, null, resource);
  }

  /** The cluster of a local control plane process, which it closes when closed. */
  static KubeCluster ofLocalControlPlane(String description, LocalControlPlane local)
      throws IOException {
    return new KubeCluster(
        description, Files.readString(local.kubeconfig()), local.kubeconfig(), local, local);
  }

  /** A cluster from kubeconfig text, closing {@code resource} when closed. */
  static KubeCluster fromKubeconfigYaml(
      String description, String yaml, @Nullable AutoCloseable resource) throws IOException {
    return new KubeCluster(description, yaml, null, null, resource);
  }

  /** A client with cluster-admin rights. */
  public ApiClient admin() {
    return admin;
  }

  /**
   * The kubeconfig the admin client was built from, for clients of other libraries (such as
   * fabric8) that need the same rights.
   */
  public String adminKubeconfigYaml() {
    return adminKubeconfigYaml;
  }

  /** The API server's URL. */
  public String server() {
    return server;
  }

  /** What this cluster is, for messages: local control plane, kubeconfig or k3s. */
  public String description() {
    return description;
  }

  /**
   * Whether this cluster is the local control plane process, which {@link #stopApiServer()} and
   * {@link #restartApiServer()} need; an outage test assumes it.
   */
  public boolean isLocalControlPlane() {
    return local != null;
  }

  /**
   * Stops the local control plane process (SIGTERM), keeping its port, certificates, tokens and
   * stored objects; until {@link #restartApiServer()}, every request fails to connect. For outage
   * tests.
   *
   * @throws IllegalStateException if this cluster is not the local control plane
   */
  public void stopApiServer() {
    localControlPlane().stop();
  }

  /**
   * Starts the local control plane process again on the same port with the same data, stopping it
   * first if it runs, and waits until it is ready.
   *
   * @throws IOException if it does not become ready
   * @throws IllegalStateException if this cluster is not the local control plane
   */
  public void restartApiServer() throws IOException {
    localControlPlane().restart();
  }

  private LocalControlPlane localControlPlane() {
    if (local == null) {
      throw new IllegalStateException(
          description + " is not the local control plane; check isLocalControlPlane() first");
    }
    return local;
  }

  /**
   * Creates a namespace named {@code prefix} plus a random suffix (cut to a valid name).
   *
   * @throws ApiException if the API server refuses
   */
  public KubeNamespace createNamespace(String prefix) throws ApiException {
    String base =
        prefix
            .toLowerCase(Locale.ROOT)
            .replaceAll("[^a-z0-9-]", "-")
            .replaceAll("-+", "-")
            .replaceAll("^-|-$", "");
    if (base.length() > 50) {
      base = base.substring(0, 50).replaceAll("-$", "");
    }
    String name =
        (base.isEmpty() ? "t" : base)
            + "-"
            + Long.toString(
                ThreadLocalRandom.current()
                    .nextLong(36L * 36 * 36 * 36 * 36, 36L * 36 * 36 * 36 * 36 * 36),
                36);
    new CoreV1Api(admin)
        .createNamespace(
            new V1Namespace()
                .apiVersion("v1")
                .kind("Namespace")
                .metadata(new V1ObjectMeta().name(name)))
        .execute();
    return new KubeNamespace(name);
  }

  /**
   * A new identity without permissions. A ServiceAccount {@code name} in {@code home} with a token
   * from the TokenRequest API, as a pod would have; where the cluster cannot issue tokens, the next
   * unused static user of the local control plane.
   *
   * @throws ApiException if neither can be had
   */
  public KubeIdentity newIdentity(KubeNamespace home, String name) throws ApiException {
    synchronized (this) {
      if (Boolean.FALSE.equals(tokenRequestWorks)) {
        return nextStaticUser(name);
      }
    }
    CoreV1Api core = new CoreV1Api(admin);
    core.createNamespacedServiceAccount(
            home.name(),
            new V1ServiceAccount()
                .apiVersion("v1")
                .kind("ServiceAccount")
                .metadata(new V1ObjectMeta().name(name)))
        .execute();
    AuthenticationV1TokenRequest token;
    try {
      token =
          core.createNamespacedServiceAccountToken(
                  name,
                  home.name(),
                  new AuthenticationV1TokenRequest()
                      .spec(new V1TokenRequestSpec().expirationSeconds(3600L)))
              .execute();
    } catch (ApiException e) {
      synchronized (this) {
        if (freeStaticUsers.isEmpty()) {
          throw e;
        }
        tokenRequestWorks = false;
        LoggerFactory.getLogger(KubeCluster.class)
            .warn(
                "{}: ServiceAccount tokens unavailable" + " ({}); using static token users instead",
                description,
                e.getCode());
        return nextStaticUser(name);
      }
    }
    synchronized (this) {
      tokenRequestWorks = true;
    }
    String username = "system:serviceaccount:" + home.name() + ":" + name;
    RbacV1Subject subject =
        new RbacV1Subject().kind("ServiceAccount").name(name).namespace(home.name());
    String bearer = token.getStatus().getToken();
    return new KubeIdentity(username, subject, clientWithToken(bearer), bearer);
  }

  /**
   * The rules of every {@code Role} in a YAML file (which may hold several documents), such as a
   * shipped manifest, so that a test grants exactly what users are told to.
   *
   * @throws IOException if the file cannot be read
   * @throws IllegalArgumentException if it holds no Role with rules
   */
  public static List<V1PolicyRule> roleRules(Path yamlFile) throws IOException {
    List<V1PolicyRule> rules = new ArrayList<>();
    for (Object document : Yaml.loadAll(yamlFile.toFile())) {
      if (document instanceof V1Role role && role.getRules() != null) {
        rules.addAll(role.getRules());
      }
    }
    if (rules.isEmpty()) {
      throw new IllegalArgumentException(yamlFile + " holds no Role with rules");
    }
    return List.copyOf(rules);
  }

  /**
   * Creates a Role holding {@code rules} in {@code where} and binds it to {@code who}. Both are
   * named after the identity; granting twice in one namespace fails.
   *
   * @throws ApiException if the API server refuses
   */
  public void grant(KubeIdentity who, KubeNamespace where, List<V1PolicyRule> rules)
      throws ApiException {
    Objects.requireNonNull(rules, "rules");
    String name = who.subject().getName().replaceAll("[^a-z0-9.-]", "-");
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(admin);
    rbac.createNamespacedRole(
            where.name(),
            new V1Role()
                .apiVersion("rbac.authorization.k8s.io/v1")
                .kind("Role")
                .metadata(new V1ObjectMeta().name(name))
                .rules(rules))
        .execute();
    rbac.createNamespacedRoleBinding(
            where.name(),
            new V1RoleBinding()
                .apiVersion("rbac.authorization.k8s.io/v1")
                .kind("RoleBinding")
                .metadata(new V1ObjectMeta().name(name))
                .roleRef(
                    new V1RoleRef().apiGroup("rbac.authorization.k8s.io").kind("Role").name(name))
                .subjects(List.of(who.subject())))
        .execute();
  }

  /** A client for this server that authenticates with {@code token} only. */
  public ApiClient clientWithToken(String token) {
    ClientBuilder builder =
        new ClientBuilder()
            .setBasePath(server)
            .setAuthentication(new AccessTokenAuthentication(token));
    if (certificateAuthority != null) {
      builder.setCertificateAuthority(certificateAuthority);
    } else {
      builder.setVerifyingSsl(false);
    }
    return builder.build();
  }

  /**
   * A kubeconfig for this server that authenticates with {@code token} only, for a process started
   * by a test or a demo (for example with an identity's {@link KubeIdentity#token()}).
   */
  public String kubeconfigYaml(String token) {
    Objects.requireNonNull(token, "token");
    String cluster =
        certificateAuthority != null
            ? "    certificate-authority-data: "
                + Base64.getEncoder().encodeToString(certificateAuthority)
                + "\n"
            : "    insecure-skip-tls-verify: true\n";
    return "apiVersion: v1\n"
        + "kind: Config\n"
        + "clusters:\n"
        + "- name: elector\n"
        + "  cluster:\n"
        + "    server: "
        + server
        + "\n"
        + cluster
        + "users:\n"
        + "- name: token\n"
        + "  user:\n"
        + "    token: "
        + token
        + "\n"
        + "contexts:\n"
        + "- name: elector\n"
        + "  context:\n"
        + "    cluster: elector\n"
        + "    user: token\n"
        + "current-context: elector\n";
  }

  /** Stops what this cluster started (process or container). */
  @Override
  public void close() {
    if (resource != null) {
      try {
        resource.close();
      } catch (Exception e) {
        throw new IllegalStateException("could not stop " + description + ": " + e, e);
      }
    }
  }

  @Override
  public String toString() {
    return description;
  }

  private KubeIdentity nextStaticUser(String name) throws ApiException {
    LocalControlPlane.StaticUser user = freeStaticUsers.poll();
    if (user == null) {
      throw new ApiException(
          "no static users left for identity "
              + name
              + "; start the control"
              + " plane with more --users");
    }
    RbacV1Subject subject =
        new RbacV1Subject().kind("User").name(user.name()).apiGroup("rbac.authorization.k8s.io");
    return new KubeIdentity(user.name(), subject, clientWithToken(user.token()), user.token());
  }

  private static byte @Nullable [] certificateAuthority(KubeConfig config, @Nullable Path file)
      throws IOException {
    String data = config.getCertificateAuthorityData();
    if (data != null && !data.isBlank()) {
      return Base64.getDecoder().decode(data.trim());
    }
    String caFile = config.getCertificateAuthorityFile();
    if (caFile != null && !caFile.isBlank()) {
      Path path = Path.of(caFile);
      if (!path.isAbsolute() && file != null && file.getParent() != null) {
        path = file.getParent().resolve(path);
      }
      return Files.readString(path, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
    }
    return null;
  }
}
