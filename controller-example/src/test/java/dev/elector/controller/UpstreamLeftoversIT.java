package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ippool.IPPool;
import dev.elector.ippool.PoolCondition;
import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AdmissionregistrationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.RbacAuthorizationV1Api;
import io.kubernetes.client.openapi.models.AdmissionregistrationV1ServiceReference;
import io.kubernetes.client.openapi.models.AdmissionregistrationV1WebhookClientConfig;
import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1ClusterRoleBinding;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1MutatingWebhook;
import io.kubernetes.client.openapi.models.V1MutatingWebhookConfiguration;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.openapi.models.V1RuleWithOperations;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import io.kubernetes.client.openapi.models.V1ValidatingWebhook;
import io.kubernetes.client.openapi.models.V1ValidatingWebhookConfiguration;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Upstream's webhook server writes its webhook configurations and certificate Secrets at run time,
 * outside its Helm release; disabling upstream's add-on leaves them behind, pointing at a Service
 * that is gone, and the validating one (failurePolicy Fail) then refuses every IPPool write. Here
 * they are written as upstream writes them (names, webhook names, Service reference, paths, rules,
 * failure policies, TLS Secrets), with one difference: a namespace selector limits them to this
 * test's pool namespace, since the test API server serves other test classes after this one. The
 * controller runs under the shipped RBAC plus the rules the chart adds with {@code
 * upstreamMigration: true} (ChartIT checks the chart holds exactly these).
 *
 * <p>While upstream's Service exists, upstream still runs: the leader leaves its objects alone and
 * the pool stays refused. Once the Service is gone, the leader deletes them and the pool is taken
 * over. Prints the time from the Service's deletion to the leftovers' and to the pool's takeover.
 */
@KubeTest
class UpstreamLeftoversIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration RECHECK = Duration.ofMillis(500);
  private static final String NAME = UpstreamLeftovers.NAME;

  @Test
  void upstreamsWebhookLeftoversGoOnceItsServiceIsGoneAndNotBefore(
      KubeCluster cluster, KubeNamespace pools) throws Exception {
    ApiClient admin = cluster.admin();
    AdmissionregistrationV1Api admission = new AdmissionregistrationV1Api(admin);
    CoreV1Api core = new CoreV1Api(admin);
    try (ControllerHarness harness = ControllerHarness.create(cluster, "upstream-leftovers")) {
      String upstreamNs = harness.home.name(); // the chart runs where upstream ran
      grantWhatTheChartAddsForMigration(cluster, harness);
      // a pool upstream served, stored before its webhook was registered
      IPPool stored = harness.create(ControllerHarness.pool(pools.name(), "net-7", 7));
      core.createNamespacedService(
              upstreamNs,
              new V1Service()
                  .metadata(new V1ObjectMeta().name(NAME))
                  .spec(new V1ServiceSpec().ports(List.of(new V1ServicePort().port(443)))))
          .execute();
      writeAsUpstreamsWebhookServerDoes(admission, core, upstreamNs, pools.name());
      try {
        AtomicInteger reconciles = new AtomicInteger();
        harness.upstreamAgentNamespace = upstreamNs;
        harness.start(
            "replica-a",
            2,
            b ->
                b.upstreamRecheck(RECHECK)
                    .reconcileObserver(
                        (kind, key, shard, term, start, end) -> {
                          if (key.equals(pools.name() + "/net-7")) {
                            reconciles.incrementAndGet();
                          }
                        }));
        harness.awaitLeader(WAIT);

        // upstream still runs: its objects stay and the pool's writes are refused
        long lookedFrom = System.nanoTime();
        Await.until(
            "the leader has reconciled the pool over more than two looks",
            WAIT,
            () -> reconciles.get() >= 3 && System.nanoTime() - lookedFrom > 2 * RECHECK.toNanos());
        assertTrue(exists(() -> admission.readValidatingWebhookConfiguration(NAME).execute()));
        assertTrue(exists(() -> admission.readMutatingWebhookConfiguration(NAME).execute()));
        assertTrue(exists(() -> core.readNamespacedSecret(NAME + "-ca", upstreamNs).execute()));
        assertEquals(
            null,
            registered(harness.read(pools.name(), "net-7")),
            "upstream's webhook refuses the pool's writes while it is registered");

        // upstream's add-on disabled: its Service goes, its runtime objects stay
        long serviceGone = System.nanoTime();
        core.deleteNamespacedService(NAME, upstreamNs).execute();
        Await.until(
            "the leader deletes upstream's leftover webhook configurations and Secrets",
            WAIT,
            () ->
                !exists(() -> admission.readValidatingWebhookConfiguration(NAME).execute())
                    && !exists(() -> admission.readMutatingWebhookConfiguration(NAME).execute())
                    && !exists(() -> core.readNamespacedSecret(NAME + "-ca", upstreamNs).execute())
                    && !exists(
                        () -> core.readNamespacedSecret(NAME + "-tls", upstreamNs).execute()));
        long leftoversGone = System.nanoTime();
        Await.until(
            "the pool is taken over: Registered, with the controller's finalizer",
            WAIT,
            () -> {
              IPPool pool = harness.read(pools.name(), "net-7");
              PoolCondition registered = registered(pool);
              return registered != null
                  && "True".equals(registered.getStatus())
                  && pool.getMetadata().getFinalizers() != null
                  && pool.getMetadata().getFinalizers().contains(PoolReconciler.FINALIZER);
            });
        long takenOver = System.nanoTime();
        assertEquals(
            stored.getMetadata().getUid(),
            harness.read(pools.name(), "net-7").getMetadata().getUid(),
            "the same pool object");
        System.out.printf(
            "FIGURE upstream leftovers: while upstream's Service existed its webhook"
                + " configurations stayed and the pool's writes were refused (%d reconciles); after"
                + " the Service's deletion they and its Secrets were gone in %d ms and the pool"
                + " Registered in %d ms (a look every %d ms)%n",
            reconciles.get(),
            (leftoversGone - serviceGone) / 1_000_000,
            (takenOver - serviceGone) / 1_000_000,
            RECHECK.toMillis());
      } finally {
        deleteIfPresent(() -> admission.deleteValidatingWebhookConfiguration(NAME).execute());
        deleteIfPresent(() -> admission.deleteMutatingWebhookConfiguration(NAME).execute());
      }
    }
  }

  private static PoolCondition registered(IPPool pool) {
    return pool.getStatus() == null ? null : pool.getStatus().condition("Registered").orElse(null);
  }

  /**
   * What harvester/webhook writes: both configurations named after the server, one webhook each
   * ({@code validator.<ns>.<name>}, {@code mutator.<ns>.<name>}) calling the Service of that name
   * on port 443, failurePolicy Fail for validation and Ignore for mutation; and its CA and serving
   * certificate as TLS Secrets {@code <name>-ca} and {@code <name>-tls}.
   */
  private static void writeAsUpstreamsWebhookServerDoes(
      AdmissionregistrationV1Api admission, CoreV1Api core, String upstreamNs, String poolNs)
      throws ApiException {
    byte[] ca =
        "-----BEGIN CERTIFICATE-----\nupstream\n-----END CERTIFICATE-----\n"
            .getBytes(StandardCharsets.UTF_8);
    V1LabelSelector onlyThisTest =
        new V1LabelSelector().matchLabels(Map.of("kubernetes.io/metadata.name", poolNs));
    List<V1RuleWithOperations> validated =
        List.of(
            rule("ippools", List.of("CREATE", "UPDATE", "DELETE")),
            rule("virtualmachinenetworkconfigs", List.of("CREATE", "UPDATE", "DELETE")));
    admission
        .createValidatingWebhookConfiguration(
            new V1ValidatingWebhookConfiguration()
                .metadata(new V1ObjectMeta().name(NAME))
                .webhooks(
                    List.of(
                        new V1ValidatingWebhook()
                            .name("validator." + upstreamNs + "." + NAME)
                            .clientConfig(client(upstreamNs, "/v1/webhook/validation", ca))
                            .rules(validated)
                            .namespaceSelector(onlyThisTest)
                            .failurePolicy("Fail")
                            .sideEffects("None")
                            .admissionReviewVersions(List.of("v1", "v1beta1")))))
        .execute();
    admission
        .createMutatingWebhookConfiguration(
            new V1MutatingWebhookConfiguration()
                .metadata(new V1ObjectMeta().name(NAME))
                .webhooks(
                    List.of(
                        new V1MutatingWebhook()
                            .name("mutator." + upstreamNs + "." + NAME)
                            .clientConfig(client(upstreamNs, "/v1/webhook/mutation", ca))
                            .rules(List.of(rule("ippools", List.of("CREATE", "UPDATE"))))
                            .namespaceSelector(onlyThisTest)
                            .failurePolicy("Ignore")
                            .sideEffects("None")
                            .admissionReviewVersions(List.of("v1", "v1beta1")))))
        .execute();
    for (String secret : List.of(NAME + "-ca", NAME + "-tls")) {
      core.createNamespacedSecret(
              upstreamNs,
              new V1Secret()
                  .metadata(new V1ObjectMeta().name(secret))
                  .type("kubernetes.io/tls")
                  .data(Map.of("tls.crt", ca, "tls.key", "key".getBytes(StandardCharsets.UTF_8))))
          .execute();
    }
  }

  private static V1RuleWithOperations rule(String resource, List<String> operations) {
    return new V1RuleWithOperations()
        .apiGroups(List.of("network.harvesterhci.io"))
        .apiVersions(List.of("v1alpha1"))
        .resources(List.of(resource))
        .operations(operations)
        .scope("Namespaced");
  }

  private static AdmissionregistrationV1WebhookClientConfig client(
      String namespace, String path, byte[] ca) {
    return new AdmissionregistrationV1WebhookClientConfig()
        .service(
            new AdmissionregistrationV1ServiceReference()
                .namespace(namespace)
                .name(NAME)
                .path(path)
                .port(443))
        .caBundle(ca);
  }

  /** The rules the chart adds with upstreamMigration: true, beyond the shipped RBAC. */
  private static void grantWhatTheChartAddsForMigration(
      KubeCluster cluster, ControllerHarness harness) throws ApiException {
    RbacAuthorizationV1Api rbac = new RbacAuthorizationV1Api(cluster.admin());
    String home = harness.home.name();
    rbac.createNamespacedRole(
            home,
            new V1Role()
                .metadata(new V1ObjectMeta().name("upstream-leftovers"))
                .rules(
                    List.of(
                        new V1PolicyRule()
                            .apiGroups(List.of(""))
                            .resources(List.of("services"))
                            .resourceNames(List.of(NAME))
                            .verbs(List.of("get")),
                        new V1PolicyRule()
                            .apiGroups(List.of(""))
                            .resources(List.of("secrets"))
                            .resourceNames(List.of(NAME + "-ca", NAME + "-tls"))
                            .verbs(List.of("get", "delete")))))
        .execute();
    rbac.createNamespacedRoleBinding(
            home,
            new V1RoleBinding()
                .metadata(new V1ObjectMeta().name("upstream-leftovers"))
                .roleRef(
                    new V1RoleRef()
                        .apiGroup("rbac.authorization.k8s.io")
                        .kind("Role")
                        .name("upstream-leftovers"))
                .subjects(List.of(harness.identity.subject())))
        .execute();
    String role = "upstream-leftovers-" + home;
    rbac.createClusterRole(
            new V1ClusterRole()
                .metadata(new V1ObjectMeta().name(role))
                .rules(
                    List.of(
                        new V1PolicyRule()
                            .apiGroups(List.of("admissionregistration.k8s.io"))
                            .resources(
                                List.of(
                                    "validatingwebhookconfigurations",
                                    "mutatingwebhookconfigurations"))
                            .resourceNames(List.of(NAME))
                            .verbs(List.of("get", "delete")))))
        .execute();
    rbac.createClusterRoleBinding(
            new V1ClusterRoleBinding()
                .metadata(new V1ObjectMeta().name(role))
                .roleRef(
                    new V1RoleRef()
                        .apiGroup("rbac.authorization.k8s.io")
                        .kind("ClusterRole")
                        .name(role))
                .subjects(List.of(harness.identity.subject())))
        .execute();
    CoreV1Api asController = new CoreV1Api(harness.identity.client());
    Await.until(
        "the migration rules take effect",
        WAIT,
        () -> {
          try {
            asController.readNamespacedService(NAME, home).execute();
            return true;
          } catch (ApiException e) {
            return e.getCode() == 404; // allowed to look; not there yet
          }
        });
  }

  private interface Call {
    Object run() throws ApiException;
  }

  private static boolean exists(Call read) throws ApiException {
    try {
      read.run();
      return true;
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  private static void deleteIfPresent(Call delete) throws ApiException {
    exists(delete);
  }
}
