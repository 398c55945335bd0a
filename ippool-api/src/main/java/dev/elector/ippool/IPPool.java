package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.Objects;

/** An IPPool: the DHCPv4 configuration of one VM network and the addresses allocated in it. */
public final class IPPool implements KubernetesObject {
  /** The kind, as in the CRD. */
  public static final String KIND = "IPPool";

  @SerializedName("apiVersion")
  private String apiVersion = NetworkApis.API_VERSION;

  @SerializedName("kind")
  private String kind = KIND;

  @SerializedName("metadata")
  private V1ObjectMeta metadata;

  @SerializedName("spec")
  private IPPoolSpec spec;

  @SerializedName("status")
  private IPPoolStatus status;

  @Override
  public String getApiVersion() {
    return apiVersion;
  }

  public IPPool apiVersion(String apiVersion) {
    this.apiVersion = apiVersion;
    return this;
  }

  @Override
  public String getKind() {
    return kind;
  }

  public IPPool kind(String kind) {
    this.kind = kind;
    return this;
  }

  @Override
  public V1ObjectMeta getMetadata() {
    return metadata;
  }

  public IPPool metadata(V1ObjectMeta metadata) {
    this.metadata = metadata;
    return this;
  }

  public IPPoolSpec getSpec() {
    return spec;
  }

  public IPPool spec(IPPoolSpec spec) {
    this.spec = spec;
    return this;
  }

  public IPPoolStatus getStatus() {
    return status;
  }

  public IPPool status(IPPoolStatus status) {
    this.status = status;
    return this;
  }

  /** "namespace/name" of this pool, the form {@link IPPoolRef} parses. */
  public String ref() {
    return metadata == null ? "?" : metadata.getNamespace() + "/" + metadata.getName();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IPPool p
        && Objects.equals(apiVersion, p.apiVersion)
        && Objects.equals(kind, p.kind)
        && Objects.equals(metadata, p.metadata)
        && Objects.equals(spec, p.spec)
        && Objects.equals(status, p.status);
  }

  @Override
  public int hashCode() {
    return Objects.hash(apiVersion, kind, metadata, spec, status);
  }

  @Override
  public String toString() {
    return "IPPool " + ref() + " spec=" + spec + " status=" + status;
  }
}
