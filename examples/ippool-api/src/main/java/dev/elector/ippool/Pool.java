package dev.elector.ippool;

import com.google.gson.annotations.SerializedName;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** The range of addresses a pool hands out, inclusive at both ends, minus its exclusions. */
public final class Pool {
  @SerializedName("start")
  private String start;

  @SerializedName("end")
  private String end;

  @SerializedName("exclude")
  private List<String> exclude;

  public String getStart() {
    return start;
  }

  public Pool start(String start) {
    this.start = start;
    return this;
  }

  public String getEnd() {
    return end;
  }

  public Pool end(String end) {
    this.end = end;
    return this;
  }

  /** Addresses in the range that are never handed out; never null. */
  public List<String> getExclude() {
    return exclude == null ? List.of() : exclude;
  }

  public Pool exclude(List<String> exclude) {
    this.exclude = exclude == null ? null : new ArrayList<>(exclude);
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Pool p
        && Objects.equals(start, p.start)
        && Objects.equals(end, p.end)
        && Objects.equals(getExclude(), p.getExclude());
  }

  @Override
  public int hashCode() {
    return Objects.hash(start, end, getExclude());
  }

  @Override
  public String toString() {
    return "{start=" + start + ", end=" + end + ", exclude=" + getExclude() + "}";
  }
}
