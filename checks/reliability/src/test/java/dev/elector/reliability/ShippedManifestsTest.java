package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.reliability.ShippedManifests.Document;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The shipped manifests, read without a server. Files meant to be applied together never define the
 * same object twice: the later file would silently replace the earlier one's object, as a Role of
 * an optional file that reuses the name of rbac.yaml's Role replaces its rules. {@link
 * ShippedRbacIT} checks what the files grant on a real API server.
 */
class ShippedManifestsTest {
  private static final Set<String> RBAC_KINDS =
      Set.of("Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding");

  @Test
  void manifestsAppliedTogetherNeverDefineTheSameObjectTwice() throws Exception {
    List<String> clashes = new ArrayList<>();
    for (List<String> together : ShippedManifests.APPLIED_TOGETHER) {
      Map<String, String> definedIn = new LinkedHashMap<>();
      for (String file : together) {
        for (Document document : ShippedManifests.documents(file)) {
          String first = definedIn.putIfAbsent(document.identity(), file);
          if (first != null) {
            clashes.add(
                file
                    + " defines "
                    + document.identity()
                    + ", which "
                    + (first.equals(file) ? "it defines already" : first + " defines too")
                    + "; applied together ("
                    + String.join(" + ", together)
                    + "), the later one replaces the earlier. Give it a name of its own, or leave it"
                    + " to the file that defines it first.");
          }
        }
      }
    }
    assertEquals(List.of(), clashes, String.join("\n", clashes));
  }

  @Test
  void theLockManifestsTakeTheirServiceAccountFromRbacYamlAndBindOnlyTheirOwnRoles()
      throws Exception {
    List<String> problems = new ArrayList<>();
    for (String kind : List.of("lease", "configmap")) {
      String base = "deploy/" + kind + "/rbac.yaml";
      Set<String> accounts = new TreeSet<>();
      for (Document document : ShippedManifests.documents(base)) {
        if (document.kind().equals("ServiceAccount")) {
          accounts.add(document.name());
        }
      }
      if (accounts.isEmpty()) {
        problems.add(base + " creates no ServiceAccount");
      }
      for (String file :
          List.of(
              base,
              "deploy/" + kind + "/rbac-shared-watch.yaml",
              "deploy/" + kind + "/rbac-events.yaml")) {
        List<Document> documents = ShippedManifests.documents(file);
        Set<String> roles = new TreeSet<>();
        for (Document document : documents) {
          if (document.kind().equals("Role")) {
            roles.add(document.name());
          }
          if (document.kind().equals("ServiceAccount") && !file.equals(base)) {
            problems.add(
                file
                    + " creates the ServiceAccount "
                    + document.name()
                    + "; only "
                    + base
                    + " may, the optional files bind the one it creates");
          }
        }
        for (Document binding : documents) {
          if (!binding.kind().equals("RoleBinding")) {
            continue;
          }
          Object roleRef = binding.content().get("roleRef");
          String role = roleRef instanceof Map<?, ?> ref ? String.valueOf(ref.get("name")) : null;
          if (!roles.contains(role)) {
            problems.add(
                file
                    + ": RoleBinding "
                    + binding.name()
                    + " binds "
                    + role
                    + ", not a Role of this file "
                    + roles);
          }
          for (Map<String, Object> subject : binding.list("subjects")) {
            if ("ServiceAccount".equals(subject.get("kind"))
                && !accounts.contains(String.valueOf(subject.get("name")))) {
              problems.add(
                  file
                      + ": RoleBinding "
                      + binding.name()
                      + " binds the ServiceAccount "
                      + subject.get("name")
                      + ", which "
                      + base
                      + " does not create "
                      + accounts);
            }
          }
        }
      }
    }
    assertEquals(List.of(), problems, String.join("\n", problems));
  }

  @Test
  void theLockManifestsAllowGetAndWritesOnTheLockNameOnly() throws Exception {
    List<String> problems = new ArrayList<>();
    for (String kind : List.of("lease", "configmap")) {
      String resource = kind + "s";
      for (String file : List.of("rbac.yaml", "rbac-shared-watch.yaml", "rbac-events.yaml")) {
        String path = "deploy/" + kind + "/" + file;
        // Without resourceNames a rule reaches every object of the namespace, other applications'
        // locks included: only create (which cannot be limited by name), list and watch may.
        Set<String> allowedWithoutNames =
            file.equals("rbac-shared-watch.yaml")
                ? Set.of("list", "watch")
                : Set.of("create", "list", "watch");
        for (Document document : ShippedManifests.documents(path)) {
          if (!document.kind().equals("Role")) {
            continue;
          }
          for (Map<String, Object> rule : document.list("rules")) {
            List<?> resources = listOrEmpty(rule.get("resources"));
            List<?> names = listOrEmpty(rule.get("resourceNames"));
            if (!(resources.contains(resource) || resources.contains("*")) || !names.isEmpty()) {
              continue;
            }
            for (Object verb : listOrEmpty(rule.get("verbs"))) {
              if (!allowedWithoutNames.contains(String.valueOf(verb))) {
                problems.add(
                    path
                        + ": Role "
                        + document.name()
                        + " allows "
                        + verb
                        + " on every object of "
                        + resource
                        + " in the namespace (no resourceNames); allowed there: "
                        + new TreeSet<>(allowedWithoutNames));
              }
            }
          }
        }
      }
    }
    assertEquals(List.of(), problems, String.join("\n", problems));
  }

  @Test
  void noShippedRuleUpdatesOrDeletesLeases() throws Exception {
    // Elector renews and releases with patch: update and delete on leases are never needed, and
    // update would let an identity overwrite any lock it reaches.
    Set<String> never = Set.of("update", "delete", "deletecollection", "*");
    List<String> problems = new ArrayList<>();
    for (String file : ShippedManifests.RBAC_FILES) {
      for (Document document : ShippedManifests.documents(file)) {
        if (!document.kind().equals("Role") && !document.kind().equals("ClusterRole")) {
          continue;
        }
        for (Map<String, Object> rule : document.list("rules")) {
          List<?> groups = listOrEmpty(rule.get("apiGroups"));
          List<?> resources = listOrEmpty(rule.get("resources"));
          if (!(groups.contains("coordination.k8s.io") || groups.contains("*"))
              || !(resources.contains("leases") || resources.contains("*"))) {
            continue;
          }
          for (Object verb : listOrEmpty(rule.get("verbs"))) {
            // The one exception: --uninstall deletes the Leases the controller and its agents
            // made, as a one-shot Job whose rights go with it (the chart's post-delete hook).
            boolean uninstallDeletes =
                file.equals("deploy/controller/uninstall-rbac.yaml") && "delete".equals(verb);
            if (never.contains(String.valueOf(verb)) && !uninstallDeletes) {
              problems.add(
                  file
                      + ": "
                      + document.kind()
                      + " "
                      + document.name()
                      + " allows "
                      + verb
                      + " on leases");
            }
          }
        }
      }
    }
    assertEquals(List.of(), problems, String.join("\n", problems));
  }

  @Test
  void everyShippedFileWithRbacObjectsIsCheckedOnTheServer() throws Exception {
    List<String> unchecked = new ArrayList<>();
    for (String file : ShippedManifests.yamlFiles()) {
      boolean rbac =
          ShippedManifests.documents(file).stream()
              .map(Document::kind)
              .anyMatch(RBAC_KINDS::contains);
      if (rbac && !ShippedManifests.RBAC_FILES.contains(file)) {
        unchecked.add(file);
      }
    }
    assertTrue(
        unchecked.isEmpty(),
        unchecked
            + " hold RBAC objects but are not in ShippedManifests.RBAC_FILES; add them there and"
            + " give ShippedRbacIT a case that applies them as their documentation says");
    for (String file : ShippedManifests.RBAC_FILES) {
      assertTrue(
          ShippedManifests.APPLIED_TOGETHER.stream().anyMatch(set -> set.contains(file)),
          file + " is in no set of ShippedManifests.APPLIED_TOGETHER");
    }
  }

  private static List<?> listOrEmpty(Object value) {
    return value instanceof List<?> list ? list : List.of();
  }
}
