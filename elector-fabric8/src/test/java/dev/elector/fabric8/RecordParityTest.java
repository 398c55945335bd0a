package dev.elector.fabric8;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.elector.configmap.ConfigMapLock;
import dev.elector.k8s.KubeObjectFormat;
import dev.elector.k8s.RecordJson;
import dev.elector.kube.internal.ConfigMapShape;
import dev.elector.kube.internal.JsonText;
import dev.elector.kube.internal.LeaseShape;
import dev.elector.kube.internal.ListWatchLoop;
import dev.elector.kube.internal.RecordFields;
import dev.elector.lock.LeaderRecord;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The fabric8 locks read and write records exactly as the client-java locks do: the same records
 * and the same problems for well-formed, odd and malformed input, and the same JSON written.
 */
class RecordParityTest {
  private static final KubernetesSerialization JACKSON = new KubernetesSerialization();
  private static final List<String> SPECS =
      List.of(
          "{}",
          "{\"holderIdentity\":\"go\",\"leaseDurationSeconds\":15,"
              + "\"acquireTime\":\"2026-12-02T12:00:00.123456Z\","
              + "\"renewTime\":\"2026-12-02T12:00:10Z\",\"leaseTransitions\":2}",
          "{\"holderIdentity\":null,\"leaseDurationSeconds\":null,\"leaseTransitions\":null}",
          "{\"holderIdentity\":\"x\",\"renewTime\":\"2026-12-02 12:00:10\",\"acquireTime\":\"soon\"}",
          "{\"holderIdentity\":\"x\",\"leaseDurationSeconds\":15.0,\"leaseTransitions\":3.0}",
          "{\"holderIdentity\":\"x\",\"leaseDurationSeconds\":-5,\"renewTime\":7}",
          "{\"holderIdentity\":{\"a\":1}}",
          "{\"holderIdentity\":5}",
          "{\"leaseDurationSeconds\":\"15s\"}",
          "{\"leaseDurationSeconds\":1.5}",
          "{\"leaseDurationSeconds\":1e30}",
          "{\"leaseTransitions\":-1}",
          "{\"leaseTransitions\":true}");

  @Test
  void leaseSpecsReadTheSameAsWithClientJava() {
    LeaseShape shape = new LeaseShape();
    for (String spec : SPECS) {
      KubeObjectFormat.Parsed clientJava =
          RecordJson.read(
              JsonParser.parseString(spec).getAsJsonObject(), "leaseTransitions", "spec");
      RecordFields.Parsed fabric8 = shape.parse(object("{\"spec\":" + spec + "}"));

      assertEquals(clientJava.record(), fabric8.record(), spec);
      assertEquals(clientJava.problem(), fabric8.problem(), spec);
    }
  }

  @Test
  void aLeaseWithoutSpecIsFreeAndOneWithAWrongSpecIsMalformed() {
    LeaseShape shape = new LeaseShape();

    assertEquals(new LeaderRecord("", null, null, null, 0), shape.parse(object("{}")).record());
    assertNotNull(shape.parse(object("{\"spec\":[1]}")).problem());
  }

  @Test
  void configMapAnnotationsReadTheSameAsWithClientJava() {
    ConfigMapShape shape = new ConfigMapShape(RecordParityTest::parse);
    for (String spec : SPECS) {
      String json = spec.replace("leaseTransitions", "leaderTransitions");
      KubeObjectFormat.Parsed clientJava =
          RecordJson.read(
              JsonParser.parseString(json).getAsJsonObject(),
              "leaderTransitions",
              "annotation " + ConfigMapLock.ANNOTATION);
      RecordFields.Parsed fabric8 = shape.parse(annotated(json));

      assertEquals(clientJava.record(), fabric8.record(), json);
      assertEquals(clientJava.problem(), fabric8.problem(), json);
    }
  }

  @Test
  void garbledOrMissingAnnotations() {
    ConfigMapShape shape = new ConfigMapShape(RecordParityTest::parse);

    assertEquals(
        "annotation " + ConfigMapLock.ANNOTATION + " is not valid JSON: \"{not json\"",
        shape.parse(annotated("{not json")).problem());
    assertEquals(
        "annotation " + ConfigMapLock.ANNOTATION + " is not a JSON object: \"[1]\"",
        shape.parse(annotated("[1]")).problem());
    assertEquals(
        new LeaderRecord("", null, null, null, 0),
        shape.parse(object("{\"metadata\":{\"annotations\":{\"other\":\"x\"}}}")).record());
    assertNull(shape.parse(object("{\"metadata\":{}}")).problem());
  }

  @Test
  void writesTheSameJsonAsClientJava() {
    Instant t = Instant.parse("2026-12-02T12:00:00.123456789Z");
    for (LeaderRecord record :
        List.of(
            new LeaderRecord("me", Duration.ofMillis(3500), t, t, 4),
            new LeaderRecord("", null, null, null, 0))) {
      for (boolean nulls : new boolean[] {false, true}) {
        JsonObject clientJava = RecordJson.write(record, "leaseTransitions", nulls);
        JsonElement fabric8 =
            JsonParser.parseString(
                JsonText.write(RecordFields.write(record, "leaseTransitions", nulls)));

        assertEquals(clientJava, fabric8, record + " explicitNulls=" + nulls);
      }
    }
  }

  @Test
  void aRenewalPatchHoldsOnlyTheRecordsFields() {
    LeaderRecord record = new LeaderRecord("me", Duration.ofSeconds(3), null, null, 1);

    assertEquals(
        JsonParser.parseString(
            "{\"spec\":{\"holderIdentity\":\"me\","
                + "\"leaseDurationSeconds\":3,\"acquireTime\":null,\"renewTime\":null,"
                + "\"leaseTransitions\":1}}"),
        JsonParser.parseString(JsonText.write(new LeaseShape().patchBody(record))));
    assertEquals(
        JsonParser.parseString(
            "{\"metadata\":{\"annotations\":{\""
                + ConfigMapLock.ANNOTATION
                + "\":\"{\\\"holderIdentity\\\":\\\"me\\\","
                + "\\\"leaseDurationSeconds\\\":3,\\\"leaderTransitions\\\":1}\"}}}"),
        JsonParser.parseString(
            JsonText.write(new ConfigMapShape(RecordParityTest::parse).patchBody(record))));
  }

  /** As the lock parses: fabric8's own JSON mapper, into plain values. */
  private static Object parse(String json) {
    return JACKSON.unmarshal(json, Object.class);
  }

  private static Map<String, Object> object(String json) {
    return ListWatchLoop.asObject(JACKSON.unmarshal(json, Map.class));
  }

  private static Map<String, Object> annotated(String value) {
    return Map.of("metadata", Map.of("annotations", Map.of(ConfigMapLock.ANNOTATION, value)));
  }
}
