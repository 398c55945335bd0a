package dev.elector.fabric8;

import dev.elector.kube.internal.ListWatchLoop;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Lists and watches one collection path through fabric8, with an optional field selector. */
final class Fabric8Transport implements ListWatchLoop.Transport {
  private final Fabric8Http http;
  private final String collectionPath;
  private final String selector;

  /**
   * @param nameSelector the one object's name to select, or null for the whole collection
   */
  Fabric8Transport(Fabric8Http http, String collectionPath, String nameSelector) {
    this.http = http;
    this.collectionPath = collectionPath;
    this.selector =
        nameSelector == null ? "" : "fieldSelector=" + encode("metadata.name=" + nameSelector);
  }

  @Override
  public ListWatchLoop.Reply list() throws Exception {
    return http.send("GET", collectionPath, selector, null, null);
  }

  @Override
  public ListWatchLoop.WatchStream watch(String resourceVersion, long timeoutSeconds) {
    String query =
        (selector.isEmpty() ? "" : selector + "&")
            + "watch=true&resourceVersion="
            + encode(resourceVersion)
            + "&allowWatchBookmarks=true&timeoutSeconds="
            + timeoutSeconds;
    return http.stream(collectionPath, query, Duration.ofSeconds(timeoutSeconds + 30));
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
