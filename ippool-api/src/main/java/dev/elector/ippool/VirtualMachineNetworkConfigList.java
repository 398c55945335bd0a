package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.openapi.models.V1ListMeta;
import java.util.ArrayList;
import java.util.List;

/** A list of {@link VirtualMachineNetworkConfig}s, as the API server returns it. */
public final class VirtualMachineNetworkConfigList implements KubernetesListObject {
  @SerializedName("apiVersion")
  private String apiVersion = NetworkApis.API_VERSION;

  @SerializedName("kind")
  private String kind = "VirtualMachineNetworkConfigList";

  @SerializedName("metadata")
  private V1ListMeta metadata;

  @SerializedName("items")
  private List<VirtualMachineNetworkConfig> items = new ArrayList<>();

  @Override
  public String getApiVersion() {
    return apiVersion;
  }

  @Override
  public String getKind() {
    return kind;
  }

  @Override
  public V1ListMeta getMetadata() {
    return metadata;
  }

  @Override
  public List<VirtualMachineNetworkConfig> getItems() {
    return items;
  }
}
