package dev.elector.testkit.kube;

import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.util.Yaml;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads Role rules from shipped manifests, so tests grant exactly what users are told to. */
public final class RoleRules {
  private RoleRules() {}

  /**
   * The rules of every {@code Role} in the YAML file (which may hold several documents).
   *
   * @throws IOException if the file cannot be read
   * @throws IllegalArgumentException if it holds no Role
   */
  public static List<V1PolicyRule> fromYaml(Path file) throws IOException {
    List<V1PolicyRule> rules = new ArrayList<>();
    for (Object document : Yaml.loadAll(file.toFile())) {
      if (document instanceof V1Role role && role.getRules() != null) {
        rules.addAll(role.getRules());
      }
    }
    if (rules.isEmpty()) {
      throw new IllegalArgumentException(file + " holds no Role with rules");
    }
    return List.copyOf(rules);
  }
}
