package dev.elector.reliability;

import dev.elector.TermEnd;
import dev.elector.testenv.net.FaultProxy;
import dev.elector.testkit.LeadershipTimeline;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A client-go candidate ({@code testenv/cmd/elector-gocandidate}) in a process of its own, on the
 * same Lease as a {@link Cohort}'s Elector candidates, through its own {@link FaultProxy}. Its
 * synthetic 500s and 429s are injected inside the process (commands on its stdin), as {@code
 * HttpFaults} does for an Elector candidate's client.
 *
 * <p>Its terms go to the cohort's {@link LeadershipTimeline} with the instants the process printed
 * (CLOCK_MONOTONIC, which is {@code System.nanoTime()}'s clock on Linux; {@link #start} checks that
 * the two agree). A term starts when the acquiring write returned. It ends on the timeline at the
 * earlier of the process's {@code OnStoppedLeading} and its deadline, the start of its last
 * successful acquire or renew write plus renewDeadline: the same rule as an Elector term's {@code
 * activeUntilNanos}. client-go itself keeps leading until {@code OnStoppedLeading}; {@link
 * #terms()} keeps both ends. The token is the Lease's leaderTransitions written by the acquiring
 * write, which client-go does not increase when the same identity acquires again.
 */
final class GoCandidate implements Cohort.Candidate {
  /** One term as the process reported it. */
  record GoTerm(
      long token, long startNanos, long stoppedNanos, long activeUntilNanos, String reason) {
    /** The later of the two ends: how long client-go's own callback said it led. */
    long lagNanos() {
      return stoppedNanos - activeUntilNanos;
    }
  }

  /** Counters the process reported. */
  record Stats(
      long lockCalls,
      long requests,
      long lists,
      long watches,
      long injected,
      long goroutines,
      long heapBytes) {}

  private final String name;
  private final FaultProxy proxy;
  private final Process process;
  private final Writer stdin;
  private final LeadershipTimeline timeline;
  private final List<GoTerm> terms = new ArrayList<>();
  private final List<String> foreignReleases = new ArrayList<>();
  private final Thread reader;
  private long readyNanos;
  private long openToken = -1;
  private long openStart;

  /** The open term was ended on the timeline by {@link #kill()} or {@link #terminate()}. */
  private boolean endedOnTimeline;

  private Stats stats;
  private long statsSerial;

  private GoCandidate(String name, FaultProxy proxy, Process process, LeadershipTimeline timeline) {
    this.name = name;
    this.proxy = proxy;
    this.process = process;
    this.timeline = timeline;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.reader = new Thread(this::read, "gocandidate-" + name);
    reader.setDaemon(true);
  }

  /**
   * The path of the candidate binary: {@code ELECTOR_GOCANDIDATE_BIN}, else what {@code
   * testenv/build-gocandidate.sh} prints (it builds once, then answers from its cache).
   */
  static Path binary() throws IOException, InterruptedException {
    String set = System.getenv("ELECTOR_GOCANDIDATE_BIN");
    if (set != null && !set.isBlank()) {
      return Path.of(set);
    }
    Process build =
        new ProcessBuilder(
                "bash", Path.of("..", "..", "testenv", "build-gocandidate.sh").toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String out = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (build.waitFor() != 0 || out.isEmpty()) {
      throw new IllegalStateException(
          "testenv/build-gocandidate.sh failed (exit "
              + build.exitValue()
              + "); set ELECTOR_GOCANDIDATE_BIN to a built elector-gocandidate");
    }
    return Path.of(out.substring(out.lastIndexOf('\n') + 1));
  }

  /**
   * Starts the process with {@code timings} (its {@code --lease-duration}, {@code --renew-deadline}
   * and {@code --retry-period}; its request timeout is the renew deadline, as
   * kube-controller-manager sets it); returns once it printed READY.
   *
   * @param kubeconfig a kubeconfig whose server is {@code proxy}'s address
   * @param releaseOnCancel client-go's {@code ReleaseOnCancel}, which also releases after a renewal
   *     gave up
   * @param log where the process's own log (stderr) goes
   */
  static GoCandidate start(
      Path binary,
      String name,
      String namespace,
      String lock,
      Path kubeconfig,
      Cohort.Timings timings,
      boolean releaseOnCancel,
      FaultProxy proxy,
      LeadershipTimeline timeline,
      Path log)
      throws IOException, InterruptedException {
    long before = System.nanoTime();
    Process process =
        new ProcessBuilder(
                binary.toString(),
                "--kubeconfig",
                kubeconfig.toString(),
                "--namespace",
                namespace,
                "--lock-name",
                lock,
                "--identity",
                name,
                "--lease-duration",
                seconds(timings.lease()),
                "--renew-deadline",
                seconds(timings.renewDeadline()),
                "--retry-period",
                seconds(timings.retry()),
                "--release-on-cancel=" + releaseOnCancel)
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    GoCandidate candidate = new GoCandidate(name, proxy, process, timeline);
    candidate.reader.start();
    long ready = candidate.awaitReady(Duration.ofSeconds(30));
    long after = System.nanoTime();
    if (ready < before || ready > after) {
      candidate.close();
      throw new IllegalStateException(
          "the candidate's CLOCK_MONOTONIC ("
              + ready
              + ") is not"
              + " between System.nanoTime() before ("
              + before
              + ") and after ("
              + after
              + ") its"
              + " start: the two clocks differ, so its terms cannot go on this timeline");
    }
    return candidate;
  }

  private static String seconds(Duration d) {
    return d.toMillis() + "ms";
  }

  private synchronized long awaitReady(Duration limit) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (readyNanos == 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || !process.isAlive()) {
        process.destroyForcibly();
        throw new IllegalStateException(
            name + ": no READY line within " + limit + " (alive: " + process.isAlive() + ")");
      }
      TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, 100_000_000L));
    }
    return readyNanos;
  }

  private void read() {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        handle(line);
      }
    } catch (IOException e) {
      // the process ended
    }
  }

  private synchronized void handle(String line) {
    String[] words = line.split(" ");
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 2; i < words.length; i++) {
      int eq = words[i].indexOf('=');
      if (eq > 0) {
        fields.put(words[i].substring(0, eq), words[i].substring(eq + 1));
      }
    }
    switch (words[0]) {
      case "READY" -> readyNanos = Long.parseLong(words[1]);
      case "EVENT" -> event(Long.parseLong(words[1]), words[2], fields);
      case "STATS" -> {
        stats =
            new Stats(
                number(fields, "lockCalls"),
                number(fields, "requests"),
                number(fields, "lists"),
                number(fields, "watches"),
                number(fields, "injected"),
                number(fields, "goroutines"),
                number(fields, "heapBytes"));
        statsSerial++;
      }
      default -> {}
    }
    notifyAll();
  }

  private void event(long at, String kind, Map<String, String> fields) {
    if (kind.equals("releasedForeign")) {
      foreignReleases.add(at + " " + fields.get("holder"));
      return;
    }
    long token = Long.parseLong(fields.get("token"));
    if (kind.equals("leading")) {
      openToken = token;
      openStart = at;
      timeline.started(name, token, at);
    } else if (kind.equals("stopped")) {
      long activeUntil = Long.parseLong(fields.get("activeUntil"));
      String reason = fields.get("reason");
      terms.add(new GoTerm(token, openStart, at, activeUntil, reason));
      openToken = -1;
      if (endedOnTimeline) {
        endedOnTimeline = false;
        return;
      }
      timeline.ended(
          name,
          reason.equals("cancelled") ? TermEnd.CLOSED : TermEnd.RENEW_DEADLINE_EXCEEDED,
          at - activeUntil > 0 ? activeUntil : at);
    }
  }

  private static long number(Map<String, String> fields, String key) {
    String value = fields.get(key);
    return value == null ? -1 : Long.parseLong(value);
  }

  /** Asks the process for its counters. */
  synchronized Stats stats(Duration limit) throws IOException, InterruptedException {
    long serial = statsSerial;
    command("stats");
    long deadline = System.nanoTime() + limit.toNanos();
    while (statsSerial == serial) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new IllegalStateException(name + ": no STATS line within " + limit);
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return stats;
  }

  /**
   * The releases it wrote over a Lease whose last read named another holder (instant and holder):
   * client-go's release trusts its last observed record, not the one it just read.
   */
  synchronized List<String> foreignReleases() {
    return List.copyOf(foreignReleases);
  }

  /** The terms the process ended so far, with both ends. */
  synchronized List<GoTerm> terms() {
    return List.copyOf(terms);
  }

  private void command(String text) {
    try {
      synchronized (stdin) {
        stdin.write(text + "\n");
        stdin.flush();
      }
    } catch (IOException e) {
      throw new IllegalStateException(name + ": cannot send '" + text + "': " + e, e);
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public FaultProxy proxy() {
    return proxy;
  }

  /** Whether the process reported a term that has not ended (it may be past its deadline). */
  @Override
  public synchronized boolean leading() {
    return openToken >= 0 && !endedOnTimeline;
  }

  @Override
  public void httpFail(double share, int status) {
    command(String.format(Locale.ROOT, "fail %.3f %d", share, status));
  }

  @Override
  public void httpThrottle(double share, Duration retryAfter) {
    command(String.format(Locale.ROOT, "throttle %.3f %d", share, retryAfter.toSeconds()));
  }

  @Override
  public void httpOff() {
    command("off");
  }

  /**
   * SIGKILL: the process dies without releasing. An open term ends on the timeline now, when the
   * process can no longer act; the process is gone before this returns.
   */
  void kill() {
    synchronized (this) {
      endOpenTermNow(TermEnd.CLOSED);
    }
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
      reader.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    proxy.close();
  }

  /**
   * A graceful termination as an application does it: it stops its work on SIGTERM, then lets
   * client-go release (with {@code --release-on-cancel}). An open term ends on the timeline now,
   * before the release is written; then {@link #close()}.
   */
  void terminate() {
    synchronized (this) {
      endOpenTermNow(TermEnd.CLOSED);
    }
    close();
  }

  private void endOpenTermNow(TermEnd reason) {
    if (openToken >= 0 && !endedOnTimeline) {
      endedOnTimeline = true;
      timeline.ended(name, reason, System.nanoTime());
    }
  }

  /** SIGTERM (client-go releases a Lease it holds), then waits for the process to end. */
  void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
      reader.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    proxy.close();
  }

  /** Writes {@code yaml} to a file for the process. */
  static Path writeKubeconfig(Path dir, String name, String yaml) throws IOException {
    Files.createDirectories(dir);
    return Files.writeString(dir.resolve(name + ".kubeconfig"), yaml);
  }

  @Override
  public String toString() {
    return name + " (client-go)";
  }
}
