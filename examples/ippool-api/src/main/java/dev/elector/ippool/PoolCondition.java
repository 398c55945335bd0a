package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import java.time.OffsetDateTime;
import java.util.Objects;

/**
 * A status condition, in the Kubernetes style: a type, "True"/"False"/"Unknown", a CamelCase reason
 * and a human message. Used by both resources.
 */
public final class PoolCondition {
  /** The pool's spec is valid and its allocation table is initialised. */
  public static final String REGISTERED = "Registered";

  /** The allocation table reflects the spec (reservations, exclusions, counts). */
  public static final String CACHE_READY = "CacheReady";

  /** The pool's agent Deployment has a ready replica. */
  public static final String AGENT_READY = "AgentReady";

  /** The pool's network, a Multus NetworkAttachmentDefinition, exists. */
  public static final String NETWORK_READY = "NetworkReady";

  /** The pool is paused: no agent runs (upstream's name). */
  public static final String STOPPED = "Stopped";

  /**
   * The VirtualMachineNetworkConfig is paused: its addresses are released, or kept where the
   * controller runs with --keep-addresses-while-paused (upstream's name).
   */
  public static final String DISABLED = "Disabled";

  /**
   * The pool is being deleted but VirtualMachineNetworkConfigs still use its network, so its
   * finalizer holds it (and its agent keeps serving) until none does.
   */
  public static final String DELETION_BLOCKED = "DeletionBlocked";

  /** A VirtualMachineNetworkConfig has an address for every NIC. */
  public static final String ALLOCATED = "Allocated";

  @SerializedName("type")
  private String type;

  @SerializedName("status")
  private String status;

  @SerializedName("reason")
  private String reason;

  @SerializedName("message")
  private String message;

  @SerializedName("lastUpdateTime")
  private OffsetDateTime lastUpdateTime;

  @SerializedName("lastTransitionTime")
  private OffsetDateTime lastTransitionTime;

  public String getType() {
    return type;
  }

  public PoolCondition type(String type) {
    this.type = type;
    return this;
  }

  public String getStatus() {
    return status;
  }

  /** True when the status is "True". */
  public boolean isTrue() {
    return "True".equals(status);
  }

  public PoolCondition status(String status) {
    this.status = status;
    return this;
  }

  public PoolCondition status(boolean value) {
    this.status = value ? "True" : "False";
    return this;
  }

  public String getReason() {
    return reason;
  }

  public PoolCondition reason(String reason) {
    this.reason = reason;
    return this;
  }

  public String getMessage() {
    return message;
  }

  public PoolCondition message(String message) {
    this.message = message;
    return this;
  }

  public OffsetDateTime getLastUpdateTime() {
    return lastUpdateTime;
  }

  public PoolCondition lastUpdateTime(OffsetDateTime lastUpdateTime) {
    this.lastUpdateTime = lastUpdateTime;
    return this;
  }

  public OffsetDateTime getLastTransitionTime() {
    return lastTransitionTime;
  }

  public PoolCondition lastTransitionTime(OffsetDateTime lastTransitionTime) {
    this.lastTransitionTime = lastTransitionTime;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PoolCondition c
        && Objects.equals(type, c.type)
        && Objects.equals(status, c.status)
        && Objects.equals(reason, c.reason)
        && Objects.equals(message, c.message)
        && Objects.equals(lastUpdateTime, c.lastUpdateTime)
        && Objects.equals(lastTransitionTime, c.lastTransitionTime);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, status, reason, message, lastUpdateTime, lastTransitionTime);
  }

  @Override
  public String toString() {
    return type + "=" + status + (reason == null ? "" : " (" + reason + ": " + message + ")");
  }
}
