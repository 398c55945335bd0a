package dev.elector.quarkus.deployment.internal;

import dev.elector.kube.PodEnvironment;
import dev.elector.quarkus.internal.ElectorLifecycle;
import dev.elector.quarkus.internal.ElectorLivenessCheck;
import dev.elector.quarkus.internal.ElectorMeters;
import dev.elector.quarkus.internal.ElectorProducer;
import dev.elector.quarkus.internal.ElectorRecorder;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.ExecutionTime;
import io.quarkus.deployment.annotations.Record;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.ShutdownListenerBuildItem;
import io.quarkus.deployment.builditem.nativeimage.RuntimeInitializedClassBuildItem;
import io.quarkus.deployment.metrics.MetricsCapabilityBuildItem;
import io.quarkus.runtime.metrics.MetricsFactory;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The build steps of elector-quarkus: the elector's beans, and the liveness check and meters when
 * the application has SmallRye Health and Micrometer.
 */
class ElectorProcessor {
  static final String FEATURE = "elector";

  @BuildStep
  FeatureBuildItem feature() {
    return new FeatureBuildItem(FEATURE);
  }

  @BuildStep(onlyIf = Enabled.class)
  AdditionalBeanBuildItem elector() {
    return AdditionalBeanBuildItem.builder()
        .addBeanClasses(ElectorProducer.class, ElectorLifecycle.class)
        .setUnremovable()
        .build();
  }

  /**
   * Closes the elector in the shutdown phase of the graceful shutdown, while the HTTP server still
   * listens: ShutdownEvent comes only after it has stopped.
   */
  @BuildStep(onlyIf = Enabled.class)
  @Record(ExecutionTime.RUNTIME_INIT)
  ShutdownListenerBuildItem closeBeforeTheHttpServerStops(ElectorRecorder recorder) {
    return new ShutdownListenerBuildItem(recorder.shutdownListener());
  }

  @BuildStep(onlyIf = Enabled.class)
  void health(
      Capabilities capabilities,
      ElectorBuildTimeConfig config,
      BuildProducer<AdditionalBeanBuildItem> beans) {
    if (config.health().enabled() && capabilities.isPresent(Capability.SMALLRYE_HEALTH)) {
      beans.produce(AdditionalBeanBuildItem.unremovableOf(ElectorLivenessCheck.class));
    }
  }

  @BuildStep(onlyIf = Enabled.class)
  void metrics(
      Optional<MetricsCapabilityBuildItem> metrics,
      ElectorBuildTimeConfig config,
      BuildProducer<AdditionalBeanBuildItem> beans) {
    boolean micrometer =
        metrics.map(m -> m.metricsSupported(MetricsFactory.MICROMETER)).orElse(false);
    if (config.metrics().enabled() && micrometer) {
      beans.produce(AdditionalBeanBuildItem.unremovableOf(ElectorMeters.class));
    }
  }

  /**
   * In a native image, PodEnvironment must draw its per-process identity suffix when the process
   * starts, not when the image is built (every replica would share it).
   */
  @BuildStep(onlyIf = Enabled.class)
  RuntimeInitializedClassBuildItem podEnvironmentAtRunTime() {
    return new RuntimeInitializedClassBuildItem(PodEnvironment.class.getName());
  }

  /** Whether {@code quarkus.elector.enabled} is true. */
  static final class Enabled implements BooleanSupplier {
    private final ElectorBuildTimeConfig config;

    Enabled(ElectorBuildTimeConfig config) {
      this.config = config;
    }

    @Override
    public boolean getAsBoolean() {
      return config.enabled();
    }
  }
}
