package dev.elector.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The figure check fails when a quoted figure drifts from its row, or its row is gone. */
class FiguresTest {
  private static final String RESULTS =
      """
      # Benchmark results

      ## Scale

      | implementation | n | on time | threads added | time to all leading s |
      |---|---|---|---|---|
      | <a id="r-scale-1000"></a>Elector | 1000 | 1000 | 14 | 0.96 |
      | <a id="r-scale-100"></a>Elector | 100 | 100 | 3 | 0.15 |

      ## Crash failover

      | implementation | median ms |
      |---|---|
      | <a id="r-crash"></a>Elector | 13928 |

      ## Goals

      - <a id="g-heap"></a>10,000 electors: 78.3 MiB heap,
        0.20 cores.
      - another item, 99 MiB.
      """;

  @TempDir Path root;

  @BeforeEach
  void results() throws IOException {
    Files.createDirectories(root.resolve("benchmarks"));
    Files.writeString(root.resolve("benchmarks/RESULTS.md"), RESULTS);
  }

  private List<String> check(String readme) throws IOException {
    Path doc = root.resolve("docs/guide.md");
    Files.createDirectories(doc.getParent());
    Files.writeString(doc, readme);
    return Figures.check(root, List.of(doc));
  }

  @Test
  void figuresAsTheirRowsSayThemPass() throws IOException {
    List<String> problems =
        check(
            """
            1,000 electors use [**14 threads**](../benchmarks/RESULTS.md#r-scale-1000), \
            [**14**](../benchmarks/RESULTS.md#r-scale-1000) added, all leading after \
            [**0.96 s**](../benchmarks/RESULTS.md#r-scale-1000), failover \
            [**13,928 ms**](../benchmarks/RESULTS.md#r-crash), rounded \
            [**13.9 s**](../benchmarks/RESULTS.md#r-crash "13928 ms"); \
            [**78.3 MiB**](../benchmarks/RESULTS.md#g-heap) and [**0.20 cores**](../benchmarks/RESULTS.md#g-heap); \
            in the section: [**13928**](../benchmarks/RESULTS.md#crash-failover).
            """);
    assertEquals(List.of(), problems);
  }

  @Test
  void aChangedNumberFails() throws IOException {
    List<String> problems =
        check("All lead after [**0.95 s**](../benchmarks/RESULTS.md#r-scale-1000).\n");
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(
        problems
            .get(0)
            .startsWith(
                "docs/guide.md:1: figure **0.95 s**: benchmarks/RESULTS.md#r-scale-1000 does not"
                    + " say it; it says: | Elector | 1000 | 1000 | 14 | 0.96 |"),
        problems.get(0));
  }

  @Test
  void aNumberFromAnotherRowFails() throws IOException {
    // 3 threads is a figure of the 100-elector row, not of the 1000-elector one it links.
    List<String> problems = check("[**3**](../benchmarks/RESULTS.md#r-scale-1000) threads\n");
    assertEquals(1, problems.size(), problems.toString());
    // and a figure inside a longer number is not found either: 4 is not in 14
    assertEquals(1, check("[**4**](../benchmarks/RESULTS.md#r-scale-1000)\n").size());
    // a list item's id covers that item only
    assertEquals(1, check("[**99 MiB**](../benchmarks/RESULTS.md#g-heap)\n").size());
  }

  @Test
  void aRemovedRowFails() throws IOException {
    Files.writeString(
        root.resolve("benchmarks/RESULTS.md"),
        RESULTS.replace("| <a id=\"r-crash\"></a>Elector | 13928 |\n", ""));
    List<String> problems = check("Failover: [**13928 ms**](../benchmarks/RESULTS.md#r-crash).\n");
    assertEquals(
        List.of(
            "docs/guide.md:1: figure **13928 ms**: benchmarks/RESULTS.md has no row or heading"
                + " #r-crash any more; point the link at the row the figure now comes from"),
        problems);
  }

  @Test
  void aRoundedFigureMustRoundItsTitleAndTheTitleMustBeInTheRow() throws IOException {
    assertEquals(
        List.of(
            "docs/guide.md:1: figure **14.9 s**: is not \"13928 ms\" (the link title, as the row"
                + " says it) rounded; requote it"),
        check("[**14.9 s**](../benchmarks/RESULTS.md#r-crash \"13928 ms\")\n"));
    List<String> drifted = check("[**13.9 s**](../benchmarks/RESULTS.md#r-crash \"13900 ms\")\n");
    assertEquals(1, drifted.size(), drifted.toString());
    assertTrue(drifted.get(0).contains("does not say \"13900 ms\" (the link title)"));
  }

  @Test
  void aFigureLinkWithoutARowFails() throws IOException {
    assertEquals(
        List.of(
            "docs/guide.md:1: figure **14** links benchmarks/RESULTS.md without naming a row;"
                + " add #ID of its row"),
        check("[**14**](../benchmarks/RESULTS.md) threads\n"));
  }

  @Test
  void measuredLookingFiguresWithoutALinkAreReported() throws IOException {
    Path doc = root.resolve("docs/guide.md");
    Files.createDirectories(doc.getParent());
    Files.writeString(
        doc,
        """
        A handover takes 6.8 ms, at 0.52 requests/s; the median of 5 runs.
        Linked: [**0.96 s**](../benchmarks/RESULTS.md#r-scale-1000), code: `6.8 ms`.
        Settings stay: lease 15 s, retry 2 s, a pool waits 100 ms.
        ```
        6.8 ms in a fence
        ```
        """);
    List<String> problems = Figures.unlinked(root, List.of(doc));
    assertEquals(
        List.of("docs/guide.md:1: \"6.8 ms\"", "docs/guide.md:1: \"0.52 requests/s\""),
        problems.stream().map(p -> p.substring(0, p.indexOf(" looks measured"))).toList(),
        problems.toString());
  }

  @Test
  void normalisingIgnoresSeparatorsAndSpaceWidths() {
    assertEquals(
        "10000 of 10000 2.8-3.4 s", Figures.normalise("10,000 of 10\u2009000 2.8–3.4\u00a0s"));
    assertEquals(Optional.empty(), Figures.roundingProblem("15.0 s", "15005 ms"));
    assertEquals(Optional.empty(), Figures.roundingProblem("6.8 ms", "6.79 ms"));
    assertTrue(Figures.roundingProblem("6.7 ms", "6.79 ms").isPresent());
  }
}
