package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** What the controller reports of a pool: allocations, counts, conditions and its agent. */
public final class IPPoolStatus {
  @SerializedName("ipv4")
  private IPv4Status ipv4;

  @SerializedName("lastUpdate")
  private OffsetDateTime lastUpdate;

  @SerializedName("agentDeploymentRef")
  private ObjectRef agentDeploymentRef;

  @SerializedName("conditions")
  private List<PoolCondition> conditions;

  public IPv4Status getIpv4() {
    return ipv4;
  }

  public IPPoolStatus ipv4(IPv4Status ipv4) {
    this.ipv4 = ipv4;
    return this;
  }

  public OffsetDateTime getLastUpdate() {
    return lastUpdate;
  }

  public IPPoolStatus lastUpdate(OffsetDateTime lastUpdate) {
    this.lastUpdate = lastUpdate;
    return this;
  }

  public ObjectRef getAgentDeploymentRef() {
    return agentDeploymentRef;
  }

  public IPPoolStatus agentDeploymentRef(ObjectRef agentDeploymentRef) {
    this.agentDeploymentRef = agentDeploymentRef;
    return this;
  }

  /** The conditions; never null. */
  public List<PoolCondition> getConditions() {
    return conditions == null ? List.of() : conditions;
  }

  public IPPoolStatus conditions(List<PoolCondition> conditions) {
    this.conditions = conditions == null ? null : new ArrayList<>(conditions);
    return this;
  }

  /** The condition of the given type, if reported. */
  public Optional<PoolCondition> condition(String type) {
    return getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IPPoolStatus s
        && Objects.equals(ipv4, s.ipv4)
        && Objects.equals(lastUpdate, s.lastUpdate)
        && Objects.equals(agentDeploymentRef, s.agentDeploymentRef)
        && Objects.equals(getConditions(), s.getConditions());
  }

  @Override
  public int hashCode() {
    return Objects.hash(ipv4, lastUpdate, agentDeploymentRef, getConditions());
  }

  @Override
  public String toString() {
    return "{ipv4=" + ipv4 + ", lastUpdate=" + lastUpdate + ", agent=" + agentDeploymentRef
        + ", conditions=" + getConditions() + "}";
  }
}
