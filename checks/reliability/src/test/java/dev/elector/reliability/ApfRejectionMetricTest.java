package dev.elector.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** How ApfOverloadIT reads APF's rejections from the API server's /metrics text. */
class ApfRejectionMetricTest {
  @Test
  void sumsRejectionsPerPriorityLevelOverFlowSchemasAndReasons() {
    String metrics =
        """
        # HELP apiserver_flowcontrol_rejected_requests_total [BETA] Number of requests rejected by API Priority and Fairness subsystem
        # TYPE apiserver_flowcontrol_rejected_requests_total counter
        apiserver_flowcontrol_rejected_requests_total{flow_schema="service-accounts",priority_level="workload-low",reason="queue-full"} 6077
        apiserver_flowcontrol_rejected_requests_total{flow_schema="service-accounts",priority_level="workload-low",reason="time-out"} 12
        apiserver_flowcontrol_rejected_requests_total{flow_schema="elector",priority_level="elector-leader-election",reason="time-out"} 1
        apiserver_flowcontrol_request_wait_duration_seconds_count{flow_schema="elector",priority_level="elector-leader-election"} 40
        """;

    assertEquals(
        Map.of("workload-low", 6089L, "elector-leader-election", 1L),
        ApfOverloadIT.rejectedByPriorityLevel(metrics));
  }

  @Test
  void aServerThatRejectedNothingHasNoSeries() {
    assertEquals(
        Map.of(),
        ApfOverloadIT.rejectedByPriorityLevel(
            "apiserver_flowcontrol_dispatched_requests_total{priority_level=\"workload-low\"} 3\n"));
  }
}
