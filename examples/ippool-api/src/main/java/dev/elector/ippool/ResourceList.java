package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ListMeta;
import java.util.ArrayList;
import java.util.List;

/**
 * A list of custom resources as the API server returns it ({@code apiVersion}, {@code kind}, list
 * {@code metadata} and {@code items}). Each resource's list is a final subclass naming the item
 * type, so client-java's Gson reads {@code items} as that type.
 *
 * @param <T> the listed resource
 */
public abstract class ResourceList<T extends KubernetesObject> extends ApiObject<V1ListMeta>
    implements KubernetesListObject {
  @SerializedName("items")
  private List<T> items = new ArrayList<>();

  ResourceList(String kind) {
    super(kind);
  }

  @Override
  public List<T> getItems() {
    return items;
  }
}
