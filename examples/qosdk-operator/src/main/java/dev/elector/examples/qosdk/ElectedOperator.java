package dev.elector.examples.qosdk;

import dev.elector.ElectorListener;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.fabric8.Fabric8LeaseLock;
import dev.elector.josdk.TermScopedOperator;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the Quarkus Operator SDK's reconcilers only while this replica leads. The SDK's own operator
 * is not started ({@code quarkus.operator-sdk.start-operator=false}); Elector's {@link
 * TermScopedOperator} builds a JOSDK operator for each term on the client Quarkus configured,
 * registers the SDK's reconciler bean with it, starts it when the term starts and stops it when the
 * term ends, before another replica can lead. On shutdown the operator stops first, then the Lease
 * is released, so the next replica leads at once.
 *
 * <p>The Lease {@code greeting-operator} and the watched Greetings are in {@code POD_NAMESPACE};
 * the identity is {@code POD_NAME} (the Downward API). The timings are {@code
 * greeting.lease-duration}, {@code greeting.renew-deadline} and {@code greeting.retry-period}
 * (environment {@code GREETING_LEASE_DURATION} and so on).
 */
@ApplicationScoped
public class ElectedOperator {
  private static final Logger log = LoggerFactory.getLogger(ElectedOperator.class);

  @Inject KubernetesClient client;
  @Inject GreetingReconciler greetings;

  @ConfigProperty(name = "POD_NAMESPACE")
  String namespace;

  @ConfigProperty(name = "POD_NAME")
  String identity;

  @ConfigProperty(name = "greeting.lease-duration", defaultValue = "15s")
  Duration leaseDuration;

  @ConfigProperty(name = "greeting.renew-deadline", defaultValue = "10s")
  Duration renewDeadline;

  @ConfigProperty(name = "greeting.retry-period", defaultValue = "2s")
  Duration retryPeriod;

  private TermScopedOperator operator;

  void start(@Observes StartupEvent event) {
    operator =
        TermScopedOperator.newBuilder()
            .client(client)
            .lock(
                Fabric8LeaseLock.newBuilder(client)
                    .namespace(namespace)
                    .name("greeting-operator")
                    .identity(identity)
                    .build())
            .electorConfig(
                c ->
                    c.leaseDuration(leaseDuration)
                        .renewDeadline(renewDeadline)
                        .retryPeriod(retryPeriod)
                        .listener(new LeaderLog(identity)))
            .reconcilers(
                (o, term) -> {
                  greetings.serve(term);
                  o.register(greetings, c -> c.settingNamespace(namespace));
                })
            .listener(new LoggingListener())
            .start();
    log.info("{} is a candidate for the Lease greeting-operator in {}", identity, namespace);
  }

  void stop(@Observes ShutdownEvent event) {
    if (operator != null) {
      operator.close(); // the operator stops first, then the Lease is released
    }
  }

  /** Logs the holder this replica sees in the Lease when it changes, other than itself. */
  private static final class LeaderLog implements ElectorListener {
    private final String identity;

    LeaderLog(String identity) {
      this.identity = identity;
    }

    @Override
    public void onLeaderObserved(String holder) {
      if (holder.isEmpty()) {
        log.info("{} sees the Lease released", identity);
      } else if (!holder.equals(identity)) {
        log.info("{} follows {}", identity, holder);
      }
    }
  }

  /** Logs each term's operator lifecycle. */
  private static final class LoggingListener implements TermScopedOperator.Listener {
    @Override
    public void operatorStarting(Term term) {
      log.info("leading in term {}: starting the operator", term.fencingToken());
    }

    @Override
    public void operatorStarted(Term term) {
      log.info("the operator of term {} runs", term.fencingToken());
    }

    @Override
    public void operatorStartFailed(Term term, RuntimeException failure) {
      log.error("the operator of term {} did not start", term.fencingToken(), failure);
    }

    @Override
    public void operatorStopping(Term term, TermEnd reason) {
      log.info("term {} ended ({}): stopping the operator", term.fencingToken(), reason);
    }

    @Override
    public void operatorStopped(Term term, TermEnd reason) {
      log.info("the operator of term {} stopped", term.fencingToken());
    }
  }
}
