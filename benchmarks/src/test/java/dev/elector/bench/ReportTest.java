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
}
