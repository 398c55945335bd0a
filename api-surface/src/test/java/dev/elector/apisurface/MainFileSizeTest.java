package dev.elector.apisurface;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * No main source file of a published module is longer than {@value #LIMIT} lines: a file past that
 * holds more than one responsibility, and is split along them (not by moving its Javadoc away).
 */
class MainFileSizeTest {
  static final int LIMIT = 400;

  /** Modules whose directory is not named as their artifact. */
  private static final Map<String, String> DIRECTORIES =
      Map.of(
          "elector-quarkus", "elector-quarkus/runtime",
          "elector-quarkus-deployment", "elector-quarkus/deployment");

  @TestFactory
  Stream<DynamicTest> noMainFileOfAPublishedModuleIsLongerThanTheLimit() {
    return ApiSurfaceTest.MODULES.stream()
        .map(module -> dynamicTest(module, () -> assertEquals(List.of(), tooLong(module))));
  }

  @Test
  void everyPublishedModuleHasMainSourcesToCheck() throws IOException {
    for (String module : ApiSurfaceTest.MODULES) {
      assertTrue(
          !javaFiles(module).isEmpty(),
          module + ": no Java file under " + mainSources(module) + "; is the directory right?");
    }
  }

  /** The files of {@code module} over the limit, each as "path: N lines; split it ...". */
  static List<String> tooLong(String module) throws IOException {
    return javaFiles(module).stream()
        .map(
            file -> {
              long lines = lines(file);
              return lines > LIMIT
                  ? root().relativize(file)
                      + ": "
                      + lines
                      + " lines, over "
                      + LIMIT
                      + "; split it by responsibility"
                  : "";
            })
        .filter(problem -> !problem.isEmpty())
        .toList();
  }

  private static List<Path> javaFiles(String module) throws IOException {
    Path sources = mainSources(module);
    if (!Files.isDirectory(sources)) {
      throw new IllegalStateException(module + ": " + sources + " is not a directory");
    }
    try (Stream<Path> files = Files.walk(sources)) {
      return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
  }

  private static Path mainSources(String module) {
    return root().resolve(DIRECTORIES.getOrDefault(module, module)).resolve("src/main/java");
  }

  private static long lines(Path file) {
    try (Stream<String> lines = Files.lines(file)) {
      return lines.count();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
  }

  /** The repository: the parent of this module's directory. */
  private static Path root() {
    Path module = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    Path parent = module.getParent();
    if (parent == null) {
      throw new IllegalStateException(module + " has no parent directory");
    }
    return parent;
  }
}
