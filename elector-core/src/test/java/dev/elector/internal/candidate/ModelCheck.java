package dev.elector.internal.candidate;

import dev.elector.lock.LeaderRecord;
import dev.elector.lock.LockFailure;
import dev.elector.lock.LockRead;
import dev.elector.lock.LockWrite;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A bounded exhaustive check of the candidate machine: two or three {@link Candidate}s on one lock
 * held by a model server, every interleaving of what can happen up to a depth, each distinct world
 * explored once. What can happen: the earliest timer fires (a step, a renew deadline, a call's
 * callTimeout, close's timeout), a call lands at the server (a write applied if its version still
 * matches), a landed call answers, a call fails without landing, a watch delivers its next event, a
 * stop callback returns, a leader is asked to step down, a candidate is asked to close, someone
 * outside the election edits the lock object's metadata (a new version of the same record) or, in
 * the {@link Outsider#STALE_RELEASE} check instead, a stale leader releases the lock over whatever
 * term holds it (as client-go's leader does after its renewals failed). A landed call whose
 * callTimeout fires first is a late answer.
 *
 * <p>After every event it asserts: at most one candidate holds a term that is valid at that
 * instant; every term that started ends exactly once, and a closed candidate holds none; one call
 * at a time per candidate; and each candidate's calls stay within the documented bound (a burst of
 * {@code CALL_BURST}, then one per {@code retryPeriod / CALLS_PER_RETRY_PERIOD}), checked with an
 * independent token bucket.
 */
final class ModelCheck {
  static final long S = 1_000_000_000L;
  static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

  /** The machine as the check drives it; a mutant wraps the real one. */
  interface Machine {
    Candidate.Step next(Candidate candidate, State state, Event event, Candidate.Moment now);
  }

  /** What the one outside write of a run is. */
  enum Outsider {
    /** An edit of the object's metadata: a new version of the same record. */
    METADATA_EDIT,
    /**
     * A release written over the record held at that moment by a leader that lost its term without
     * reading the new holder: the current token, its own clock's time as acquisition and renewal.
     */
    STALE_RELEASE
  }

  /** The wall time a stale releaser writes: its own clock's, never the term's acquisition time. */
  private static final Instant STALE_WALL = Instant.parse("2025-12-31T23:59:59Z");

  /** The machine as it is. */
  static final Machine REAL = Candidate::next;

  /** The timings of the check: client-go's defaults. */
  record Timings(long lease, long renewDeadline, long retry, long callTimeout, long maxBackoff) {
    static final Timings DEFAULTS = new Timings(15 * S, 10 * S, 2 * S, 5 * S, 16 * S);
  }

  /** What was found: the worlds explored, the deepest level reached, and the first violation. */
  record Report(long worlds, long transitions, int depth, @Nullable String violation) {}

  /** The lock at the server: absent (version null) or a record at a version. */
  record Server(@Nullable String version, @Nullable LeaderRecord record, int versions) {}

  /** A call in flight: once landed, its answer is fixed. */
  record Call(Effect.Call call, long deadline, boolean landed, @Nullable Object answer) {}

  /** One candidate as the world holds it: its machine state and what its driver owns. */
  record Node(
      State state,
      long step,
      long deadline,
      long closeTimer,
      @Nullable Call call,
      boolean watching,
      List<LockRead> watchQueue,
      long openTerm,
      long validUntil,
      long stopPending,
      boolean finished,
      long bucketDue) {
    static final long NONE = Long.MAX_VALUE;
  }

  /** The whole world: the candidates, the server, the clock and the requests still allowed. */
  record World(
      List<Node> nodes,
      Server server,
      long now,
      boolean stepDownLeft,
      boolean closeLeft,
      boolean editLeft) {

    World at(long time) {
      return new World(nodes, server, time, stepDownLeft, closeLeft, editLeft);
    }

    World with(List<Node> newNodes, Server newServer) {
      return new World(newNodes, newServer, now, stepDownLeft, closeLeft, editLeft);
    }
  }

  private final Candidate candidate;
  private final Machine machine;
  private final Timings timings;
  private final int candidates;
  private final int maxDepth;
  private final long interval;
  private final int burst;
  private final Outsider outsider;
  private final Map<World, Integer> seen = new HashMap<>();
  private long transitions;
  private int deepest;
  private @Nullable String violation;

  ModelCheck(int candidates, int maxDepth, UnaryOperator<Machine> mutation) {
    this(candidates, maxDepth, mutation, Outsider.METADATA_EDIT);
  }

  ModelCheck(int candidates, int maxDepth, UnaryOperator<Machine> mutation, Outsider outsider) {
    this.outsider = outsider;
    this.timings = Timings.DEFAULTS;
    this.candidate =
        new Candidate(
            new Candidate.Settings(
                "c0",
                Duration.ofNanos(timings.lease()),
                Duration.ofNanos(timings.renewDeadline()),
                Duration.ofNanos(timings.retry()),
                Duration.ofSeconds(5),
                true,
                4,
                2));
    this.machine = mutation.apply(REAL);
    this.candidates = candidates;
    this.maxDepth = maxDepth;
    this.burst = 4;
    this.interval = timings.retry() / 2;
  }

  /** Every candidate's machine is the real one with its own identity. */
  private final Map<String, Candidate> machines = new HashMap<>();

  private Candidate machineOf(String identity) {
    return machines.computeIfAbsent(
        identity,
        id -> {
          Candidate.Settings s = candidate.settings();
          return new Candidate(
              new Candidate.Settings(
                  id,
                  s.leaseDuration(),
                  s.renewDeadline(),
                  s.retryPeriod(),
                  s.closeTimeout(),
                  s.releaseOnClose(),
                  s.callBurst(),
                  s.callsPerRetryPeriod()));
        });
  }

  Report run() {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < candidates; i++) {
      nodes.add(
          new Node(
              machineOf("c" + i).initial(),
              Node.NONE,
              Node.NONE,
              Node.NONE,
              null,
              false,
              List.of(),
              -1,
              0,
              -1,
              false,
              Long.MIN_VALUE));
    }
    World world = new World(List.copyOf(nodes), new Server(null, null, 0), 0, true, true, true);
    for (int i = 0; i < candidates; i++) {
      world = apply(world, i, new Event.GateCompleted(null));
    }
    explore(world, 0);
    return new Report(seen.size(), transitions, deepest, violation);
  }

  private void explore(World world, int depth) {
    if (violation != null) {
      return;
    }
    Integer before = seen.get(world);
    if (before != null && before <= depth) {
      return;
    }
    seen.put(world, depth);
    deepest = Math.max(deepest, depth);
    if (depth == maxDepth) {
      return;
    }
    for (World next : successors(world)) {
      transitions++;
      if (violation != null) {
        return;
      }
      explore(next, depth + 1);
    }
  }

  // ------------------------------------------------------------------ what can happen next

  private List<World> successors(World world) {
    List<World> next = new ArrayList<>();
    long earliest = Node.NONE;
    for (Node node : world.nodes()) {
      earliest = Math.min(earliest, earliestTimer(node));
    }
    LeaderRecord outsideWrite = outsideWrite(world.server());
    if (world.editLeft() && outsideWrite != null) {
      Server server = world.server();
      World edited =
          new World(
              world.nodes(),
              written(server, outsideWrite),
              world.now(),
              world.stepDownLeft(),
              world.closeLeft(),
              false);
      next.add(broadcast(edited));
    }
    for (int i = 0; i < world.nodes().size(); i++) {
      Node node = world.nodes().get(i);
      if (node.finished()) {
        continue;
      }
      if (earliest != Node.NONE) {
        if (node.step() == earliest) {
          next.add(fire(world, i, earliest, Timer.STEP));
        }
        if (node.deadline() == earliest) {
          next.add(fire(world, i, earliest, Timer.DEADLINE));
        }
        if (node.closeTimer() == earliest) {
          next.add(fire(world, i, earliest, Timer.CLOSE));
        }
        if (node.call() != null && node.call().deadline() == earliest) {
          next.add(fire(world, i, earliest, Timer.CALL));
        }
      }
      Call call = node.call();
      if (call != null && !call.landed()) {
        next.add(land(world, i));
        next.add(answer(world, i, failure()));
      } else if (call != null) {
        next.add(answer(world, i, call.answer()));
      }
      if (!node.watchQueue().isEmpty()) {
        List<LockRead> rest = node.watchQueue().subList(1, node.watchQueue().size());
        World taken = withNode(world, i, withQueue(node, List.copyOf(rest)));
        next.add(apply(taken, i, new Event.Watched(node.watchQueue().get(0))));
      }
      if (node.stopPending() >= 0) {
        World returned = withNode(world, i, withStopPending(node, -1));
        next.add(apply(returned, i, new Event.StopCallbackReturned(node.stopPending())));
      }
      if (world.stepDownLeft() && node.state().phase() instanceof Phase.Leading) {
        World asked =
            new World(
                world.nodes(),
                world.server(),
                world.now(),
                false,
                world.closeLeft(),
                world.editLeft());
        next.add(apply(asked, i, new Event.StepDownAsked(world.now() + timings.lease())));
      }
      if (world.closeLeft() && i == 0) {
        World asked =
            new World(
                world.nodes(),
                world.server(),
                world.now(),
                world.stepDownLeft(),
                false,
                world.editLeft());
        asked = apply(asked, i, new Event.CloseRequested());
        next.add(apply(asked, i, new Event.Close()));
      }
    }
    return next;
  }

  private enum Timer {
    STEP,
    DEADLINE,
    CLOSE,
    CALL
  }

  private static long earliestTimer(Node node) {
    if (node.finished()) {
      return Node.NONE;
    }
    long due = Math.min(node.step(), Math.min(node.deadline(), node.closeTimer()));
    return node.call() == null ? due : Math.min(due, node.call().deadline());
  }

  private World fire(World world, int i, long at, Timer timer) {
    World later = world.at(at);
    Node node = later.nodes().get(i);
    return switch (timer) {
      case STEP -> apply(withNode(later, i, withStep(node, Node.NONE)), i, new Event.StepDue());
      case DEADLINE ->
          apply(withNode(later, i, withDeadline(node, Node.NONE)), i, new Event.DeadlineDue());
      case CLOSE ->
          apply(withNode(later, i, withCloseTimer(node, Node.NONE)), i, new Event.CloseTimedOut());
      case CALL -> answer(later, i, failure()); // landed or not: too late
    };
  }

  private static LockFailure failure() {
    return LockFailure.of(LockFailure.Kind.UNAVAILABLE, "no answer");
  }

  /** The call reaches the server: a read sees the lock, a write is applied if it still may be. */
  private World land(World world, int i) {
    Node node = world.nodes().get(i);
    Call call = node.call();
    Effect.Call asked = call.call();
    Server server = world.server();
    Object answer;
    Server after = server;
    switch (asked.kind()) {
      case READ ->
          answer =
              server.version() == null
                  ? new LockRead.Absent()
                  : new LockRead.Found(server.version(), server.record());
      case CREATE -> {
        if (server.version() != null) {
          answer = new LockWrite.Conflict("exists");
        } else {
          after = written(server, asked.record());
          answer = new LockWrite.Written(after.version());
        }
      }
      default -> {
        if (!asked.version().equals(server.version())) {
          answer = new LockWrite.Conflict("stale");
        } else {
          after = written(server, asked.record());
          answer = new LockWrite.Written(after.version());
        }
      }
    }
    World landed =
        withNode(world, i, withCall(node, new Call(asked, call.deadline(), true, answer)));
    if (!after.equals(server)) {
      landed = broadcast(landed.with(landed.nodes(), after));
    }
    return landed;
  }

  /** What the outsider would write over {@code server}'s lock now, or null if nothing. */
  private @Nullable LeaderRecord outsideWrite(Server server) {
    LeaderRecord record = server.record();
    if (server.version() == null) {
      return null;
    }
    if (outsider == Outsider.METADATA_EDIT) {
      return record;
    }
    return record == null || record.isReleased()
        ? null
        : new LeaderRecord(
            "", Duration.ofSeconds(1), STALE_WALL, STALE_WALL, record.leaderTransitions());
  }

  private static Server written(Server server, LeaderRecord record) {
    int version = server.versions() + 1;
    return new Server(String.valueOf(version), record, version);
  }

  /** Every watching candidate is told of the server's new record. */
  private static World broadcast(World world) {
    Server server = world.server();
    List<Node> nodes = new ArrayList<>();
    for (Node node : world.nodes()) {
      if (node.watching() && !node.finished()) {
        List<LockRead> queue = new ArrayList<>(node.watchQueue());
        queue.add(new LockRead.Found(server.version(), server.record()));
        node = withQueue(node, List.copyOf(queue));
      }
      nodes.add(node);
    }
    return world.with(List.copyOf(nodes), server);
  }

  private World answer(World world, int i, Object answer) {
    Node node = world.nodes().get(i);
    long seq = node.call().call().seq();
    World answered = withNode(world, i, withCall(node, null));
    return apply(
        answered,
        i,
        node.call().call().kind() == Effect.Kind.READ
            ? new Event.ReadAnswered(seq, (LockRead) answer)
            : new Event.WriteAnswered(seq, (LockWrite) answer));
  }

  // ------------------------------------------------------------------ the model's driver

  /** Feeds {@code event} to candidate {@code i}'s machine and runs the effects as its driver. */
  private World apply(World world, int i, Event event) {
    Node node = world.nodes().get(i);
    long now = world.now();
    Candidate.Step step =
        machine.next(
            machineOf("c" + i),
            node.state(),
            event,
            new Candidate.Moment(now, EPOCH.plusNanos(now)));
    node = withState(node, step.next());
    Server server = world.server();
    for (Effect effect : step.effects()) {
      if (effect instanceof Effect.ScheduleStep schedule) {
        node = withStep(node, now + delay(schedule.delay(), now));
      } else if (effect instanceof Effect.CancelStep) {
        node = withStep(node, Node.NONE);
      } else if (effect instanceof Effect.ArmDeadline arm) {
        node = withDeadline(node, now + arm.delayNanos());
      } else if (effect instanceof Effect.CancelDeadline) {
        node = withDeadline(node, Node.NONE);
      } else if (effect instanceof Effect.ArmCloseTimer arm) {
        node = withCloseTimer(node, now + arm.delayNanos());
      } else if (effect instanceof Effect.Call call) {
        if (node.call() != null) {
          fail("c" + i + " made a call while another was in flight: " + call);
        }
        node = withCall(node, new Call(call, now + timings.callTimeout(), false, null));
        node = spendCall(node, now, i);
      } else if (effect instanceof Effect.Watch && !node.watching()) {
        List<LockRead> queue = new ArrayList<>(node.watchQueue());
        queue.add(
            server.version() == null
                ? new LockRead.Absent()
                : new LockRead.Found(server.version(), server.record()));
        node = withWatch(node, List.copyOf(queue));
      } else if (effect instanceof Effect.StartTerm start) {
        if (node.openTerm() >= 0) {
          fail("c" + i + " started term " + start.token() + " inside term " + node.openTerm());
        }
        node = withTerm(node, start.token(), start.validUntil());
      } else if (effect instanceof Effect.ExtendTerm extend) {
        if (node.openTerm() < 0) {
          fail("c" + i + " extended a term it does not hold");
        }
        node = withTerm(node, node.openTerm(), extend.validUntil());
      } else if (effect instanceof Effect.EndTerm end) {
        if (node.openTerm() != end.token()) {
          fail("c" + i + " ended term " + end.token() + " while holding " + node.openTerm());
        }
        node = withStopPending(withTerm(node, -1, 0), end.token());
      } else if (effect instanceof Effect.Finish) {
        node = finished(node);
      }
    }
    if (node.finished() && node.openTerm() >= 0) {
      fail("c" + i + " closed holding term " + node.openTerm());
    }
    World after = withNode(world, i, node);
    checkOneValidTerm(after);
    return after;
  }

  /** The delay the driver resolves, with a jitter draw of zero. */
  private long delay(Effect.Delay delay, long now) {
    if (delay instanceof Effect.Delay.Exactly exactly) {
      return exactly.nanos();
    }
    if (delay instanceof Effect.Delay.Retry retry) {
      return Math.min(retry.cap(), Math.max(0, retry.from() + timings.retry() - now));
    }
    int failures = Math.max(1, ((Effect.Delay.Backoff) delay).failures());
    long doubled = timings.retry() << Math.min(failures - 1, 20);
    return Math.min(timings.maxBackoff(), doubled);
  }

  /** The documented bound, as a token bucket of the check's own. */
  private Node spendCall(Node node, long now, int i) {
    long tolerance = (burst - 1L) * interval;
    long due = node.bucketDue() == Long.MIN_VALUE ? now : node.bucketDue();
    if (due - tolerance > now) {
      fail("c" + i + " called beyond the bound at " + Duration.ofNanos(now));
    }
    long spent = Math.max(due, now) + interval;
    return edit(node, e -> e.bucketDue = spent);
  }

  private void checkOneValidTerm(World world) {
    List<String> valid = new ArrayList<>();
    for (int i = 0; i < world.nodes().size(); i++) {
      Node node = world.nodes().get(i);
      if (node.openTerm() >= 0 && world.now() > node.validUntil()) {
        fail("c" + i + "'s term " + node.openTerm() + " outlived its validity");
      }
      if (node.openTerm() >= 0 && world.now() < node.validUntil()) {
        valid.add("c" + i + " (term " + node.openTerm() + ")");
      }
    }
    if (valid.size() > 1) {
      fail("two valid terms at " + Duration.ofNanos(world.now()) + ": " + valid);
    }
  }

  private void fail(String message) {
    if (violation == null) {
      violation = message;
    }
  }

  // ------------------------------------------------------------------ world edits

  private static World withNode(World world, int i, Node node) {
    List<Node> nodes = new ArrayList<>(world.nodes());
    nodes.set(i, node);
    return world.with(List.copyOf(nodes), world.server());
  }

  /** A node's fields, to change a few of them and make a new node. */
  private static final class NodeEdit {
    State state;
    long step;
    long deadline;
    long closeTimer;
    @Nullable Call call;
    boolean watching;
    List<LockRead> watchQueue;
    long openTerm;
    long validUntil;
    long stopPending;
    boolean finished;
    long bucketDue;

    NodeEdit(Node n) {
      state = n.state();
      step = n.step();
      deadline = n.deadline();
      closeTimer = n.closeTimer();
      call = n.call();
      watching = n.watching();
      watchQueue = n.watchQueue();
      openTerm = n.openTerm();
      validUntil = n.validUntil();
      stopPending = n.stopPending();
      finished = n.finished();
      bucketDue = n.bucketDue();
    }

    Node node() {
      return new Node(
          state,
          step,
          deadline,
          closeTimer,
          call,
          watching,
          watchQueue,
          openTerm,
          validUntil,
          stopPending,
          finished,
          bucketDue);
    }
  }

  private static Node edit(Node n, java.util.function.Consumer<NodeEdit> change) {
    NodeEdit edit = new NodeEdit(n);
    change.accept(edit);
    return edit.node();
  }

  private static Node withState(Node n, State s) {
    return edit(n, e -> e.state = s);
  }

  private static Node withStep(Node n, long step) {
    return edit(n, e -> e.step = step);
  }

  private static Node withDeadline(Node n, long deadline) {
    return edit(n, e -> e.deadline = deadline);
  }

  private static Node withCloseTimer(Node n, long closeTimer) {
    return edit(n, e -> e.closeTimer = closeTimer);
  }

  private static Node withCall(Node n, @Nullable Call call) {
    return edit(n, e -> e.call = call);
  }

  private static Node withQueue(Node n, List<LockRead> queue) {
    return edit(n, e -> e.watchQueue = queue);
  }

  private static Node withWatch(Node n, List<LockRead> queue) {
    return edit(
        n,
        e -> {
          e.watching = true;
          e.watchQueue = queue;
        });
  }

  private static Node withTerm(Node n, long term, long validUntil) {
    return edit(
        n,
        e -> {
          e.openTerm = term;
          e.validUntil = validUntil;
        });
  }

  private static Node withStopPending(Node n, long token) {
    return edit(n, e -> e.stopPending = token);
  }

  private static Node finished(Node n) {
    return edit(
        n,
        e -> {
          e.step = Node.NONE;
          e.deadline = Node.NONE;
          e.closeTimer = Node.NONE;
          e.call = null;
          e.watching = false;
          e.watchQueue = List.of();
          e.finished = true;
        });
  }
}
