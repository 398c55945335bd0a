package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** The NICs of one VM that need addresses, and the addresses the controller allocated them. */
public final class VirtualMachineNetworkConfig
    extends CustomResource<
        VirtualMachineNetworkConfig.Spec,
        VirtualMachineNetworkConfig.Status,
        VirtualMachineNetworkConfig> {
  /** The kind, as in the CRD. */
  public static final String KIND = "VirtualMachineNetworkConfig";

  /** The most NICs one config lists: the CRD's maxItems of spec.networkConfigs, as upstream's. */
  public static final int MAX_NICS = 4;

  /** A config with no metadata, spec or status yet. */
  public VirtualMachineNetworkConfig() {
    super(KIND);
  }

  /** The VM, its NICs, and whether the config is paused. */
  public static final class Spec {
    @SerializedName("vmName")
    private String vmName;

    @SerializedName("paused")
    private Boolean paused;

    @SerializedName("networkConfigs")
    private List<NetworkConfig> networkConfigs;

    /** The upstream README's spelling, accepted by the CRD as an alias of networkConfigs. */
    @SerializedName("networkConfig")
    private List<NetworkConfig> networkConfig;

    public String getVmName() {
      return vmName;
    }

    public Spec vmName(String vmName) {
      this.vmName = vmName;
      return this;
    }

    public Boolean getPaused() {
      return paused;
    }

    /** True when the config is paused (an absent field means not paused). */
    public boolean isPaused() {
      return Boolean.TRUE.equals(paused);
    }

    public Spec paused(Boolean paused) {
      this.paused = paused;
      return this;
    }

    /**
     * The NICs: networkConfigs, or where it is absent its alias networkConfig (the spelling of the
     * upstream project's README); never null.
     */
    public List<NetworkConfig> getNetworkConfigs() {
      return networkConfigs != null
          ? networkConfigs
          : networkConfig != null ? networkConfig : List.of();
    }

    /** Sets the NICs as networkConfigs (the alias networkConfig is dropped). */
    public Spec networkConfigs(List<NetworkConfig> networkConfigs) {
      this.networkConfigs = networkConfigs == null ? null : new ArrayList<>(networkConfigs);
      this.networkConfig = null;
      return this;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Spec s
          && Objects.equals(vmName, s.vmName)
          && Objects.equals(paused, s.paused)
          && Objects.equals(getNetworkConfigs(), s.getNetworkConfigs());
    }

    @Override
    public int hashCode() {
      return Objects.hash(vmName, paused, getNetworkConfigs());
    }

    @Override
    public String toString() {
      return "{vmName="
          + vmName
          + ", paused="
          + paused
          + ", networkConfigs="
          + getNetworkConfigs()
          + "}";
    }
  }

  /** One NIC: the network it is on, its MAC, and optionally the address it asks for. */
  public static final class NetworkConfig {
    @SerializedName("networkName")
    private String networkName;

    @SerializedName("macAddress")
    private String macAddress;

    @SerializedName("ipAddress")
    private String ipAddress;

    public String getNetworkName() {
      return networkName;
    }

    public NetworkConfig networkName(String networkName) {
      this.networkName = networkName;
      return this;
    }

    public String getMacAddress() {
      return macAddress;
    }

    public NetworkConfig macAddress(String macAddress) {
      this.macAddress = macAddress;
      return this;
    }

    /** The requested address, or null to take any free one. */
    public String getIpAddress() {
      return ipAddress;
    }

    public NetworkConfig ipAddress(String ipAddress) {
      this.ipAddress = ipAddress;
      return this;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof NetworkConfig n
          && Objects.equals(networkName, n.networkName)
          && Objects.equals(macAddress, n.macAddress)
          && Objects.equals(ipAddress, n.ipAddress);
    }

    @Override
    public int hashCode() {
      return Objects.hash(networkName, macAddress, ipAddress);
    }

    @Override
    public String toString() {
      return "{networkName="
          + networkName
          + ", macAddress="
          + macAddress
          + (ipAddress == null ? "" : ", ipAddress=" + ipAddress)
          + "}";
    }
  }

  /** What the controller allocated. */
  public static final class Status extends ConditionedStatus<Status> {
    @SerializedName("networkConfigs")
    private List<NetworkConfigStatus> networkConfigs;

    /** Per NIC; never null. */
    public List<NetworkConfigStatus> getNetworkConfigs() {
      return networkConfigs == null ? List.of() : networkConfigs;
    }

    public Status networkConfigs(List<NetworkConfigStatus> networkConfigs) {
      this.networkConfigs = networkConfigs == null ? null : new ArrayList<>(networkConfigs);
      return this;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Status s
          && Objects.equals(getNetworkConfigs(), s.getNetworkConfigs())
          && Objects.equals(getConditions(), s.getConditions());
    }

    @Override
    public int hashCode() {
      return Objects.hash(getNetworkConfigs(), getConditions());
    }

    @Override
    public String toString() {
      return "{networkConfigs=" + getNetworkConfigs() + ", conditions=" + getConditions() + "}";
    }
  }

  /** The outcome for one NIC. */
  public static final class NetworkConfigStatus {
    /** The NIC has an address. */
    public static final String STATE_ALLOCATED = "Allocated";

    /** The NIC waits for its pool (missing, paused or not registered yet). */
    public static final String STATE_PENDING = "Pending";

    /** The NIC cannot get an address (pool full, requested address taken, bad MAC). */
    public static final String STATE_ERROR = "Error";

    @SerializedName("networkName")
    private String networkName;

    @SerializedName("macAddress")
    private String macAddress;

    @SerializedName("allocatedIPAddress")
    private String allocatedIPAddress;

    @SerializedName("state")
    private String state;

    @SerializedName("message")
    private String message;

    public String getNetworkName() {
      return networkName;
    }

    public NetworkConfigStatus networkName(String networkName) {
      this.networkName = networkName;
      return this;
    }

    public String getMacAddress() {
      return macAddress;
    }

    public NetworkConfigStatus macAddress(String macAddress) {
      this.macAddress = macAddress;
      return this;
    }

    public String getAllocatedIPAddress() {
      return allocatedIPAddress;
    }

    public NetworkConfigStatus allocatedIPAddress(String allocatedIPAddress) {
      this.allocatedIPAddress = allocatedIPAddress;
      return this;
    }

    public String getState() {
      return state;
    }

    public NetworkConfigStatus state(String state) {
      this.state = state;
      return this;
    }

    public String getMessage() {
      return message;
    }

    public NetworkConfigStatus message(String message) {
      this.message = message;
      return this;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof NetworkConfigStatus n
          && Objects.equals(networkName, n.networkName)
          && Objects.equals(macAddress, n.macAddress)
          && Objects.equals(allocatedIPAddress, n.allocatedIPAddress)
          && Objects.equals(state, n.state)
          && Objects.equals(message, n.message);
    }

    @Override
    public int hashCode() {
      return Objects.hash(networkName, macAddress, allocatedIPAddress, state, message);
    }

    @Override
    public String toString() {
      return "{"
          + networkName
          + " "
          + macAddress
          + " -> "
          + allocatedIPAddress
          + " "
          + state
          + (message == null ? "" : " (" + message + ")")
          + "}";
    }
  }
}
