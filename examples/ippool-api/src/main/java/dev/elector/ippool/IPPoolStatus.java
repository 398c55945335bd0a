package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import java.time.OffsetDateTime;
import java.util.Objects;

/** What the controller reports of a pool: allocations, counts, conditions and its agent. */
public final class IPPoolStatus extends ConditionedStatus<IPPoolStatus> {
  @SerializedName("ipv4")
  private IPv4Status ipv4;

  @SerializedName("lastUpdate")
  private OffsetDateTime lastUpdate;

  @SerializedName("agentDeploymentRef")
  private ObjectRef agentDeploymentRef;

  @SerializedName("agentPodRef")
  private PodRef agentPodRef;

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

  /** The agent pod that serves the pool, as its leader wrote it; null while none leads. */
  public PodRef getAgentPodRef() {
    return agentPodRef;
  }

  public IPPoolStatus agentPodRef(PodRef agentPodRef) {
    this.agentPodRef = agentPodRef;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IPPoolStatus s
        && Objects.equals(ipv4, s.ipv4)
        && Objects.equals(lastUpdate, s.lastUpdate)
        && Objects.equals(agentDeploymentRef, s.agentDeploymentRef)
        && Objects.equals(agentPodRef, s.agentPodRef)
        && Objects.equals(getConditions(), s.getConditions());
  }

  @Override
  public int hashCode() {
    return Objects.hash(ipv4, lastUpdate, agentDeploymentRef, agentPodRef, getConditions());
  }

  @Override
  public String toString() {
    return "{ipv4="
        + ipv4
        + ", lastUpdate="
        + lastUpdate
        + ", agent="
        + agentDeploymentRef
        + ", pod="
        + agentPodRef
        + ", conditions="
        + getConditions()
        + "}";
  }
}
