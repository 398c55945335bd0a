package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import java.util.Objects;

/** A namespaced reference to another object, such as a pool's agent Deployment. */
public final class ObjectRef {
  @SerializedName("namespace")
  private String namespace;

  @SerializedName("name")
  private String name;

  public String getNamespace() {
    return namespace;
  }

  public ObjectRef namespace(String namespace) {
    this.namespace = namespace;
    return this;
  }

  public String getName() {
    return name;
  }

  public ObjectRef name(String name) {
    this.name = name;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ObjectRef r
        && Objects.equals(namespace, r.namespace)
        && Objects.equals(name, r.name);
  }

  @Override
  public int hashCode() {
    return Objects.hash(namespace, name);
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
