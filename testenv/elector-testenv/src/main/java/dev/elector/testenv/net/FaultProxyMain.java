package dev.elector.testenv.net;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a {@link FaultProxy} without faults as a standalone forwarder, e.g. inside a network
 * namespace: {@code java -cp elector-testenv.jar dev.elector.testenv.net.FaultProxyMain --listen
 * 10.0.0.1:6443 --target 127.0.0.1:6443}. Prints {@code READY host:port} once listening, then
 * forwards until the process is terminated.
 */
public final class FaultProxyMain {
  static final String USAGE = "usage: FaultProxyMain --listen HOST:PORT --target HOST:PORT";

  private FaultProxyMain() {}

  /** Starts the forwarder and blocks until the JVM shuts down; exits with 2 on bad arguments. */
  public static void main(String[] args) throws IOException, InterruptedException {
    FaultProxy proxy;
    try {
      proxy = start(args, System.out);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(proxy::close, "fault-proxy-shutdown"));
    new CountDownLatch(1).await();
  }

  /** Parses {@code args}, starts the proxy and prints the READY line to {@code out}. */
  static FaultProxy start(String[] args, PrintStream out) throws IOException {
    InetSocketAddress listen = null;
    InetSocketAddress target = null;
    for (int i = 0; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(args[i] + " needs a value; " + USAGE);
      }
      switch (args[i]) {
        case "--listen" -> listen = hostPort(args[i], args[i + 1]);
        case "--target" -> target = hostPort(args[i], args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i] + "; " + USAGE);
      }
    }
    if (listen == null || target == null) {
      throw new IllegalArgumentException("both --listen and --target are required; " + USAGE);
    }
    FaultProxy proxy = FaultProxy.newBuilder().listen(listen).target(target).name("main").start();
    out.println("READY " + proxy.hostPort());
    out.flush();
    return proxy;
  }

  /** Parses {@code host:port} or {@code [v6]:port}. */
  static InetSocketAddress hostPort(String option, String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException(
          option + " '" + text + "' must be HOST:PORT, e.g. 127.0.0.1:6443");
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(option + " '" + text + "' has no port within 0-65535");
    }
    return new InetSocketAddress(host, port);
  }
}
