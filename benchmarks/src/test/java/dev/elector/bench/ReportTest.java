package dev.elector.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ReportTest {
  @Test
  void aMedianAgainstItsFloorCarriesItsOwnSign() {
    assertEquals("+3.17 ms (1.22×)", Report.overFloor(17.67, 14.5));
    assertEquals("-4.15 ms (0.71×)", Report.overFloor(10.35, 14.5));
    assertEquals("+0.00 ms (1.00×)", Report.overFloor(14.5, 14.5));
  }

  @Test
  void aNewReportKeepsTheSectionsOtherRunsWrote() {
    String old = "# old report\n\n" + Report.KEPT + "\n## Spring Boot\n\nrows\n";
    assertEquals(
        "# new report\n\n" + Report.KEPT + "\n## Spring Boot\n\nrows\n",
        Report.withKept("# new report\n\n", old));
    assertEquals("# new report\n", Report.withKept("# new report\n", "# old report\n"));
  }

  @Test
  void aNewReportKeepsTheRowIdsTheDocsLinkTo() {
    String old =
        String.join(
            "\n",
            "# Benchmark results",
            "## Goals",
            "| goal | measured | met |",
            "|---|---|---|",
            "| <a id=\"g-handover\"></a>graceful handover median < 100 ms | 6.79 ms | yes |",
            "| <a id=\"g-renamed\"></a>a goal whose label changes | 1 | yes |",
            "## Acquire",
            "| <a id=\"r-default\"></a>default | 9.0 ms |",
            "## Handover",
            "| default | 17 ms |");
    String fresh =
        String.join(
            "\n",
            "# Benchmark results",
            "## Goals",
            "| goal | measured | met |",
            "|---|---|---|",
            "| graceful handover median < 100 ms | 7.01 ms | yes |",
            "| a goal whose label changed | 1 | yes |",
            "## Acquire",
            "| default | 8.4 ms |",
            "## Handover",
            "| default | 16 ms |");

    assertEquals(
        String.join(
            "\n",
            "# Benchmark results",
            "## Goals",
            "| goal | measured | met |",
            "|---|---|---|",
            "| <a id=\"g-handover\"></a>graceful handover median < 100 ms | 7.01 ms | yes |",
            "| a goal whose label changed | 1 | yes |",
            "## Acquire",
            "| <a id=\"r-default\"></a>default | 8.4 ms |",
            "## Handover",
            "| default | 16 ms |"),
        Report.withRowIds(fresh, old),
        "an id stays on the row of the same table and label; a renamed row loses it, and a row of"
            + " the same label in another table never takes it");
  }

  @Test
  void rowsOfOneLabelInOneTableKeepTheirIdsByPlace() {
    String old = "## T\n| x | 1 |\n| <a id=\"r-x-2\"></a>x | 2 |";
    assertEquals(
        "## T\n| x | 3 |\n| <a id=\"r-x-2\"></a>x | 4 |",
        Report.withRowIds("## T\n| x | 3 |\n| x | 4 |", old));
  }

  /**
   * The ids on the rows of this repository's RESULTS.md are all ones a new run puts back: each sits
   * on a row that its table's heading and first cell name alone.
   */
  @Test
  void everyRowIdOfTheResultsFileSurvivesANewRun() throws java.io.IOException {
    String results = java.nio.file.Files.readString(java.nio.file.Path.of("RESULTS.md"));
    int kept = results.indexOf(Report.KEPT);
    String written = kept < 0 ? results : results.substring(0, kept);
    String withoutIds = written.replaceAll("(?m)^\\| <a id=\"[^\"]+\"></a>", "| ");
    org.junit.jupiter.api.Assertions.assertNotEquals(written, withoutIds, "RESULTS.md has ids");

    assertEquals(written, Report.withRowIds(withoutIds, results));
  }
}
