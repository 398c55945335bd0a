package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.Objects;

/**
 * One of this group's custom resources as the API server stores it: {@code apiVersion}, {@code
 * kind}, {@code metadata}, {@code spec} and {@code status}. Each kind is a final subclass naming
 * its spec and status types, so client-java's Gson reads them as those types.
 *
 * @param <S> the spec
 * @param <T> the status
 * @param <R> the subclass, which the fluent setters return
 */
public abstract class CustomResource<S, T, R extends CustomResource<S, T, R>>
    extends ApiObject<V1ObjectMeta> implements KubernetesObject {
  @SerializedName("spec")
  private S spec;

  @SerializedName("status")
  private T status;

  CustomResource(String kind) {
    super(kind);
  }

  public R metadata(V1ObjectMeta metadata) {
    setMetadata(metadata);
    return self();
  }

  public S getSpec() {
    return spec;
  }

  public R spec(S spec) {
    this.spec = spec;
    return self();
  }

  public T getStatus() {
    return status;
  }

  public R status(T status) {
    this.status = status;
    return self();
  }

  /** "namespace/name" of this object, the form {@link IPPoolRef} parses; "?" without metadata. */
  public String ref() {
    V1ObjectMeta metadata = getMetadata();
    return metadata == null ? "?" : metadata.getNamespace() + "/" + metadata.getName();
  }

  @SuppressWarnings("unchecked") // R is the subclass, by the type's declaration
  private R self() {
    return (R) this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CustomResource<?, ?, ?> other
        && other.getClass() == getClass()
        && Objects.equals(getApiVersion(), other.getApiVersion())
        && Objects.equals(getKind(), other.getKind())
        && Objects.equals(getMetadata(), other.getMetadata())
        && Objects.equals(spec, other.spec)
        && Objects.equals(status, other.status);
  }

  @Override
  public int hashCode() {
    return Objects.hash(getApiVersion(), getKind(), getMetadata(), spec, status);
  }

  @Override
  public String toString() {
    return getKind() + " " + ref() + " spec=" + spec + " status=" + status;
  }
}
