package dev.elector.configmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.elector.lock.LeaderRecord;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The annotation's JSON as client-go's ConfigMapLock wrote it. */
class ConfigMapFormatTest {
  private final ConfigMapFormat format = new ConfigMapFormat();

  private static JsonObject withAnnotation(String value) {
    JsonObject annotations = new JsonObject();
    annotations.addProperty(ConfigMapLock.ANNOTATION, value);
    JsonObject metadata = new JsonObject();
    metadata.add("annotations", annotations);
    JsonObject object = new JsonObject();
    object.add("metadata", metadata);
    return object;
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
        format.patchBody(new LeaderRecord("me", Duration.ofSeconds(3), null, null, 1));

    assertEquals(1, patch.size());
    JsonObject metadata = patch.getAsJsonObject("metadata");
    assertEquals(1, metadata.size());
    JsonObject annotations = metadata.getAsJsonObject("annotations");
    assertEquals(1, annotations.size());
    assertEquals(
        JsonParser.parseString(
            "{\"holderIdentity\":\"me\",\"leaseDurationSeconds\":3," + "\"leaderTransitions\":1}"),
        JsonParser.parseString(annotations.get(ConfigMapLock.ANNOTATION).getAsString()));
  }

  @Test
  void configMapWithoutTheAnnotationIsFree() {
    assertEquals(
        new LeaderRecord("", null, null, null, 0),
        format
            .parse(
                JsonParser.parseString("{\"metadata\":{\"name\":\"x\"},\"data\":{}}")
                    .getAsJsonObject())
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
