package dev.elector.sbs;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The side-by-side application, one source for both sides: it knows leadership only through
 * Spring Integration's {@code OnGrantedEvent} and {@code OnRevokedEvent}, which Spring Cloud
 * Kubernetes' leader and Elector's starter both publish, and runs a leader-only job every 250 ms.
 * The two builds differ in one dependency and in their properties.
 *
 * <p>Every fact is one line on standard output, {@code EVENT <nanos> KIND identity=ID key=value...}
 * with {@code System.nanoTime()}, which the processes of one Linux machine share, so the driver puts
 * the replicas on one time line: {@code STARTED}, {@code LEADING}, {@code REVOKED}, {@code
 * CLOSING}, and {@code JOB checked=<nanos>} for each job run, {@code checked} being the moment the
 * run decided that this replica leads.
 */
@SpringBootApplication
@EnableScheduling
public class SideBySideApp {
  private static final PrintStream OUT = System.out;
  private static final String IDENTITY = System.getenv().getOrDefault("HOSTNAME", "unknown");

  private volatile boolean leading;
  private final AtomicLong runs = new AtomicLong();

  public static void main(String[] args) {
    SpringApplication.run(SideBySideApp.class, args);
  }

  static void event(long nanos, String kind, String fields) {
    String line = "EVENT " + nanos + " " + kind + " identity=" + IDENTITY + fields;
    synchronized (OUT) {
      OUT.println(line);
      OUT.flush();
    }
  }

  @EventListener
  public void granted(OnGrantedEvent e) {
    leading = true;
    event(System.nanoTime(), "LEADING", " role=" + e.getRole());
  }

  @EventListener
  public void revoked(OnRevokedEvent e) {
    leading = false;
    event(System.nanoTime(), "REVOKED", " role=" + e.getRole());
  }

  @EventListener
  public void ready(ApplicationReadyEvent e) {
    event(System.nanoTime(), "STARTED", "");
  }

  @EventListener
  public void closing(ContextClosedEvent e) {
    event(System.nanoTime(), "CLOSING", "");
  }

  /** The leader-only job: runs while this replica believes it leads. */
  @Scheduled(fixedDelay = 250)
  public void job() {
    long checked = System.nanoTime();
    if (leading) {
      event(System.nanoTime(), "JOB", " checked=" + checked + " run=" + runs.incrementAndGet());
    }
  }
}
