package dev.elector.testkit.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinitionNames;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinitionSpec;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinitionVersion;
import io.kubernetes.client.openapi.models.V1CustomResourceValidation;
import io.kubernetes.client.openapi.models.V1JSONSchemaProps;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The extension gives a real API server: storage, optimistic concurrency, RBAC, CRDs. */
@KubeTest
class KubeClusterIT {

  /**
   * Waits as the project's tests do with {@code Await.until} (elector-testenv, which this module
   * cannot depend on): checks at once, then every 20 ms on this thread; an exception counts as
   * false.
   */
  private static void await(String what, Duration timeout, Callable<Boolean> condition) {
    Awaitility.await(what)
        .atMost(timeout)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(20))
        .pollInSameThread()
        .ignoreExceptions()
        .until(condition);
  }

  private static V1Lease lease(String name, String holder) {
    return new V1Lease()
        .apiVersion("coordination.k8s.io/v1")
        .kind("Lease")
        .metadata(new V1ObjectMeta().name(name))
        .spec(new V1LeaseSpec().holderIdentity(holder));
  }

  @Test
  void storesALease(ApiClient admin, KubeNamespace namespace) throws ApiException {
    CoordinationV1Api api = new CoordinationV1Api(admin);
    api.createNamespacedLease(namespace.name(), lease("stored", "me")).execute();

    V1Lease read = api.readNamespacedLease("stored", namespace.name()).execute();

    assertEquals("me", read.getSpec().getHolderIdentity());
    assertNotEquals(null, read.getMetadata().getResourceVersion());
  }

  @Test
  void updateWithStaleResourceVersionIsConflict(ApiClient admin, KubeNamespace namespace)
      throws ApiException {
    CoordinationV1Api api = new CoordinationV1Api(admin);
    V1Lease created = api.createNamespacedLease(namespace.name(), lease("stale", "a")).execute();
    V1Lease stale = created.spec(created.getSpec().holderIdentity("b"));
    api.replaceNamespacedLease("stale", namespace.name(), stale).execute();

    ApiException conflict =
        assertThrows(
            ApiException.class,
            () ->
                api.replaceNamespacedLease(
                        "stale", namespace.name(), stale.spec(stale.getSpec().holderIdentity("c")))
                    .execute());

    assertEquals(409, conflict.getCode());
  }

  @Test
  void restrictedIdentityIsForbiddenOutsideItsRole(KubeCluster cluster, KubeNamespace home)
      throws ApiException {
    KubeNamespace other = cluster.createNamespace("other");
    KubeIdentity identity = cluster.newIdentity(home, "reader");
    ApiClient admin = cluster.admin();
    new CoordinationV1Api(admin).createNamespacedLease(home.name(), lease("mine", "x")).execute();
    new CoordinationV1Api(admin)
        .createNamespacedLease(other.name(), lease("theirs", "y"))
        .execute();
    CoordinationV1Api asIdentity = new CoordinationV1Api(identity.client());
    ApiException beforeGrant =
        assertThrows(
            ApiException.class,
            () -> asIdentity.readNamespacedLease("mine", home.name()).execute());
    assertEquals(403, beforeGrant.getCode());

    cluster.grant(
        identity,
        home,
        List.of(
            new V1PolicyRule()
                .apiGroups(List.of("coordination.k8s.io"))
                .resources(List.of("leases"))
                .verbs(List.of("get"))));

    await(
        "the Role takes effect",
        Duration.ofSeconds(10),
        () -> asIdentity.readNamespacedLease("mine", home.name()).execute() != null);
    assertEquals(
        "x",
        asIdentity
            .readNamespacedLease("mine", home.name())
            .execute()
            .getSpec()
            .getHolderIdentity());
    ApiException elsewhere =
        assertThrows(
            ApiException.class,
            () -> asIdentity.readNamespacedLease("theirs", other.name()).execute());
    assertEquals(403, elsewhere.getCode());
    assertTrue(
        elsewhere.getResponseBody().contains(identity.username()), elsewhere.getResponseBody());
  }

  @Test
  void installsACustomResourceDefinition(ApiClient admin, KubeNamespace namespace)
      throws ApiException {
    String group = "test.elector.dev";
    String plural = "widgets" + namespace.name().substring(namespace.name().lastIndexOf('-') + 1);
    // client-java's model sends an empty "dependencies" map unless told not to; servers reject it
    V1JSONSchemaProps schema =
        new V1JSONSchemaProps()
            .type("object")
            .dependencies(null)
            .properties(
                Map.of(
                    "spec",
                    new V1JSONSchemaProps()
                        .type("object")
                        .dependencies(null)
                        .properties(
                            Map.of(
                                "size",
                                new V1JSONSchemaProps().type("integer").dependencies(null)))));
    new ApiextensionsV1Api(admin)
        .createCustomResourceDefinition(
            new V1CustomResourceDefinition()
                .apiVersion("apiextensions.k8s.io/v1")
                .kind("CustomResourceDefinition")
                .metadata(new V1ObjectMeta().name(plural + "." + group))
                .spec(
                    new V1CustomResourceDefinitionSpec()
                        .group(group)
                        .scope("Namespaced")
                        .names(
                            new V1CustomResourceDefinitionNames()
                                .plural(plural)
                                .singular(plural + "x")
                                .kind("Widget" + plural.substring(7))
                                .listKind("WidgetList" + plural.substring(7)))
                        .versions(
                            List.of(
                                new V1CustomResourceDefinitionVersion()
                                    .name("v1")
                                    .served(true)
                                    .storage(true)
                                    .schema(
                                        new V1CustomResourceValidation()
                                            .openAPIV3Schema(schema))))))
        .execute();
    CustomObjectsApi custom = new CustomObjectsApi(admin);
    Map<String, Object> widget =
        Map.of(
            "apiVersion",
            group + "/v1",
            "kind",
            "Widget" + plural.substring(7),
            "metadata",
            Map.of("name", "w1"),
            "spec",
            Map.of("size", 3));

    await(
        "the CRD is served",
        Duration.ofSeconds(20),
        () -> {
          custom
              .createNamespacedCustomObject(group, "v1", namespace.name(), plural, widget)
              .execute();
          return true;
        });

    Object read =
        custom.getNamespacedCustomObject(group, "v1", namespace.name(), plural, "w1").execute();
    assertTrue(read.toString().contains("size=3"), read.toString());
  }

  @Test
  void localControlPlaneRestartsWithItsData(KubeCluster cluster, KubeNamespace namespace)
      throws Exception {
    assumeTrue(cluster.isLocalControlPlane(), "needs the local control plane");
    CoordinationV1Api api = new CoordinationV1Api(cluster.admin());
    api.createNamespacedLease(namespace.name(), lease("survivor", "kept")).execute();

    cluster.stopApiServer();
    assertThrows(
        ApiException.class, () -> api.readNamespacedLease("survivor", namespace.name()).execute());
    cluster.restartApiServer();

    // The admin client keeps the URL it was built with: it answers only on the same port.
    await(
        "the restarted server answers",
        Duration.ofSeconds(20),
        () ->
            "kept"
                .equals(
                    api.readNamespacedLease("survivor", namespace.name())
                        .execute()
                        .getSpec()
                        .getHolderIdentity()));
  }
}
