package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;

/**
 * What every object the API server returns starts with: {@code apiVersion}, {@code kind} and {@code
 * metadata}, an object's or a list's.
 *
 * @param <M> the metadata type
 */
public abstract class ApiObject<M> {
  @SerializedName("apiVersion")
  private String apiVersion = NetworkApis.API_VERSION;

  @SerializedName("kind")
  private String kind;

  @SerializedName("metadata")
  private M metadata;

  ApiObject(String kind) {
    this.kind = kind;
  }

  public String getApiVersion() {
    return apiVersion;
  }

  public String getKind() {
    return kind;
  }

  public M getMetadata() {
    return metadata;
  }

  void setMetadata(M metadata) {
    this.metadata = metadata;
  }
}
