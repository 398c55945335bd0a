package dev.elector.quarkus.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.QuarkusProdModeTest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** The objects of the kubernetes.yml that quarkus-kubernetes wrote, and views on them. */
final class GeneratedManifests {
  /**
   * quarkus-kubernetes, for QuarkusProdModeTest#setForcedDependencies: the application of a prod
   * mode test holds the module's own dependencies only, not its test dependencies.
   */
  static final List<Dependency> QUARKUS_KUBERNETES =
      List.of(Dependency.of("io.quarkus", "quarkus-kubernetes", Version.getVersion()));

  /**
   * A prod-mode build of an empty application named {@code name} with quarkus-kubernetes, dev
   * services off; a test adds its own settings.
   */
  static QuarkusProdModeTest application(String name) {
    return new QuarkusProdModeTest()
        .withEmptyApplication()
        .setApplicationName(name)
        .setApplicationVersion("1.0")
        .setForcedDependencies(QUARKUS_KUBERNETES)
        .overrideConfigKey("quarkus.devservices.enabled", "false");
  }

  private final List<HasMetadata> objects;

  private GeneratedManifests(List<HasMetadata> objects) {
    this.objects = objects;
  }

  /** Reads {@code kubernetes/kubernetes.yml} under the build directory. */
  static GeneratedManifests read(Path buildDir) {
    Path file = buildDir.resolve("kubernetes").resolve("kubernetes.yml");
    try (InputStream in = Files.newInputStream(file)) {
      Object read = new KubernetesSerialization().unmarshal(in);
      List<HasMetadata> objects;
      if (read instanceof KubernetesList list) {
        objects = list.getItems();
      } else if (read instanceof List<?> list) {
        objects = list.stream().map(HasMetadata.class::cast).toList();
      } else {
        objects = List.of((HasMetadata) read);
      }
      return new GeneratedManifests(objects);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The object of that kind and name, if there is one. */
  <T extends HasMetadata> Optional<T> find(Class<T> type, String name) {
    return objects.stream()
        .filter(type::isInstance)
        .map(type::cast)
        .filter(o -> name.equals(o.getMetadata().getName()))
        .findFirst();
  }

  /** Every object of that kind. */
  <T extends HasMetadata> List<T> all(Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  /** The object of that kind and name; fails naming what there is. */
  /** Fails if the extension's Role or RoleBinding for {@code app} is among the objects. */
  void assertNoLeaderElectionRbac(String app) {
    String name = app + "-leader-election";
    if (find(Role.class, name).isPresent() || find(RoleBinding.class, name).isPresent()) {
      throw new AssertionError("a Role or RoleBinding " + name + " in " + this);
    }
  }

  <T extends HasMetadata> T get(Class<T> type, String name) {
    return find(type, name)
        .orElseThrow(
            () -> new AssertionError("no " + type.getSimpleName() + " " + name + " in " + this));
  }

  /** The Deployment's container's environment variables, as NAME=value or NAME<-fieldPath. */
  List<String> env(String deployment) {
    return get(Deployment.class, deployment)
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .stream()
        .flatMap(c -> c.getEnv().stream())
        .map(GeneratedManifests::describe)
        .toList();
  }

  /** The Deployment's service account. */
  String serviceAccountName(String deployment) {
    return get(Deployment.class, deployment)
        .getSpec()
        .getTemplate()
        .getSpec()
        .getServiceAccountName();
  }

  /** One rule per line: apiGroups resources resourceNames verbs. */
  static String describe(List<PolicyRule> rules) {
    return rules.stream()
        .map(
            r ->
                r.getApiGroups()
                    + " "
                    + r.getResources()
                    + " "
                    + r.getResourceNames()
                    + " "
                    + r.getVerbs())
        .collect(Collectors.joining("\n"));
  }

  static void assertRules(String expected, List<PolicyRule> rules) {
    assertEquals(expected, describe(rules));
  }

  private static String describe(EnvVar var) {
    if (var.getValueFrom() != null && var.getValueFrom().getFieldRef() != null) {
      return var.getName() + "<-" + var.getValueFrom().getFieldRef().getFieldPath();
    }
    return var.getName() + "=" + var.getValue();
  }

  @Override
  public String toString() {
    return objects.stream()
        .map(o -> o.getKind() + " " + o.getMetadata().getName())
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
