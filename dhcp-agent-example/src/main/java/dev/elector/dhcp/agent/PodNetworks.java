package dev.elector.dhcp.agent;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The interfaces Multus attached to this pod, from its {@code k8s.v1.cni.cncf.io/network-status}
 * annotation as the Downward API writes it to a file (a volume item with {@code fieldPath:
 * metadata.annotations}). The agent serves on the interface of its pool's network, whatever Multus
 * named it.
 */
final class PodNetworks {
  /** The annotation Multus writes after it attached the pod's networks. */
  static final String STATUS_ANNOTATION = "k8s.v1.cni.cncf.io/network-status";

  /** One network attached to the pod. */
  record Attachment(String network, String iface) {}

  private PodNetworks() {}

  /**
   * The interface of {@code network} ({@code NAMESPACE/NAME} of its NetworkAttachmentDefinition),
   * read from {@code annotationsFile}. Multus writes the annotation while the pod starts and the
   * kubelet refreshes the file a little later, so this reads again until the network shows up or
   * {@code wait} has passed.
   *
   * @throws IllegalStateException naming the file, the network, what was found and the fix
   */
  static String interfaceOf(
      Path annotationsFile, String network, Duration wait, LongSupplier nanoTime, Sleeper sleeper)
      throws InterruptedException {
    long deadline = nanoTime.getAsLong() + wait.toNanos();
    while (true) {
      Lookup lookup = lookUp(annotationsFile, network);
      if (lookup.iface().isPresent()) {
        return lookup.iface().get();
      }
      if (nanoTime.getAsLong() - deadline >= 0) {
        throw new IllegalStateException(
            lookup.problem() + " (after waiting " + wait.toSeconds() + " s)");
      }
      sleeper.sleep(Duration.ofMillis(500));
    }
  }

  /** Waits; a seam for tests. */
  @FunctionalInterface
  interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  /** Either the interface or why there is none yet. */
  record Lookup(Optional<String> iface, String problem) {}

  static Lookup lookUp(Path annotationsFile, String network) {
    String content;
    try {
      content = Files.readString(annotationsFile, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return missing(
          annotationsFile
              + " does not exist; mount the pod's annotations there with a"
              + " downwardAPI volume (fieldPath: metadata.annotations), or pass --nic IFACE");
    } catch (IOException e) {
      return missing("cannot read " + annotationsFile + ": " + e.getMessage());
    }
    Map<String, String> annotations;
    List<Attachment> attachments;
    try {
      annotations = parseDownwardApi(content);
      String status = annotations.get(STATUS_ANNOTATION);
      if (status == null) {
        return missing(
            "the pod has no "
                + STATUS_ANNOTATION
                + " annotation in "
                + annotationsFile
                + "; is Multus installed, and does the pod's k8s.v1.cni.cncf.io/networks annotation"
                + " select "
                + network
                + "?");
      }
      attachments = parseStatus(status);
    } catch (IllegalArgumentException e) {
      return missing("cannot read " + annotationsFile + ": " + e.getMessage());
    }
    for (Attachment a : attachments) {
      if (a.network().equals(network) && !a.iface().isEmpty()) {
        return new Lookup(Optional.of(a.iface()), "");
      }
    }
    List<String> seen = attachments.stream().map(a -> a.network() + " on " + a.iface()).toList();
    return missing(
        "network "
            + network
            + " is not attached to this pod (attached: "
            + seen
            + "); select it in the pod's k8s.v1.cni.cncf.io/networks annotation, or fix --network");
  }

  private static Lookup missing(String problem) {
    return new Lookup(Optional.empty(), problem);
  }

  /**
   * The attachments of a network-status annotation: a JSON array of objects with {@code name}
   * ({@code NAMESPACE/NAME}, or a bare name for the cluster's default network) and {@code
   * interface}.
   *
   * @throws IllegalArgumentException when it is not such an array
   */
  static List<Attachment> parseStatus(String json) {
    JsonElement root;
    try {
      root = JsonParser.parseString(json);
    } catch (JsonParseException e) {
      throw new IllegalArgumentException(STATUS_ANNOTATION + " is not JSON: " + e.getMessage(), e);
    }
    if (!(root instanceof JsonArray array)) {
      throw new IllegalArgumentException(STATUS_ANNOTATION + " is not a JSON array of networks");
    }
    List<Attachment> attachments = new ArrayList<>();
    for (JsonElement element : array) {
      if (element instanceof JsonObject entry) {
        attachments.add(new Attachment(text(entry, "name"), text(entry, "interface")));
      }
    }
    return attachments;
  }

  private static String text(JsonObject entry, String field) {
    JsonElement value = entry.get(field);
    return value != null && value.isJsonPrimitive() ? value.getAsString() : "";
  }

  /**
   * The Downward API's annotations file: one {@code key="value"} a line, the value quoted with Go's
   * escapes ({@code \"}, {@code \\}, {@code \n}, {@code \t}, {@code \xHH}, {@code \u005cuHHHH}).
   *
   * @throws IllegalArgumentException naming the line that is not of that form
   */
  static Map<String, String> parseDownwardApi(String content) {
    Map<String, String> values = new LinkedHashMap<>();
    int number = 0;
    for (String line : content.split("\n", -1)) {
      number++;
      if (line.isBlank()) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq <= 0 || line.length() < eq + 3 || line.charAt(eq + 1) != '"' || !line.endsWith("\"")) {
        throw new IllegalArgumentException("line " + number + " is not key=\"value\"");
      }
      values.put(line.substring(0, eq), unquote(line.substring(eq + 2, line.length() - 1), number));
    }
    return values;
  }

  private static String unquote(String quoted, int line) {
    StringBuilder out = new StringBuilder(quoted.length());
    for (int i = 0; i < quoted.length(); i++) {
      char c = quoted.charAt(i);
      if (c != '\\') {
        out.append(c);
        continue;
      }
      if (++i >= quoted.length()) {
        throw new IllegalArgumentException("line " + line + " ends inside an escape");
      }
      char e = quoted.charAt(i);
      switch (e) {
        case 'n' -> out.append('\n');
        case 't' -> out.append('\t');
        case 'r' -> out.append('\r');
        case 'a' -> out.append('\u0007');
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'v' -> out.append('\u000b');
        case '\\', '"', '\'' -> out.append(e);
        case 'x', 'u', 'U' -> {
          int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          String hex = quoted.substring(i + 1, Math.min(quoted.length(), i + 1 + digits));
          int code =
              hex.length() == digits && hex.chars().allMatch(h -> Character.digit(h, 16) >= 0)
                  ? (int) Long.parseLong(hex, 16)
                  : -1;
          if (!Character.isValidCodePoint(code)) {
            throw new IllegalArgumentException("line " + line + " has a bad \\" + e + " escape");
          }
          out.appendCodePoint(code);
          i += digits;
        }
        default ->
            throw new IllegalArgumentException("line " + line + " has an unknown escape \\" + e);
      }
    }
    return out.toString();
  }
}
