package dev.elector.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;

/**
 * client-go's elector ({@code k8s.io/client-go/tools/leaderelection} with a LeaseLock and
 * ReleaseOnCancel) in a process of its own: {@code testenv/cmd/elector-gocandidate} with {@code
 * --bench-events}. Its stdout lines carry CLOCK_MONOTONIC instants, the clock of {@code
 * System.nanoTime()} on Linux, so its start callbacks and successful writes go to the recorder and
 * probe with the instants the process printed. A graceful close is SIGTERM (client-go cancels its
 * context and releases); a crash is SIGKILL.
 */
final class ClientGoCandidate implements Candidate {
  private final String identity;
  private final Probe probe = new Probe();
  private final Recorder recorder;
  private final ProcessBuilder builder;
  private Process process;

  ClientGoCandidate(
      Path binary,
      Path kubeconfig,
      String namespace,
      String name,
      String identity,
      Timings timings,
      Recorder recorder) {
    this.identity = identity;
    this.recorder = recorder;
    this.builder =
        new ProcessBuilder(
                binary.toString(),
                "--kubeconfig",
                kubeconfig.toString(),
                "--namespace",
                namespace,
                "--lock-name",
                name,
                "--identity",
                identity,
                "--lease-duration",
                timings.lease().toMillis() + "ms",
                "--renew-deadline",
                timings.renew().toMillis() + "ms",
                "--retry-period",
                timings.retry().toMillis() + "ms",
                "--release-on-cancel=true",
                "--bench-events")
            .redirectError(ProcessBuilder.Redirect.DISCARD);
  }

  /**
   * A private copy of the candidate binary for this run: a build from other sources (another
   * checkout) replaces the cached one and deletes the old, which must not happen mid-run.
   */
  static Path privateBinary() throws IOException, InterruptedException {
    Path copy = Files.createTempFile("elector-gocandidate-", "");
    copy.toFile().deleteOnExit();
    Files.copy(binary(), copy, StandardCopyOption.REPLACE_EXISTING);
    if (!copy.toFile().setExecutable(true)) {
      throw new IOException("cannot make " + copy + " executable");
    }
    return copy;
  }

  /**
   * The candidate binary: {@code ELECTOR_GOCANDIDATE_BIN}, else what {@code
   * testenv/build-gocandidate.sh} prints (it builds once, then answers from its cache).
   */
  static Path binary() throws IOException, InterruptedException {
    String set = System.getenv("ELECTOR_GOCANDIDATE_BIN");
    if (set != null && !set.isBlank()) {
      return Path.of(set);
    }
    Path script = Path.of("testenv", "build-gocandidate.sh");
    if (!Files.exists(script)) {
      script = Path.of("..", "testenv", "build-gocandidate.sh");
    }
    Process build =
        new ProcessBuilder("bash", script.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String out = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (build.waitFor() != 0 || out.isEmpty()) {
      throw new IllegalStateException(
          script
              + " failed (exit "
              + build.exitValue()
              + "); set"
              + " ELECTOR_GOCANDIDATE_BIN to a built elector-gocandidate");
    }
    return Path.of(out.substring(out.lastIndexOf('\n') + 1));
  }

  @Override
  public String identity() {
    return identity;
  }

  @Override
  public Probe probe() {
    return probe;
  }

  @Override
  public synchronized void start() {
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + builder.command().get(0), e);
    }
    Process started = process;
    Thread reader = new Thread(() -> read(started), "client-go-" + identity);
    reader.setDaemon(true);
    reader.start();
  }

  private void read(Process from) {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(from.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        String[] words = line.split(" ");
        if (words.length < 3 || !words[0].equals("EVENT")) {
          continue;
        }
        long at = Long.parseLong(words[1]);
        switch (words[2]) {
          case "wrote" -> probe.wroteAt(at);
          case "started" -> recorder.started(identity, at);
          case "stopped" -> recorder.stopped(identity, at);
          default -> {}
        }
      }
    } catch (IOException | RuntimeException e) {
      // the process ended
    }
  }

  @Override
  public void closeGracefully() {
    Process p = current();
    if (p == null) {
      return;
    }
    p.destroy(); // SIGTERM: client-go cancels its context and releases the Lease
    try {
      if (!p.waitFor(15, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void crash() {
    probe.kill();
    Process p = current();
    if (p != null) {
      p.destroyForcibly(); // SIGKILL: nothing is released
      recorder.stopped(identity, System.nanoTime()); // the process has no last word
    }
  }

  @Override
  public void shutdown() {
    Process p = current();
    if (p != null && p.isAlive()) {
      p.destroyForcibly();
    }
  }

  private synchronized Process current() {
    return process;
  }
}
