package dev.elector.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.elector.lock.LockRead;
import dev.elector.testkit.kube.KubeCluster;
import dev.elector.testkit.kube.KubeNamespace;
import dev.elector.testkit.kube.KubeTest;
import dev.elector.testkit.net.FaultProxy;
import dev.elector.testkit.net.TcpBalancer;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.Config;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A lock's HTTP/2 connection that goes dead while it stays open (its server, or the path to it,
 * stops answering without closing it): OkHttp ends only the timed-out stream and would send the
 * next request on the same connection. After a lock request that got no answer, the lock's idle
 * connections are closed, so the next request dials afresh and a balancer sends it to a server that
 * answers.
 */
@KubeTest
class DeadConnectionIT {
  @Test
  void afterARequestWithoutAnswerTheNextOneGoesOutOnAFreshConnection(
      KubeCluster cluster, KubeNamespace namespace) throws Exception {
    URI uri = URI.create(cluster.server());
    InetSocketAddress server = new InetSocketAddress(uri.getHost(), uri.getPort());
    try (FaultProxy dying = FaultProxy.newBuilder().name("dying").target(server).start();
        TcpBalancer balancer =
            TcpBalancer.start("two-paths", List.of(dying.address(), server))) { // round robin
      // the admin's credentials on a client of its own: the suite's admin client stays as it is
      ApiClient client = Config.fromConfig(new StringReader(cluster.adminKubeconfigYaml()));
      client.setBasePath("https://127.0.0.1:" + balancer.address().getPort());
      LeaseLock lock =
          LeaseLock.newBuilder()
              .apiClient(client)
              .namespace(namespace.name())
              .name("dead-connection")
              .identity("me")
              .requestTimeout(Duration.ofSeconds(1))
              .build();
      assertInstanceOf(LockRead.Absent.class, read(lock), "through the first path");

      dying.blackhole(); // the open connection stops answering
      LockRead unanswered = read(lock);
      LockRead next = read(lock);

      assertInstanceOf(LockRead.Failed.class, unanswered, "no answer on the dead connection");
      assertInstanceOf(LockRead.Absent.class, next, "answered on a fresh connection: " + next);
      assertEquals(1, balancer.connections(0), "the connection that went dead");
      assertEquals(1, balancer.connections(1), "the fresh one");
    }
  }

  private static LockRead read(LeaseLock lock) throws Exception {
    return lock.read().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
