package dev.elector.controller;

import com.google.gson.annotations.SerializedName;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.openapi.models.V1ListMeta;
import java.util.ArrayList;
import java.util.List;

/** A list of {@link VirtualMachine}s, as the API server returns it. */
final class VirtualMachineList implements KubernetesListObject {
  @SerializedName("apiVersion")
  private String apiVersion = VirtualMachine.API_VERSION;

  @SerializedName("kind")
  private String kind = "VirtualMachineList";

  @SerializedName("metadata")
  private V1ListMeta metadata;

  @SerializedName("items")
  private List<VirtualMachine> items = new ArrayList<>();

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
  public List<VirtualMachine> getItems() {
    return items;
  }
}
