package dev.elector.controller;

import dev.elector.ippool.PoolCondition;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Sets conditions the Kubernetes way: lastTransitionTime changes only when the status flips,
 * lastUpdateTime only when status, reason or message change. A condition set to what it already
 * says is left as it is, timestamps included, so an unchanged status compares equal and is not
 * written again.
 */
final class Conditions {
  private final List<PoolCondition> conditions;
  private final OffsetDateTime now;

  /** Starts from a copy of {@code current}; {@code now} stamps what changes. */
  Conditions(List<PoolCondition> current, OffsetDateTime now) {
    this.conditions = new ArrayList<>();
    for (PoolCondition c : current) {
      conditions.add(copy(c));
    }
    this.now = now;
  }

  /** Sets {@code type} to {@code status} with a reason and a message. */
  Conditions set(String type, boolean status, String reason, String message) {
    String statusText = status ? "True" : "False";
    for (PoolCondition c : conditions) {
      if (type.equals(c.getType())) {
        boolean flipped = !statusText.equals(c.getStatus());
        if (flipped
            || !Objects.equals(reason, c.getReason())
            || !Objects.equals(message, c.getMessage())) {
          c.lastUpdateTime(now);
        }
        if (flipped || c.getLastTransitionTime() == null) {
          c.lastTransitionTime(now);
        }
        c.status(statusText).reason(reason).message(message);
        return this;
      }
    }
    conditions.add(
        new PoolCondition()
            .type(type)
            .status(statusText)
            .reason(reason)
            .message(message)
            .lastUpdateTime(now)
            .lastTransitionTime(now));
    return this;
  }

  /** Removes {@code type}, such as a condition an earlier version wrote under another name. */
  Conditions remove(String type) {
    conditions.removeIf(c -> type.equals(c.getType()));
    return this;
  }

  /** The conditions, in the order first set. */
  List<PoolCondition> list() {
    List<PoolCondition> copies = new ArrayList<>();
    for (PoolCondition c : conditions) {
      copies.add(copy(c));
    }
    return copies;
  }

  private static PoolCondition copy(PoolCondition c) {
    return new PoolCondition()
        .type(c.getType())
        .status(c.getStatus())
        .reason(c.getReason())
        .message(c.getMessage())
        .lastUpdateTime(c.getLastUpdateTime())
        .lastTransitionTime(c.getLastTransitionTime());
  }
}
