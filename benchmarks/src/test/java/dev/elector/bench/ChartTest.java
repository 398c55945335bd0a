package dev.elector.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The chart shows the acquires against their floor and the scale points, not only takeovers. */
class ChartTest {

  @Test
  void showsAcquiresBesideTheirFloorAndTheThreadsOfTheLargestScalePoints() {
    Results results = new Results();
    results.acquireFloors.add(
        new Floors.Acquire(
            Impl.ELECTOR, Timings.DEFAULT, List.of(3.5, 3.7), List.of(4.5, 4.7), List.of(), 0));
    results.scales.add(scale(Impl.ELECTOR, 100, 12));
    results.scales.add(scale(Impl.ELECTOR, 1000, 14));
    results.scales.add(scale(Impl.CLIENT_JAVA, 1000, 4001));
    results.scales.add(scale(Impl.ELECTOR, ScaleSteps.LARGE, 13));

    String svg = new Chart(results).svg();

    assertTrue(svg.contains("Acquire of a free Lease (median) vs a bare create"), svg);
    assertTrue(svg.contains("4.6 ms (+1.0)"), "acquire median and its offset to the floor");
    assertTrue(svg.contains("14 threads, 1000/1000 on time, all leading after 1.0 s"), svg);
    assertTrue(svg.contains("4001 threads"), "the anchors' rows are shown too");
    assertTrue(svg.contains("n=10000"), "the 10,000-elector point is shown");
    assertTrue(!svg.contains("12 threads"), "only the largest common size, not every size");
  }

  private static Scenarios.Scale scale(Impl impl, int n, int peakThreads) {
    return new Scenarios.Scale(
        impl, n, n, n, 2000, peakThreads, peakThreads, 10, 0.2, 1.0, n / 2.0, "");
  }
}
