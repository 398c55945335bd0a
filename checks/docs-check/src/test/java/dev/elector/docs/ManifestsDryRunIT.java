package dev.elector.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.testenv.Await;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import io.kubernetes.client.Discovery;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.kubernetes.client.openapi.apis.ApiextensionsV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import okhttp3.Call;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Every YAML snippet of the guide and every shipped manifest is accepted by a real API server with
 * strict field validation, as a server-side dry run: a misspelt field, a wrong type or an unknown
 * kind fails the build. The custom resource definitions they need are created first.
 */
@KubeTest
class ManifestsDryRunIT {

  /** One object of a manifest, with where it was written. */
  record Manifest(String source, Map<String, Object> object) {
    String kind() {
      return String.valueOf(object.get("kind"));
    }

    String apiVersion() {
      return String.valueOf(object.get("apiVersion"));
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> metadata() {
      return (Map<String, Object>) object.getOrDefault("metadata", Map.of());
    }

    String describe() {
      return source + " " + kind() + "/" + metadata().getOrDefault("name", "?");
    }
  }

  @Test
  void everyShippedManifestAndYamlSnippetPassesStrictServerSideDryRun(
      KubeCluster cluster, ApiClient admin, KubeNamespace namespace) throws Exception {
    List<Manifest> manifests = manifests();
    List<Manifest> crds =
        manifests.stream().filter(m -> m.kind().equals("CustomResourceDefinition")).toList();
    for (Manifest crd : crds) {
      createCrd(admin, crd);
    }
    List<String> problems = new ArrayList<>();
    Resources resources = new Resources(admin);
    int checked = 0;
    for (Manifest manifest : manifests) {
      if (manifest.kind().equals("CustomResourceDefinition")) {
        checked++;
        continue; // created for real above, which validates them the same way
      }
      dryRun(admin, resources, namespace, manifest).ifPresent(problems::add);
      checked++;
    }
    System.out.printf(
        "manifests: %d objects (%d custom resource definitions) from %d sources "
            + "passed strict server-side dry-run%n",
        checked, crds.size(), manifests.stream().map(Manifest::source).distinct().count());
    assertTrue(checked >= 30, "expected every shipped manifest, found " + checked + " objects");
    assertEquals(List.of(), problems, String.join("\n", problems));
  }

  @Test
  void aManifestWithAMisspeltFieldIsRefused(ApiClient admin, KubeNamespace namespace)
      throws Exception {
    Manifest typo =
        parse(
                "fixture",
                """
        apiVersion: rbac.authorization.k8s.io/v1
        kind: Role
        metadata:
          name: typo
        rules:
          - apiGroups: ["coordination.k8s.io"]
            resources: ["leases"]
            verb: ["get"]
        """)
            .get(0);
    Optional<String> problem = dryRun(admin, new Resources(admin), namespace, typo);
    assertTrue(problem.isPresent(), "a Role with 'verb' instead of 'verbs' passed the dry run");
    assertTrue(
        problem.get().contains("fixture Role/typo") && problem.get().contains("verb"),
        problem.get());
  }

  /** Every object of every shipped manifest and of every yaml block of the guide. */
  static List<Manifest> manifests() throws IOException {
    List<Manifest> all = new ArrayList<>();
    Path root = DocsTest.ROOT;
    try (Stream<Path> files =
        Stream.concat(Files.walk(root.resolve("deploy")), Files.walk(root.resolve("examples")))) {
      for (Path file : files.filter(ManifestsDryRunIT::isManifest).sorted().toList()) {
        all.addAll(parse(root.relativize(file).toString(), Files.readString(file)));
      }
    }
    for (Markdown doc : DocsTest.guide()) {
      for (Markdown.Fence fence : doc.fences()) {
        if (fence.language().equals("yaml") || fence.language().equals("yml")) {
          all.addAll(parse(root.relativize(doc.file()) + ":" + fence.line(), fence.text()));
        }
      }
    }
    return all;
  }

  private static boolean isManifest(Path file) {
    String name = file.toString();
    return (name.endsWith(".yaml") || name.endsWith(".yml"))
        && !name.contains("/target/")
        && !name.contains("/src/");
  }

  @SuppressWarnings("unchecked")
  static List<Manifest> parse(String source, String yaml) {
    List<Manifest> out = new ArrayList<>();
    for (Object doc : new Yaml().loadAll(yaml)) {
      if (doc instanceof Map<?, ?> map && map.containsKey("kind")) {
        out.add(new Manifest(source, (Map<String, Object>) map));
      }
    }
    return out;
  }

  private static void createCrd(ApiClient admin, Manifest crd) throws Exception {
    Optional<String> failure =
        send(admin, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd, false);
    if (failure.isPresent() && !failure.get().contains("409")) {
      throw new AssertionError(crd.describe() + " was refused: " + failure.get());
    }
    String name = String.valueOf(crd.metadata().get("name"));
    Await.until(
        name + " established",
        Duration.ofSeconds(30),
        () ->
            new ApiextensionsV1Api(admin)
                .readCustomResourceDefinition(name).execute().getStatus().getConditions().stream()
                    .anyMatch(
                        c -> c.getType().equals("Established") && c.getStatus().equals("True")));
  }

  private static Optional<String> dryRun(
      ApiClient admin, Resources resources, KubeNamespace testNamespace, Manifest manifest)
      throws Exception {
    Optional<Discovery.APIResource> resource =
        resources.find(manifest.apiVersion(), manifest.kind());
    if (resource.isEmpty()) {
      return Optional.of(
          manifest.describe()
              + ": the API server serves no "
              + manifest.kind()
              + " in "
              + manifest.apiVersion());
    }
    String apiVersion = manifest.apiVersion();
    String base = apiVersion.contains("/") ? "/apis/" + apiVersion : "/api/" + apiVersion;
    String path;
    if (resource.get().getNamespaced()) {
      String ns =
          String.valueOf(manifest.metadata().getOrDefault("namespace", testNamespace.name()));
      ensureNamespace(admin, ns);
      path = base + "/namespaces/" + ns + "/" + resource.get().getResourcePlural();
    } else {
      path = base + "/" + resource.get().getResourcePlural();
    }
    return send(admin, path, manifest, true).map(f -> manifest.describe() + ": " + f);
  }

  private static final Set<String> namespaces = new HashSet<>();

  private static void ensureNamespace(ApiClient admin, String name) throws ApiException {
    if (namespaces.add(name)) {
      try {
        new CoreV1Api(admin)
            .createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(name)))
            .execute();
      } catch (ApiException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }
  }

  /** POSTs the object; empty when the server accepted it, else its status and message. */
  private static Optional<String> send(
      ApiClient admin, String path, Manifest manifest, boolean dryRun) throws Exception {
    List<Pair> query = new ArrayList<>();
    query.add(new Pair("fieldValidation", "Strict"));
    if (dryRun) {
      query.add(new Pair("dryRun", "All"));
    }
    Map<String, String> headers = new HashMap<>();
    headers.put("Content-Type", "application/json");
    headers.put("Accept", "application/json");
    Call call =
        admin.buildCall(
            admin.getBasePath(),
            path,
            "POST",
            query,
            List.of(),
            manifest.object(),
            headers,
            Map.of(),
            Map.of(),
            new String[] {"BearerToken"},
            null);
    try (Response response = call.execute()) {
      if (response.isSuccessful()) {
        return Optional.empty();
      }
      String body = response.body() == null ? "" : response.body().string();
      return Optional.of("refused with " + response.code() + ": " + message(body));
    }
  }

  @SuppressWarnings("unchecked")
  private static String message(String body) {
    try {
      Map<String, Object> status = new Yaml().load(body);
      return String.valueOf(status.getOrDefault("message", body));
    } catch (RuntimeException notJson) {
      return body;
    }
  }

  /** The API server's resources by apiVersion and kind, read once. */
  private static final class Resources {
    private final Map<String, Discovery.APIResource> byKind = new LinkedHashMap<>();

    Resources(ApiClient admin) throws ApiException {
      for (Discovery.APIResource r : new Discovery(admin).findAll()) {
        for (String version : r.getVersions()) {
          String apiVersion = r.getGroup().isEmpty() ? version : r.getGroup() + "/" + version;
          byKind.putIfAbsent(apiVersion + " " + r.getKind(), r);
        }
      }
    }

    Optional<Discovery.APIResource> find(String apiVersion, String kind) {
      return Optional.ofNullable(byKind.get(apiVersion + " " + kind));
    }
  }
}
