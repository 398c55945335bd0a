package dev.elector.testenv;

import dev.elector.testenv.net.FaultProxy;
import dev.elector.testenv.net.TcpBalancer;
import dev.elector.testkit.internal.LocalControlPlane;
import dev.elector.testkit.kube.KubeCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A highly available local control plane, as production runs one: one etcd process and several
 * kube-apiserver processes sharing it (same certificates, tokens and objects), each on its own
 * loopback port, behind a {@link TcpBalancer}. Each server reaches etcd through its own {@link
 * FaultProxy} (its {@linkplain #etcdLink etcd link}), so one server can be cut off from etcd, or
 * made to see etcd late, while it still answers clients. Servers can be stopped, started and
 * restarted one at a time while the others keep serving.
 *
 * <p>Separate processes rather than several servers in one process: kube-apiserver keeps global
 * state (its shutdown signal, metrics registry, feature gates), so only separate processes restart
 * one at a time the way a real control plane does.
 */
public final class HaControlPlane implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HaControlPlane.class);
  private final Path workDir;
  private final LocalControlPlane etcd;
  private final List<FaultProxy> etcdLinks;
  private final List<LocalControlPlane> servers;
  private final TcpBalancer balancer;
  private final Path kubeconfig;

  private HaControlPlane(
      Path workDir,
      LocalControlPlane etcd,
      List<FaultProxy> etcdLinks,
      List<LocalControlPlane> servers,
      TcpBalancer balancer,
      Path kubeconfig) {
    this.workDir = workDir;
    this.etcd = etcd;
    this.etcdLinks = etcdLinks;
    this.servers = servers;
    this.balancer = balancer;
    this.kubeconfig = kubeconfig;
  }

  /**
   * Starts etcd, then {@code count} API servers in parallel, then the balancer. {@code
   * apiserverArgs} gives, per server index, extra kube-apiserver flags ({@code --name=value}, such
   * as {@code --goaway-chance=0.05}).
   *
   * @throws IllegalArgumentException if {@code count} is below 1
   * @throws IOException if a process does not become ready
   */
  public static HaControlPlane start(
      Path binary, int count, Duration readyTimeout, IntFunction<List<String>> apiserverArgs)
      throws IOException {
    if (count < 1) {
      throw new IllegalArgumentException(
          "an HA control plane needs at least 1 API server, not " + count);
    }
    Objects.requireNonNull(apiserverArgs, "apiserverArgs");
    Path workDir = Files.createTempDirectory("elector-ha-");
    List<AutoCloseable> started = new ArrayList<>();
    try {
      LocalControlPlane etcd =
          LocalControlPlane.start(
              binary, workDir.resolve("etcd"), readyTimeout, List.of("--etcd-only"));
      started.add(etcd);
      URI etcdUri = URI.create(etcd.etcd());
      InetSocketAddress etcdAddress = new InetSocketAddress(etcdUri.getHost(), etcdUri.getPort());
      List<FaultProxy> links = new ArrayList<>();
      List<CompletableFuture<LocalControlPlane>> starting = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        FaultProxy link =
            FaultProxy.newBuilder().name("etcd-link-" + i).target(etcdAddress).seed(i).start();
        links.add(link);
        started.add(link);
        Path serverDir = workDir.resolve("server-" + i);
        shareCredentials(etcd.dataDir(), serverDir.resolve("data"));
        List<String> args = new ArrayList<>();
        args.add("--etcd-servers=http://127.0.0.1:" + link.address().getPort());
        for (String arg : apiserverArgs.apply(i)) {
          args.add("--apiserver-arg=" + arg);
        }
        starting.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return LocalControlPlane.start(binary, serverDir, readyTimeout, args);
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                }));
      }
      List<LocalControlPlane> servers = new ArrayList<>();
      IOException failure = null;
      for (CompletableFuture<LocalControlPlane> future : starting) {
        try {
          LocalControlPlane server = future.join();
          servers.add(server);
          started.add(server);
        } catch (CompletionException e) {
          IOException cause =
              e.getCause() instanceof UncheckedIOException u
                  ? u.getCause()
                  : new IOException(e.getCause());
          if (failure == null) {
            failure = cause;
          } else {
            failure.addSuppressed(cause);
          }
        }
      }
      if (failure != null) {
        throw failure;
      }
      List<InetSocketAddress> addresses = new ArrayList<>();
      for (LocalControlPlane server : servers) {
        URI uri = URI.create(server.server());
        addresses.add(new InetSocketAddress(uri.getHost(), uri.getPort()));
      }
      TcpBalancer balancer = TcpBalancer.start("apiservers", addresses);
      started.add(balancer);
      // The admin kubeconfig of any server, pointed at the balancer (the serving certificate
      // names 127.0.0.1, so TLS verifies through it).
      Path kubeconfig = workDir.resolve("admin-balanced.kubeconfig");
      String yaml = Files.readString(servers.get(0).kubeconfig());
      String direct = "server: " + servers.get(0).server();
      if (!yaml.contains(direct)) {
        throw new IOException("unexpected kubeconfig, no '" + direct + "' in it:\n" + yaml);
      }
      Files.writeString(
          kubeconfig,
          yaml.replace(direct, "server: https://127.0.0.1:" + balancer.address().getPort()));
      return new HaControlPlane(
          workDir, etcd, List.copyOf(links), List.copyOf(servers), balancer, kubeconfig);
    } catch (IOException | RuntimeException e) {
      Collections.reverse(started);
      started.forEach(HaControlPlane::closeQuietly);
      deleteTree(workDir);
      throw e;
    }
  }

  /** A cluster whose admin client goes through the balancer; closing it leaves this running. */
  public KubeCluster cluster() throws IOException {
    return KubeCluster.fromKubeconfig(
        "HA control plane (" + size() + " API servers)", kubeconfig, null);
  }

  /** The balancer's URL, such as {@code https://127.0.0.1:PORT}. */
  public String server() {
    return "https://127.0.0.1:" + balancer.address().getPort();
  }

  /** The URL of API server {@code index} itself, bypassing the balancer. */
  public String server(int index) {
    return servers.get(index).server();
  }

  /** How many API servers there are. */
  public int size() {
    return servers.size();
  }

  /** The balancer in front of the API servers. */
  public TcpBalancer balancer() {
    return balancer;
  }

  /** The path from API server {@code index} to etcd, to cut or slow down. */
  public FaultProxy etcdLink(int index) {
    return etcdLinks.get(index);
  }

  /** The process of API server {@code index} (log file, stop, restart). */
  public LocalControlPlane apiserver(int index) {
    return servers.get(index);
  }

  /**
   * Restarts API server {@code index} (SIGTERM, which kube-apiserver answers with a graceful
   * shutdown, then a start on the same port) while the others keep serving.
   *
   * @throws IOException if it does not become ready again
   */
  public void restart(int index) throws IOException {
    log.info("restarting API server {} ({})", index, servers.get(index).server());
    servers.get(index).restart();
    log.info("API server {} ready again", index);
  }

  /** Stops everything and deletes the data. */
  @Override
  public void close() {
    closeQuietly(balancer);
    servers.forEach(LocalControlPlane::close);
    etcdLinks.forEach(FaultProxy::close);
    etcd.close();
    deleteTree(workDir);
  }

  /** Copies what every server must share (CA and keys, token users) into a new data dir. */
  private static void shareCredentials(Path from, Path to) throws IOException {
    Files.createDirectories(to.resolve("pki"));
    try (Stream<Path> files = Files.list(from.resolve("pki"))) {
      for (Path file : files.toList()) {
        Files.copy(
            file,
            to.resolve("pki").resolve(file.getFileName()),
            StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
    for (String name : List.of("users.json", "tokens.csv")) {
      Files.copy(from.resolve(name), to.resolve(name), StandardCopyOption.COPY_ATTRIBUTES);
    }
    // The binary reuses a non-empty data dir only when it carries its marker.
    Files.createFile(to.resolve(".elector-apiserver"));
  }

  private static void closeQuietly(AutoCloseable resource) {
    try {
      resource.close();
    } catch (Exception ignored) {
      // best effort while cleaning up
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // already gone
    }
  }
}
