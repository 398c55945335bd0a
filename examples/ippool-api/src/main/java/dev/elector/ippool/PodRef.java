package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import java.util.Objects;

/**
 * The agent pod that serves a pool ({@code status.agentPodRef}, upstream's field): namespace, name,
 * uid and image, written by the agent when it starts leading.
 */
public final class PodRef {
  @SerializedName("namespace")
  private String namespace;

  @SerializedName("name")
  private String name;

  @SerializedName("uid")
  private String uid;

  @SerializedName("image")
  private String image;

  public String getNamespace() {
    return namespace;
  }

  public PodRef namespace(String namespace) {
    this.namespace = namespace;
    return this;
  }

  public String getName() {
    return name;
  }

  public PodRef name(String name) {
    this.name = name;
    return this;
  }

  public String getUid() {
    return uid;
  }

  public PodRef uid(String uid) {
    this.uid = uid;
    return this;
  }

  public String getImage() {
    return image;
  }

  public PodRef image(String image) {
    this.image = image;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PodRef r
        && Objects.equals(namespace, r.namespace)
        && Objects.equals(name, r.name)
        && Objects.equals(uid, r.uid)
        && Objects.equals(image, r.image);
  }

  @Override
  public int hashCode() {
    return Objects.hash(namespace, name, uid, image);
  }

  @Override
  public String toString() {
    return namespace + "/" + name + " (uid " + uid + ", image " + image + ")";
  }
}
