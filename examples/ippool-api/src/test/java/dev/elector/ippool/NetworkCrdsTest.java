package dev.elector.ippool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.openapi.models.V1CustomResourceColumnDefinition;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The CRDs carry upstream's short names and the columns `kubectl get` shows upstream. */
class NetworkCrdsTest {
  private static V1CustomResourceDefinition crd(String plural) {
    return NetworkCrds.definitions().stream()
        .filter(c -> c.getSpec().getNames().getPlural().equals(plural))
        .findFirst()
        .orElseThrow();
  }

  private static List<String> columns(V1CustomResourceDefinition crd) {
    return crd.getSpec().getVersions().get(0).getAdditionalPrinterColumns().stream()
        .map(V1CustomResourceColumnDefinition::getName)
        .map(n -> n.toUpperCase(Locale.ROOT))
        .toList();
  }

  @Test
  void ipPoolsHaveUpstreamsShortNamesAndColumns() {
    V1CustomResourceDefinition crd = crd("ippools");
    assertTrue(crd.getSpec().getNames().getShortNames().containsAll(List.of("ippl", "ippls")));
    assertTrue(
        columns(crd)
            .containsAll(
                List.of(
                    "NETWORK",
                    "AVAILABLE",
                    "USED",
                    "REGISTERED",
                    "CACHEREADY",
                    "AGENTREADY",
                    "AGE")),
        columns(crd).toString());
  }

  @Test
  void vmNetworkConfigsHaveUpstreamsShortNamesAndColumns() {
    V1CustomResourceDefinition crd = crd("virtualmachinenetworkconfigs");
    assertTrue(
        crd.getSpec().getNames().getShortNames().containsAll(List.of("vmnetcfg", "vmnetcfgs")));
    assertEquals(List.of("VMNAME", "ALLOCATED", "DISABLED", "INSYNCED", "AGE"), columns(crd));
  }
}
