package dev.elector.k8s.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.elector.kube.internal.ConfigMapShape;
import dev.elector.lock.LeaderRecord;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The annotation's JSON as client-go's ConfigMapLock wrote it. */
class ConfigMapShapeTest {
  private static final String ANNOTATION = ConfigMapShape.ANNOTATION;
  private final ConfigMapShape format =
      new ConfigMapShape(new KubeHttp(new ApiClient(), Duration.ofSeconds(1)));

  private static Map<String, Object> withAnnotation(String value) {
    return Map.of("metadata", Map.of("annotations", Map.of(ANNOTATION, value)));
  }

  @Test
  void readsClientGoJsonWithSecondPrecisionTimes() {
    LeaderRecord record =
        format
            .parse(
                withAnnotation(
                    "{\"holderIdentity\":\"go\","
                        + "\"leaseDurationSeconds\":15,\"acquireTime\":\"2026-12-02T12:00:00Z\","
                        + "\"renewTime\":\"2026-12-02T12:00:10Z\",\"leaderTransitions\":2}"))
            .record();

    assertEquals(
        new LeaderRecord(
            "go",
            Duration.ofSeconds(15),
            Instant.parse("2026-12-02T12:00:00Z"),
            Instant.parse("2026-12-02T12:00:10Z"),
            2),
        record);
  }

  @Test
  void patchTouchesOnlyTheAnnotation() {
    JsonObject patch =
        GsonValues.toTree(
                format.patchBody(new LeaderRecord("me", Duration.ofSeconds(3), null, null, 1)))
            .getAsJsonObject();

    assertEquals(1, patch.size());
    JsonObject metadata = patch.getAsJsonObject("metadata");
    assertEquals(1, metadata.size());
    JsonObject annotations = metadata.getAsJsonObject("annotations");
    assertEquals(1, annotations.size());
    assertEquals(
        JsonParser.parseString(
            "{\"holderIdentity\":\"me\",\"leaseDurationSeconds\":3," + "\"leaderTransitions\":1}"),
        JsonParser.parseString(annotations.get(ANNOTATION).getAsString()));
  }

  @Test
  void configMapWithoutTheAnnotationIsFree() {
    assertEquals(
        new LeaderRecord("", null, null, null, 0),
        format
            .parse(GsonValues.parseObject("{\"metadata\":{\"name\":\"x\"},\"data\":{}}"))
            .record());
  }

  @Test
  void garbledAnnotationIsMalformed() {
    assertTrue(format.parse(withAnnotation("{not json")).problem().contains("not valid JSON"));
    assertTrue(format.parse(withAnnotation("[1,2]")).problem().contains("not a JSON object"));
    assertTrue(
        format
            .parse(withAnnotation("{\"leaderTransitions\":\"many\"}"))
            .problem()
            .contains("leaderTransitions"));
  }
}
