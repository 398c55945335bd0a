package dev.elector.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns an {@link ElectorPropertiesException} into Boot's start-up failure report. */
final class ElectorFailureAnalyzer extends AbstractFailureAnalyzer<ElectorPropertiesException> {
  @Override
  protected FailureAnalysis analyze(Throwable root, ElectorPropertiesException cause) {
    return new FailureAnalysis(
        cause.getMessage(),
        "Change the elector.* properties or the dependencies as each line above says.",
        cause);
  }
}
