package dev.elector.ippool;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinitionCondition;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.dynamic.Dynamics;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The CRD manifests of {@code deploy/crds/}, packaged in this jar, and a way to install them.
 * Cluster-scoped CRDs need cluster-admin rights: the demo and tests install them with the admin
 * client; the agent never does, the controller only with {@code --apply-crds}.
 */
public final class NetworkCrds {
  /** Class-path resources of the manifests, in install order. */
  public static final List<String> RESOURCES =
      List.of(
          "/dev/elector/ippool/crds/ippools.network.harvesterhci.io.yaml",
          "/dev/elector/ippool/crds/virtualmachinenetworkconfigs.network.harvesterhci.io.yaml");

  private NetworkCrds() {}

  /** The manifests, parsed. */
  public static List<V1CustomResourceDefinition> definitions() {
    return RESOURCES.stream().map(NetworkCrds::load).toList();
  }

  /** The text of one manifest. */
  public static String manifest(String resource) {
    try (InputStream in = NetworkCrds.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("CRD manifest " + resource + " is not on the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read CRD manifest " + resource, e);
    }
  }

  private static V1CustomResourceDefinition load(String resource) {
    // Through JSON: the client's bean-based YAML binding cannot map openAPIV3Schema properties.
    Object tree = new Yaml(new SafeConstructor(new LoaderOptions())).load(manifest(resource));
    return JSON.deserialize(JSON.serialize(tree), V1CustomResourceDefinition.class);
  }

  /**
   * Creates the CRDs, or replaces them when they exist, and waits until the API server reports them
   * Established.
   *
   * @throws ApiException when the API server refuses (403: the client is not cluster-admin)
   * @throws IllegalStateException when they are not established within {@code timeout}
   */
  public static void install(ApiClient admin, Duration timeout)
      throws ApiException, InterruptedException {
    ApiextensionsV1Api api = new ApiextensionsV1Api(admin);
    // Sent as written: the typed model would add empty schema fields the server refuses.
    DynamicKubernetesApi raw =
        new DynamicKubernetesApi("apiextensions.k8s.io", "v1", "customresourcedefinitions", admin);
    for (String resource : RESOURCES) {
      DynamicKubernetesObject crd = Dynamics.newFromYaml(manifest(resource));
      String name = crd.getMetadata().getName();
      KubernetesApiResponse<DynamicKubernetesObject> created = raw.create(crd);
      if (created.getHttpStatusCode() == 409) {
        DynamicKubernetesObject existing = raw.get(name).throwsApiException().getObject();
        crd.setMetadata(
            crd.getMetadata().resourceVersion(existing.getMetadata().getResourceVersion()));
        raw.update(crd).throwsApiException();
      } else {
        created.throwsApiException();
      }
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    for (V1CustomResourceDefinition crd : definitions()) {
      String name = crd.getMetadata().getName();
      while (!established(api.readCustomResourceDefinition(name).execute())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("CRD " + name + " is not Established after " + timeout);
        }
        Thread.sleep(50);
      }
    }
  }

  private static boolean established(V1CustomResourceDefinition crd) {
    if (crd.getStatus() == null || crd.getStatus().getConditions() == null) {
      return false;
    }
    for (V1CustomResourceDefinitionCondition c : crd.getStatus().getConditions()) {
      if ("Established".equals(c.getType()) && "True".equals(c.getStatus())) {
        return true;
      }
    }
    return false;
  }
}
