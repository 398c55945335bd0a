package dev.elector.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The repository's own docs pass every check: snippets compile and links resolve. */
class DocsTest {
  static final Path ROOT =
      Path.of(System.getProperty("docs.root", "../..")).toAbsolutePath().normalize();
  static final Path SNIPPETS =
      ROOT.resolve("checks/docs-check/src/main/java/dev/elector/docs/snippets");

  /** The user's docs: every java snippet in them must be compiled. */
  static List<Markdown> guide() throws IOException {
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      return Stream.concat(
              Stream.of(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md")),
              docs.filter(p -> p.toString().endsWith(".md")).sorted())
          .map(Markdown::read)
          .toList();
    }
  }

  /** Every Markdown file of the repository, outside build output. */
  static List<Markdown> everyMarkdownFile() throws IOException {
    try (Stream<Path> files = Files.walk(ROOT)) {
      return files
          .filter(p -> p.toString().endsWith(".md"))
          .filter(
              p -> !ROOT.relativize(p).toString().matches("(.*/)?(target|node_modules|\\.git)/.*"))
          .sorted()
          .map(Markdown::read)
          .toList();
    }
  }

  @Test
  void everyJavaSnippetOfTheGuideIsARegionOfACompiledSource() throws IOException {
    List<Markdown> guide = guide();
    long snippets =
        guide.stream()
            .flatMap(d -> d.fences().stream())
            .filter(f -> f.language().equals("java"))
            .count();
    assertTrue(snippets >= 10, "the guide should show code; found " + snippets + " java snippets");
    List<String> problems = DocChecks.snippets(ROOT, guide, SNIPPETS);
    assertEquals(List.of(), problems, String.join("\n", problems));
    System.out.printf(
        "docs: %d java snippets in %d files, each a compiled region%n", snippets, guide.size());
  }

  @Test
  void everyRelativeLinkInEveryMarkdownFileResolves() throws IOException {
    List<Markdown> docs = everyMarkdownFile();
    long links = docs.stream().mapToLong(d -> d.links().size()).sum();
    assertFalse(docs.isEmpty());
    List<String> problems = DocChecks.links(ROOT, docs);
    assertEquals(List.of(), problems, String.join("\n", problems));
    System.out.printf("docs: %d links in %d Markdown files resolve%n", links, docs.size());
  }

  /** README.md and docs/: where a figure is quoted to users. */
  static List<Path> quotingFigures() throws IOException {
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      return Stream.concat(
              Stream.of(ROOT.resolve("README.md")),
              docs.filter(p -> p.toString().endsWith(".md")).sorted())
          .toList();
    }
  }

  @Test
  void everyQuotedFigureIsInTheResultsRowItLinks() throws IOException {
    List<Path> docs = quotingFigures();
    long figures = docs.stream().mapToLong(d -> Figures.links(readString(d)).size()).sum();
    assertTrue(figures >= 40, "expected the docs to link their figures; found " + figures);
    List<String> problems = Figures.check(ROOT, docs);
    assertEquals(List.of(), problems, String.join("\n", problems));
    System.out.printf(
        "docs: %d figures in %d files, each in the results row it links%n", figures, docs.size());
  }

  @Test
  void noMeasuredFigureIsQuotedWithoutItsRow() throws IOException {
    List<String> problems = Figures.unlinked(ROOT, quotingFigures());
    assertEquals(List.of(), problems, String.join("\n", problems));
  }

  private static String readString(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void theLandingPageStaysShort() throws IOException {
    long lines = Files.readAllLines(ROOT.resolve("README.md")).size();
    assertTrue(
        lines <= 250,
        "README.md has "
            + lines
            + " lines; it is the landing page: keep it "
            + "under 250 and move the detail into docs/");
  }

  /**
   * Every Spring property the Spring guide names has configuration metadata in the published jar
   * (the processor's from {@code ElectorProperties} merged with the hand-written additions), so
   * that IDEs complete it and do not flag it as unknown.
   */
  @Test
  void everySpringPropertyTheGuideNamesHasMetadata() throws IOException {
    Set<String> named = springProperties(Files.readString(ROOT.resolve("docs/spring-boot.md")));
    assertTrue(named.size() >= 20, "too few properties found in the guide: " + named);
    Set<String> described = new TreeSet<>();
    Pattern name = Pattern.compile("\"name\"\\s*:\\s*\"([^\"]+)\"");
    for (URL url :
        Collections.list(
            getClass()
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
      try (InputStream in = url.openStream()) {
        Matcher m = name.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        while (m.find()) {
          described.add(m.group(1));
        }
      }
    }
    Set<String> missing = new TreeSet<>(named);
    missing.removeAll(described);
    assertEquals(Set.of(), missing, "properties in docs/spring-boot.md without metadata");
  }

  /** The {@code elector.*} and {@code management.health.elector.*} properties a text names. */
  static Set<String> springProperties(String text) {
    Set<String> found = new TreeSet<>();
    Matcher m =
        Pattern.compile(
                "`((?:management\\.health\\.)?elector\\.[a-z][a-z0-9.-]*[a-z0-9])(?=[`=: ])")
            .matcher(text);
    while (m.find()) {
      found.add(m.group(1));
    }
    return found;
  }
}
