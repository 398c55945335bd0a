package dev.elector.kube.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Lists and watches one collection path through an {@link ApiTransport}, optionally one name. */
final class CollectionTransport implements ListWatchLoop.Transport {
  private final ApiTransport http;
  private final String collectionPath;
  private final Map<String, String> selector;

  /**
   * @param nameSelector the one object's name to select, or null for the whole collection
   */
  CollectionTransport(ApiTransport http, String collectionPath, @Nullable String nameSelector) {
    this.http = http;
    this.collectionPath = collectionPath;
    this.selector =
        nameSelector == null ? Map.of() : Map.of("fieldSelector", "metadata.name=" + nameSelector);
  }

  @Override
  public Reply list() throws Exception {
    return http.send("GET", collectionPath, selector, null, null);
  }

  @Override
  public WatchStream watch(String resourceVersion, long timeoutSeconds) {
    Map<String, String> query = new LinkedHashMap<>(selector);
    query.put("watch", "true");
    query.put("resourceVersion", resourceVersion);
    query.put("allowWatchBookmarks", "true");
    query.put("timeoutSeconds", Long.toString(timeoutSeconds));
    return http.stream(collectionPath, query, Duration.ofSeconds(timeoutSeconds + 30));
  }
}
