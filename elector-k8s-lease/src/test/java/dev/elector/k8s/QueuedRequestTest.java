package dev.elector.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.elector.kube.KubeLock;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A request that waited longer than requestTimeout for a thread of the lock's executor is not sent:
 * its caller has given up, and sending it would only add to the backlog. The client points at a
 * closed port, so a request that is sent fails as UNAVAILABLE instead.
 */
class QueuedRequestTest {
  private static final ApiClient NOWHERE = new ApiClient().setBasePath("http://127.0.0.1:1");

  private static LockRead read(Executor executor) throws Exception {
    KubeLock lock =
        LeaseLock.newBuilder(NOWHERE)
            .namespace("ns")
            .name("lock")
            .identity("me")
            .requestTimeout(Duration.ofMillis(100))
            .executor(executor)
            .build();
    return lock.read(Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aRequestThatWaitedLongerThanRequestTimeoutIsNotSent() throws Exception {
    LockFailure late =
        (LockFailure) read(CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));

    assertEquals(LockFailure.Kind.TIMEOUT, late.kind(), late.toString());
    assertTrue(
        late.message().contains("was not sent") && late.message().contains("Lease ns/lock"),
        late.message());
  }

  @Test
  void aRequestThatGetsAThreadInTimeIsSent() throws Exception {
    LockFailure prompt = ((LockFailure) read(Runnable::run));

    assertFalse(prompt.message().contains("was not sent"), prompt.message());
    assertEquals(LockFailure.Kind.UNAVAILABLE, prompt.kind(), prompt.toString());
  }
}
