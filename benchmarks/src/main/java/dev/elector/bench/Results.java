package dev.elector.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Everything one run measured, for the report. */
final class Results {
  /** One JMH row. */
  record Jmh(
      String benchmark,
      String subject,
      double p50,
      double p95,
      double mean,
      long samples,
      String unit) {}

  boolean quick;
  String apiServerVersion = "?";
  String startedAt = "";
  double loadAverageStart = Double.NaN;
  double loadAverageEnd = Double.NaN;
  double seconds;
  final List<Jmh> renew = new ArrayList<>();
  final List<Jmh> acquire = new ArrayList<>();
  final List<Scenarios.Takeover> failovers = new ArrayList<>();
  final List<Scenarios.Takeover> handovers = new ArrayList<>();
  final List<Scenarios.Load> loads = new ArrayList<>();
  Map<String, Double> baseline = Map.of();
  double baselineSeconds;
  final List<Scenarios.Scale> scales = new ArrayList<>();
  final List<Floors.Acquire> acquireFloors = new ArrayList<>();
  final List<Floors.HandoverFloor> handoverFloor = new ArrayList<>();
  final Map<String, String> errors = new LinkedHashMap<>();
}
