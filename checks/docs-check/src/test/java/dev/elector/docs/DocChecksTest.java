package dev.elector.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each check finds what it is for: the docs checks are shown failing on broken docs. */
class DocChecksTest {
  private static final String SOURCE =
      """
      class Example {
        void run() {
          // tag::hello[]
          LeaderElector elector = start();
          elector.close();
          // end::hello[]
        }
      }
      """;

  @TempDir Path root;

  private Markdown doc(String name, String text) throws IOException {
    Path file = root.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
    return Markdown.read(file);
  }

  private Path snippets() throws IOException {
    Path dir = Files.createDirectories(root.resolve("snippets"));
    Files.writeString(dir.resolve("Example.java"), SOURCE);
    return dir;
  }

  @Test
  void aSnippetEqualToItsRegionPasses() throws IOException {
    Markdown doc =
        doc(
            "README.md",
            """
        <!-- snippet: Example.java#hello -->
        ```java
        LeaderElector elector = start();
        elector.close();
        ```
        """);
    assertEquals(List.of(), DocChecks.snippets(root, List.of(doc), snippets()));
  }

  @Test
  void aSnippetThatDiffersFromItsRegionFailsWithTheLine() throws IOException {
    Markdown doc =
        doc(
            "README.md",
            """
        <!-- snippet: Example.java#hello -->
        ```java
        LeaderElector elector = start();
        elector.stop();
        ```
        """);
    List<String> problems = DocChecks.snippets(root, List.of(doc), snippets());
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(
        problems.get(0).startsWith("README.md:2: the snippet differs from Example.java#hello"),
        problems.get(0));
    assertTrue(
        problems.get(0).contains("expected `elector.close();`, found `elector.stop();`"),
        problems.get(0));
  }

  @Test
  void aJavaSnippetWithoutASourceFails() throws IOException {
    Markdown doc =
        doc(
            "docs/guide.md",
            """
        Some text.
        ```java
        LeaderElector.start(config);
        ```
        """);
    List<String> problems = DocChecks.snippets(root, List.of(doc), snippets());
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(
        problems.get(0).startsWith("docs/guide.md:2: a java snippet without a source"),
        problems.get(0));
  }

  @Test
  void aSnippetNamingAMissingRegionOrFileFails() throws IOException {
    Markdown doc =
        doc(
            "README.md",
            """
        <!-- snippet: Example.java#goodbye -->
        ```java
        x();
        ```
        <!-- snippet: Missing.java#hello -->
        ```java
        x();
        ```
        """);
    List<String> problems = DocChecks.snippets(root, List.of(doc), snippets());
    assertEquals(2, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("Example.java has no region 'goodbye'"), problems.get(0));
    assertTrue(problems.get(1).contains("Missing.java does not exist"), problems.get(1));
  }

  @Test
  void otherLanguagesAreNotSnippetsOfCompiledCode() throws IOException {
    Markdown doc =
        doc(
            "README.md",
            """
        ```sh
        ./test.sh
        ```
        """);
    assertEquals(List.of(), DocChecks.snippets(root, List.of(doc), snippets()));
  }

  @Test
  void aLinkToAMissingFileFails() throws IOException {
    doc("docs/present.md", "# Present\n");
    Markdown doc =
        doc(
            "README.md",
            """
        See [the guide](docs/present.md) and [gone](docs/absent.md).
        Not a link: `[x](nowhere.md)`. Elsewhere: [site](https://example.org/x.md).
        """);
    List<String> problems = DocChecks.links(root, List.of(doc));
    assertEquals(
        List.of("README.md:1: link docs/absent.md names docs/absent.md, which does not exist"),
        problems);
  }

  @Test
  void aLinkToAMissingHeadingFails() throws IOException {
    doc("docs/guide.md", "# The guide\n## Rolling updates, step by step\n");
    Markdown doc =
        doc(
            "README.md",
            """
        [ok](docs/guide.md#rolling-updates-step-by-step) [local](#top) [bad](docs/guide.md#rollouts)
        # Top
        """);
    List<String> problems = DocChecks.links(root, List.of(doc));
    assertEquals(
        List.of(
            "README.md:1: link docs/guide.md#rollouts: docs/guide.md has no heading "
                + "with the anchor #rollouts"),
        problems);
  }

  @Test
  void anchorsAreTheOnesACodeHostMakes() {
    assertEquals("spring-boot-josdk-and-quarkus", Markdown.slug("Spring Boot, JOSDK and Quarkus"));
    assertEquals("watchmode-and-the-one-403", Markdown.slug("`watchMode` and the one 403"));
    assertEquals("fabric8-7x", Markdown.slug("fabric8 7.x"));
  }
}
