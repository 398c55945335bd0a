package dev.elector.apisurface;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The published jars expose their API and nothing else.
 *
 * <p>For each library module, every public or protected type outside the {@code .internal} packages
 * and its public and protected members must match the checked-in golden file {@code
 * src/test/resources/api-surface/<artifactId>.txt}, so that a change to the API is a visible,
 * reviewed change; {@code -Dapi.surface.update=true} rewrites the files. And no such signature may
 * name a type of an {@code .internal} package, unless {@code <artifactId>.allowed-internal.txt}
 * lists it with a reason.
 */
class ApiSurfaceTest {

  /**
   * The published jars (the library modules of the root pom and the BOM);
   * elector-spring-boot-starter has no classes, only dependencies.
   */
  static final List<String> MODULES =
      List.of(
          "elector-core",
          "elector-testkit",
          "elector-shards",
          "elector-kube-base",
          "elector-k8s-lease",
          "elector-configmap",
          "elector-fabric8",
          "elector-micrometer",
          "elector-josdk",
          "elector-quarkus",
          "elector-quarkus-deployment",
          "elector-spring-boot-autoconfigure");

  private static final String ACCEPT =
      "./mvnw -o -pl checks/api-surface -am verify -DskipITs -Dapi.surface.update=true";

  private static final Map<String, ApiSurface> SURFACES = new ConcurrentHashMap<>();

  @TestFactory
  Stream<DynamicTest> apiMatchesTheGoldenFile() {
    return MODULES.stream().map(module -> dynamicTest(module, () -> checkSurface(module)));
  }

  @TestFactory
  Stream<DynamicTest> noPublicSignatureNamesAnInternalType() {
    return MODULES.stream().map(module -> dynamicTest(module, () -> checkInternal(module)));
  }

  @Test
  void everyFileBelongsToALibraryModule() throws IOException {
    List<String> stray;
    try (Stream<Path> files = Files.list(goldenDir())) {
      stray =
          files
              .map(f -> f.getFileName().toString())
              .filter(
                  name -> !MODULES.contains(name.replaceFirst("(\\.allowed-internal)?\\.txt$", "")))
              .sorted()
              .collect(Collectors.toList());
    }
    if (!stray.isEmpty()) {
      fail(
          "files in "
              + goldenDir()
              + " of no library module "
              + MODULES
              + ": "
              + stray
              + "; delete them, or add the module to ApiSurfaceTest.MODULES and to the"
              + " dependencies of checks/api-surface/pom.xml");
    }
  }

  private static void checkSurface(String module) throws IOException {
    String actual =
        "# The public API of "
            + module
            + ": every public or protected type outside the .internal\n"
            + "# packages, and its public and protected members. Checked by ApiSurfaceTest; to accept\n"
            + "# a change, rewrite this file with\n#   "
            + ACCEPT
            + "\n"
            + surface(module).text();
    Path golden = goldenDir().resolve(module + ".txt");
    String expected = Files.exists(golden) ? Files.readString(golden, UTF_8) : null;
    if (Boolean.getBoolean("api.surface.update")) {
      if (!actual.equals(expected)) {
        Files.writeString(golden, actual, UTF_8);
        System.out.println("api-surface: rewrote " + golden);
      }
      return;
    }
    if (expected == null) {
      fail(
          "no golden file "
              + golden
              + " for "
              + module
              + "; write it with\n  "
              + ACCEPT
              + "\nthen review and commit it");
    }
    Set<String> want = ApiSurface.entries(expected);
    Set<String> have = ApiSurface.entries(actual);
    List<String> added = have.stream().filter(e -> !want.contains(e)).collect(Collectors.toList());
    List<String> removed =
        want.stream().filter(e -> !have.contains(e)).collect(Collectors.toList());
    if (added.isEmpty() && removed.isEmpty()) {
      return;
    }
    StringBuilder message =
        new StringBuilder("the public API of ")
            .append(module)
            .append(" differs from ")
            .append(golden)
            .append(" (")
            .append(added.size())
            .append(" added, ")
            .append(removed.size())
            .append(" removed):\n");
    added.forEach(e -> message.append("  added:   ").append(e).append('\n'));
    removed.forEach(e -> message.append("  removed: ").append(e).append('\n'));
    message
        .append("If the change is meant, accept it with\n  ")
        .append(ACCEPT)
        .append(
            "\nand commit the rewritten file. If not, make what was added package-private or move")
        .append(" it to an .internal package, and restore what was removed.");
    fail(message.toString());
  }

  private static void checkInternal(String module) throws IOException {
    Path allowedFile = goldenDir().resolve(module + ".allowed-internal.txt");
    Map<String, String> allowed = readAllowed(allowedFile);
    List<ApiSurface.Leak> leaks = new ArrayList<>();
    Set<String> used = new LinkedHashSet<>();
    for (ApiSurface.Leak leak : surface(module).leaks()) {
      if (allowed.containsKey(leak.element())) {
        used.add(leak.element());
      } else {
        leaks.add(leak);
      }
    }
    List<String> stale =
        allowed.keySet().stream().filter(k -> !used.contains(k)).collect(Collectors.toList());
    if (leaks.isEmpty() && stale.isEmpty()) {
      return;
    }
    StringBuilder message = new StringBuilder();
    if (!leaks.isEmpty()) {
      message
          .append(module)
          .append(": ")
          .append(leaks.size())
          .append(" public signature(s) name a type of an .internal package:\n");
      for (ApiSurface.Leak leak : leaks) {
        message
            .append("  ")
            .append(leak.element())
            .append(" names ")
            .append(leak.internalType())
            .append("\n      in ")
            .append(leak.signature())
            .append('\n');
      }
      message
          .append("Keep the member out of the API (package-private, or in an .internal package),")
          .append(" or make the type API (out of .internal). If the exposure is deliberate, list")
          .append(" the element in ")
          .append(allowedFile)
          .append(" as '<element> <one-line reason>'.\n");
    }
    if (!stale.isEmpty()) {
      message
          .append(allowedFile)
          .append(" lists element(s) that no longer name an internal type; delete these lines: ")
          .append(stale)
          .append('\n');
    }
    fail(message.toString());
  }

  /**
   * The entries of an allowed-internal file: element, then its reason. Blank lines and lines
   * starting with {@code #} are skipped; a missing file allows nothing.
   */
  private static Map<String, String> readAllowed(Path file) throws IOException {
    Map<String, String> allowed = new LinkedHashMap<>();
    if (!Files.exists(file)) {
      return allowed;
    }
    List<String> lines = Files.readAllLines(file, UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] parts = line.split("\\s+", 2);
      if (parts.length < 2) {
        fail(
            file
                + " line "
                + (i + 1)
                + ": '"
                + line
                + "' has no reason; write '<element> <one-line reason>'");
      }
      if (allowed.put(parts[0], parts[1]) != null) {
        fail(file + " line " + (i + 1) + ": " + parts[0] + " is listed twice; keep one line");
      }
    }
    return allowed;
  }

  private static ApiSurface surface(String module) {
    return SURFACES.computeIfAbsent(
        module,
        m -> {
          Path location = location(m);
          System.out.println("api-surface: " + m + " read from " + location);
          return ApiSurface.read(location, Thread.currentThread().getContextClassLoader());
        });
  }

  /**
   * Where the module's classes are on the test class path: its jar ({@code verify} of the reactor,
   * or the local repository) or its {@code target/classes} (a reactor build that stops before
   * {@code package}).
   */
  static Path location(String module) {
    String version = requiredProperty("api.surface.version");
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<Path> found =
        Arrays.stream(classPath.split(File.pathSeparator))
            .filter(entry -> !entry.isEmpty())
            .map(Paths::get)
            .filter(
                p -> {
                  Path name = p.getFileName();
                  if (name == null) {
                    return false;
                  }
                  if (name.toString().equals(module + "-" + version + ".jar")) {
                    return true;
                  }
                  Path target = p.getParent();
                  Path moduleDir = target == null ? null : target.getParent();
                  return name.toString().equals("classes")
                      && target.getFileName().toString().equals("target")
                      && moduleDir != null
                      && moduleDir.getFileName() != null
                      && moduleDir.getFileName().toString().equals(directory(module));
                })
            .distinct()
            .collect(Collectors.toList());
    if (found.size() != 1) {
      fail(
          (found.isEmpty() ? "no" : "more than one")
              + " jar or class directory of "
              + module
              + " "
              + version
              + " on the test class path "
              + found
              + "; checks/api-surface/pom.xml must have it as a test dependency, and the reactor"
              + " must build it first (./mvnw -pl checks/api-surface -am verify)");
    }
    return found.get(0);
  }

  /** The folder a module is built in: its artifactId, but for the Quarkus extension's two. */
  private static String directory(String module) {
    switch (module) {
      case "elector-quarkus":
        return "runtime";
      case "elector-quarkus-deployment":
        return "deployment";
      default:
        return module;
    }
  }

  private static Path goldenDir() {
    return Paths.get(requiredProperty("api.surface.dir"));
  }

  private static String requiredProperty(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      fail(
          "system property "
              + name
              + " is not set; run the test through Maven (checks/api-surface/pom.xml sets it)");
    }
    return value;
  }
}
