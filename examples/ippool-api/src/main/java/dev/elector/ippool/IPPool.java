package dev.elector.ippool;

/** An IPPool: the DHCPv4 configuration of one VM network and the addresses allocated in it. */
public final class IPPool extends CustomResource<IPPoolSpec, IPPoolStatus, IPPool> {
  /** The kind, as in the CRD. */
  public static final String KIND = "IPPool";

  /** An IPPool with no metadata, spec or status yet. */
  public IPPool() {
    super(KIND);
  }
}
