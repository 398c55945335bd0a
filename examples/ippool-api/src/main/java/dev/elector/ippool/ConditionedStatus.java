package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A status that reports {@link PoolCondition}s, as both kinds' statuses do.
 *
 * @param <R> the subclass, which {@link #conditions(List)} returns
 */
public abstract class ConditionedStatus<R extends ConditionedStatus<R>> {
  @SerializedName("conditions")
  private List<PoolCondition> conditions;

  ConditionedStatus() {}

  /** The conditions; never null. */
  public List<PoolCondition> getConditions() {
    return conditions == null ? List.of() : conditions;
  }

  /** Replaces the conditions with a copy of {@code conditions}. */
  @SuppressWarnings("unchecked") // R is the subclass, by the type's declaration
  public R conditions(List<PoolCondition> conditions) {
    this.conditions = conditions == null ? null : new ArrayList<>(conditions);
    return (R) this;
  }

  /** The condition of the given type, if reported. */
  public Optional<PoolCondition> condition(String type) {
    return getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }
}
