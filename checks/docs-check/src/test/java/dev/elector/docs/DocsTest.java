package dev.elector.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
}
