package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.ippool.NetworkCrds;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeIdentity;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import io.kubernetes.client.util.PatchUtils;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** --apply-crds brings a stale CRD back to this build's copy, and leaves a current one alone. */
@KubeTest
class CrdApplyIT {
  private static final String POOLS = "ippools.network.harvesterhci.io";

  @Test
  void aStaleCrdIsUpdatedAndACurrentOneIsLeftAlone(ApiClient admin) throws Exception {
    CrdApply.apply(admin, Duration.ofSeconds(30));
    ApiextensionsV1Api api = new ApiextensionsV1Api(admin);
    String column = printerColumn(api.readCustomResourceDefinition(POOLS).execute());
    // an older release's CRD: another column name
    PatchUtils.patch(
        V1CustomResourceDefinition.class,
        () ->
            api.patchCustomResourceDefinition(
                    POOLS,
                    new V1Patch(
                        "[{\"op\":\"replace\",\"path\":"
                            + "\"/spec/versions/0/additionalPrinterColumns/0/name\","
                            + "\"value\":\"STALE\"}]"))
                .buildCall(null),
        V1Patch.PATCH_FORMAT_JSON_PATCH,
        admin);
    assertEquals("STALE", printerColumn(api.readCustomResourceDefinition(POOLS).execute()));

    Map<String, String> outcome = CrdApply.apply(admin, Duration.ofSeconds(30));
    assertEquals("updated", outcome.get(POOLS));
    assertEquals(column, printerColumn(api.readCustomResourceDefinition(POOLS).execute()));

    Map<String, String> again = CrdApply.apply(admin, Duration.ofSeconds(30));
    assertEquals(
        Map.of(
            POOLS,
            "unchanged",
            "virtualmachinenetworkconfigs.network.harvesterhci.io",
            "unchanged"),
        again);
  }

  @Test
  void withoutTheRightsItFailsNamingTheRulesToGrant(KubeCluster cluster, KubeNamespace namespace)
      throws Exception {
    KubeIdentity nobody = cluster.newIdentity(namespace, "no-crd-rights");
    ApiException e =
        assertThrows(
            ApiException.class, () -> CrdApply.apply(nobody.client(), Duration.ofSeconds(5)));
    String message = CrdApply.describe(e);
    assertTrue(message.contains("grant get and update on customresourcedefinitions"), message);
    assertEquals(2, NetworkCrds.definitions().size());
  }

  private static String printerColumn(V1CustomResourceDefinition crd) {
    return crd.getSpec().getVersions().get(0).getAdditionalPrinterColumns().get(0).getName();
  }
}
