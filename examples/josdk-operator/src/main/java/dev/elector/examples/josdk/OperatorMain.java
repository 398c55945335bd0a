package dev.elector.examples.josdk;

import dev.elector.ElectorListener;
import dev.elector.Term;
import dev.elector.TermEnd;
import dev.elector.fabric8.Fabric8LeaseLock;
import dev.elector.josdk.TermScopedOperator;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replica of the Greeting operator: the fabric8 client, Elector's Lease lock and a JOSDK
 * operator per term ({@link TermScopedOperator}), whose reconcilers run only while this replica
 * leads. SIGTERM closes it: the operator stops first, then the Lease is released, so the next
 * replica leads at once.
 *
 * <p>The namespace of the Lease and of the watched Greetings is {@code POD_NAMESPACE}, the identity
 * {@code POD_NAME} (the Downward API); outside a pod, set both. The client uses the pod's
 * ServiceAccount, or the current kubeconfig context.
 *
 * <p>The timings are Elector's defaults unless {@code LEASE_DURATION}, {@code RENEW_DEADLINE} or
 * {@code RETRY_PERIOD} is set, each as seconds or milliseconds ({@code 4s}, {@code 500ms}) or in
 * ISO-8601 ({@code PT4S}); the example's {@code ci.sh} shortens them.
 */
public final class OperatorMain {
  private static final Logger log = LoggerFactory.getLogger(OperatorMain.class);
  private static final Pattern PLAIN_DURATION = Pattern.compile("([0-9]+)(s|ms)");

  private OperatorMain() {}

  public static void main(String[] args) throws InterruptedException {
    String namespace = required("POD_NAMESPACE");
    String identity = required("POD_NAME");
    KubernetesClient client = new KubernetesClientBuilder().build();
    TermScopedOperator operator =
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
                    c.leaseDuration(duration("LEASE_DURATION", Duration.ofSeconds(15)))
                        .renewDeadline(duration("RENEW_DEADLINE", Duration.ofSeconds(10)))
                        .retryPeriod(duration("RETRY_PERIOD", Duration.ofSeconds(2)))
                        .listener(new LeaderLog(identity)))
            .reconcilers(
                (o, term) ->
                    o.register(
                        new GreetingReconciler(identity, term), c -> c.settingNamespace(namespace)))
            .listener(new LoggingListener())
            .start();
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  operator.close(); // the operator stops first, then the Lease is released
                  closed.countDown();
                },
                "close-elector"));
    log.info("{} is a candidate for the Lease greeting-operator in {}", identity, namespace);
    closed.await();
  }

  private static String required(String variable) {
    String value = System.getenv(variable);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          variable
              + " is not set; in a pod, set it from the Downward API (see"
              + " the repository's deploy/deployment-snippet.yaml); outside one, export it");
    }
    return value;
  }

  private static Duration duration(String variable, Duration fallback) {
    String value = System.getenv(variable);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    Matcher plain = PLAIN_DURATION.matcher(value.strip());
    try {
      if (plain.matches()) {
        long amount = Long.parseLong(plain.group(1));
        return plain.group(2).equals("ms") ? Duration.ofMillis(amount) : Duration.ofSeconds(amount);
      }
      return Duration.parse(value.strip());
    } catch (ArithmeticException | DateTimeParseException | NumberFormatException e) {
      throw new IllegalStateException(
          variable
              + " is '"
              + value
              + "', which is not a duration; write it as 4s, 500ms or PT4S, or unset it for "
              + fallback,
          e);
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
