package dev.elector.reliability;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.yaml.snakeyaml.Yaml;

/**
 * The Kubernetes manifests shipped under deploy/ and examples/, read as plain YAML documents, and
 * which of them the documentation tells users to apply together.
 */
final class ShippedManifests {
  /** The repository root, seen from a module's directory (where Maven runs the tests). */
  static final Path ROOT = Path.of("..", "..");

  /** Every shipped file that holds RBAC objects; {@link ShippedRbacIT} checks each on a server. */
  static final List<String> RBAC_FILES =
      List.of(
          "deploy/lease/rbac.yaml",
          "deploy/lease/rbac-shared-watch.yaml",
          "deploy/lease/rbac-events.yaml",
          "deploy/configmap/rbac.yaml",
          "deploy/configmap/rbac-shared-watch.yaml",
          "deploy/configmap/rbac-events.yaml",
          "deploy/controller/rbac.yaml",
          "deploy/controller/uninstall-rbac.yaml",
          "deploy/dhcp-agent/rbac.yaml",
          "examples/josdk-operator/deploy/rbac.yaml",
          "examples/qosdk-operator/deploy/rbac.yaml",
          "examples/josdk-fabric8-7/rbac.yaml",
          "examples/quarkus-leader/rbac.yaml");

  /**
   * Files that users apply together, as their headers and READMEs say: each lock kind's rbac.yaml
   * with its optional additions and the Deployment snippet bound to its ServiceAccount; each
   * example with what its instructions apply beside it.
   */
  static final List<List<String>> APPLIED_TOGETHER =
      List.of(
          List.of(
              "deploy/lease/rbac.yaml",
              "deploy/lease/rbac-shared-watch.yaml",
              "deploy/lease/rbac-events.yaml",
              "deploy/deployment-snippet.yaml"),
          List.of(
              "deploy/configmap/rbac.yaml",
              "deploy/configmap/rbac-shared-watch.yaml",
              "deploy/configmap/rbac-events.yaml",
              "deploy/deployment-snippet.yaml"),
          List.of("deploy/lease/rbac.yaml", "examples/hello-leader/deployment.yaml"),
          List.of("deploy/lease/rbac.yaml", "examples/spring-boot-leader/deployment.yaml"),
          List.of(
              "deploy/crds/ippools.network.harvesterhci.io.yaml",
              "deploy/crds/virtualmachinenetworkconfigs.network.harvesterhci.io.yaml",
              "deploy/controller/rbac.yaml",
              "deploy/controller/deployment.yaml"),
          List.of("deploy/dhcp-agent/rbac.yaml", "deploy/dhcp-agent/deployment.yaml"),
          List.of(
              "examples/josdk-operator/deploy/crd.yaml",
              "examples/josdk-operator/deploy/rbac.yaml"),
          List.of("deploy/controller/uninstall-rbac.yaml"),
          List.of("examples/qosdk-operator/deploy/rbac.yaml"),
          List.of("examples/josdk-fabric8-7/rbac.yaml"),
          List.of("examples/quarkus-leader/rbac.yaml"));

  private ShippedManifests() {}

  /** One document of a manifest file. */
  record Document(String file, Map<String, Object> content) {
    String kind() {
      return String.valueOf(content.get("kind"));
    }

    /** The API group: empty for the core group. */
    String group() {
      String apiVersion = String.valueOf(content.get("apiVersion"));
      int slash = apiVersion.indexOf('/');
      return slash < 0 ? "" : apiVersion.substring(0, slash);
    }

    String name() {
      return String.valueOf(metadata().get("name"));
    }

    /** The namespace the document names, or null for the one it is applied to ({@code -n}). */
    String namespace() {
      Object namespace = metadata().get("namespace");
      return namespace == null ? null : namespace.toString();
    }

    /** Kind (qualified by its group), namespace and name: what the API server stores it under. */
    String identity() {
      String qualifiedKind = group().isEmpty() ? kind() : kind() + "." + group();
      String where = namespace() == null ? "" : namespace() + "/";
      return qualifiedKind + " " + where + name();
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> metadata() {
      Object metadata = content.get("metadata");
      return metadata instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
    }

    @SuppressWarnings("unchecked")
    List<Map<String, Object>> list(String field) {
      Object value = content.get(field);
      return value instanceof List<?> list ? (List<Map<String, Object>>) list : List.of();
    }
  }

  /** The file at {@code path} from the repository root. */
  static Path file(String path) {
    return ROOT.resolve(path);
  }

  /** Every non-empty document of the file at {@code path} from the repository root, in order. */
  @SuppressWarnings("unchecked")
  static List<Document> documents(String path) throws IOException {
    List<Document> documents = new ArrayList<>();
    try (Reader reader = Files.newBufferedReader(file(path), StandardCharsets.UTF_8)) {
      for (Object document : new Yaml().loadAll(reader)) {
        if (document instanceof Map<?, ?> map) {
          documents.add(new Document(path, (Map<String, Object>) map));
        }
      }
    }
    return documents;
  }

  /**
   * Every YAML file under deploy/ and examples/ outside build output and module sources (test
   * fixtures), as paths from the repository root.
   */
  static List<String> yamlFiles() throws IOException {
    List<String> files = new ArrayList<>();
    for (String top : List.of("deploy", "examples")) {
      try (Stream<Path> walk = Files.walk(file(top))) {
        walk.filter(Files::isRegularFile)
            .map(p -> ROOT.relativize(p).toString().replace('\\', '/'))
            .filter(p -> p.endsWith(".yaml") || p.endsWith(".yml"))
            .filter(p -> !p.contains("/target/") && !p.contains("/src/"))
            .sorted()
            .forEach(files::add);
      }
    }
    return files;
  }
}
