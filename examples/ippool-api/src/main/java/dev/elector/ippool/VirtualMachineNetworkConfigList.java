package dev.elector.ippool;

/** A list of {@link VirtualMachineNetworkConfig}s, as the API server returns it. */
public final class VirtualMachineNetworkConfigList
    extends ResourceList<VirtualMachineNetworkConfig> {
  /** An empty list. */
  public VirtualMachineNetworkConfigList() {
    super("VirtualMachineNetworkConfigList");
  }
}
