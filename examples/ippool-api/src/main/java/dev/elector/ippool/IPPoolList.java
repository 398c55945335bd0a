package dev.elector.ippool;

/** A list of {@link IPPool}s, as the API server returns it. */
public final class IPPoolList extends ResourceList<IPPool> {
  /** An empty list. */
  public IPPoolList() {
    super("IPPoolList");
  }
}
