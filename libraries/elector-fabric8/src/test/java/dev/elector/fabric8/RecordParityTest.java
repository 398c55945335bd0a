package dev.elector.fabric8;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import dev.elector.configmap.ConfigMapLock;
import dev.elector.kube.internal.ConfigMapShape;
import dev.elector.kube.internal.JsonCodec;
import dev.elector.kube.internal.LeaseShape;
import dev.elector.kube.internal.ObjectFields;
import dev.elector.kube.internal.RecordFields;
import dev.elector.lock.LeaderRecord;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * The fabric8 locks read records exactly as the client-java locks do: both use the shapes of
 * elector-kube-base, so what could differ is only the values each client's JSON parser gives
 * (Jackson's Integer, Long and Double here; Gson's numbers there). The same records and the same
 * problems for well-formed, odd and malformed input, and the JSON written.
 */
class RecordParityTest {
  private static final KubernetesSerialization JACKSON = new KubernetesSerialization();

  /** JSON as the fabric8 locks read and write it: the client's own Jackson mapper. */
  private static final JsonCodec FABRIC8 =
      new JsonCodec() {
        @Override
        public Object parseJson(String text) {
          return parse(text);
        }

        @Override
        public String writeJson(Object value) {
          return JACKSON.asJson(value);
        }
      };

  /** JSON as the client-java locks read it: Gson, numbers as BigDecimal. */
  private static final JsonCodec GSON =
      new JsonCodec() {
        @Override
        public Object parseJson(String text) {
          return gsonValue(text);
        }

        @Override
        public String writeJson(Object value) {
          throw new AssertionError("only read here");
        }
      };

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
      RecordFields.Parsed clientJava = shape.parse(gson("{\"spec\":" + spec + "}"));
      RecordFields.Parsed fabric8 = shape.parse(object("{\"spec\":" + spec + "}"));

      assertEquals(clientJava.record(), fabric8.record(), spec);
      assertEquals(clientJava.problem(), fabric8.problem(), spec);
    }
  }

  @Test
  void aLeaseUnderCoordinatedLeaderElectionNamesItsStrategyWithEitherClient() {
    LeaseShape shape = new LeaseShape();
    // as the coordinated leader election controller leaves a control-plane component's Lease
    String recorded =
        "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\","
            + "\"metadata\":{\"name\":\"kube-controller-manager\",\"namespace\":\"kube-system\","
            + "\"resourceVersion\":\"812\"},"
            + "\"spec\":{\"holderIdentity\":\"cp-1_0f5a\",\"leaseDurationSeconds\":15,"
            + "\"acquireTime\":\"2026-12-02T12:00:00.000000Z\","
            + "\"renewTime\":\"2026-12-02T12:00:10.000000Z\",\"leaseTransitions\":0,"
            + "\"strategy\":\"OldestEmulationVersion\",\"preferredHolder\":\"cp-2_91c3\"}}";
    for (String json : List.of(recorded, recorded.replace("\"OldestEmulationVersion\"", "3"))) {
      LeaderRecord clientJava = shape.parse(gson(json)).record();
      LeaderRecord fabric8 = Objects.requireNonNull(shape.parse(object(json)).record(), json);

      assertEquals(clientJava, fabric8, json);
      assertNotNull(fabric8.strategy(), json);
      assertEquals("cp-1_0f5a", fabric8.holderIdentity());
    }
    assertEquals(
        "OldestEmulationVersion",
        Objects.requireNonNull(shape.parse(object(recorded)).record()).strategy());
  }

  @Test
  void aLeaseWithoutSpecIsFreeAndOneWithAWrongSpecIsMalformed() {
    LeaseShape shape = new LeaseShape();

    assertEquals(new LeaderRecord("", null, null, null, 0), shape.parse(object("{}")).record());
    assertNotNull(shape.parse(object("{\"spec\":[1]}")).problem());
  }

  @Test
  void configMapAnnotationsReadTheSameAsWithClientJava() {
    ConfigMapShape shape = new ConfigMapShape(FABRIC8);
    for (String spec : SPECS) {
      String json = spec.replace("leaseTransitions", "leaderTransitions");
      RecordFields.Parsed clientJava = new ConfigMapShape(GSON).parse(annotated(json));
      RecordFields.Parsed fabric8 = shape.parse(annotated(json));

      assertEquals(clientJava.record(), fabric8.record(), json);
      assertEquals(clientJava.problem(), fabric8.problem(), json);
    }
  }

  @Test
  void garbledOrMissingAnnotations() {
    ConfigMapShape shape = new ConfigMapShape(FABRIC8);

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
  void writesExplicitNullsOnlyWhenAsked() {
    Instant t = Instant.parse("2026-12-02T12:00:00.123456789Z");
    LeaderRecord empty = new LeaderRecord("", null, null, null, 0);

    assertEquals(
        JsonParser.parseString(
            "{\"holderIdentity\":\"me\",\"leaseDurationSeconds\":4,"
                + "\"acquireTime\":\"2026-12-02T12:00:00.123456Z\","
                + "\"renewTime\":\"2026-12-02T12:00:00.123456Z\",\"leaseTransitions\":4}"),
        JsonParser.parseString(
            JACKSON.asJson(
                RecordFields.write(
                    new LeaderRecord("me", Duration.ofMillis(3500), t, t, 4),
                    "leaseTransitions",
                    true))));
    assertEquals(
        JsonParser.parseString("{\"holderIdentity\":\"\",\"leaseTransitions\":0}"),
        JsonParser.parseString(
            JACKSON.asJson(RecordFields.write(empty, "leaseTransitions", false))));
    assertEquals(
        JsonParser.parseString(
            "{\"holderIdentity\":\"\",\"leaseDurationSeconds\":null,\"acquireTime\":null,"
                + "\"renewTime\":null,\"leaseTransitions\":0}"),
        JsonParser.parseString(
            JACKSON.asJson(RecordFields.write(empty, "leaseTransitions", true))));
  }

  @Test
  void aRenewalPatchHoldsOnlyTheRecordsFields() {
    LeaderRecord record = new LeaderRecord("me", Duration.ofSeconds(3), null, null, 1);

    assertEquals(
        JsonParser.parseString(
            "{\"spec\":{\"holderIdentity\":\"me\","
                + "\"leaseDurationSeconds\":3,\"acquireTime\":null,\"renewTime\":null,"
                + "\"leaseTransitions\":1}}"),
        JsonParser.parseString(JACKSON.asJson(new LeaseShape().patchBody(record))));
    assertEquals(
        JsonParser.parseString(
            "{\"metadata\":{\"annotations\":{\""
                + ConfigMapLock.ANNOTATION
                + "\":\"{\\\"holderIdentity\\\":\\\"me\\\","
                + "\\\"leaseDurationSeconds\\\":3,\\\"leaderTransitions\\\":1}\"}}}"),
        JsonParser.parseString(JACKSON.asJson(new ConfigMapShape(FABRIC8).patchBody(record))));
  }

  /** As the lock parses: fabric8's own JSON mapper, into plain values. */
  private static Object parse(String json) {
    return JACKSON.unmarshal(json, Object.class);
  }

  /** As client-java's lock parses: Gson, numbers as BigDecimal. */
  private static Map<String, Object> gson(String json) {
    return ObjectFields.asObject(gsonValue(json));
  }

  private static Object gsonValue(String json) {
    return plain(JsonParser.parseString(json));
  }

  private static Object plain(JsonElement element) {
    if (element.isJsonNull()) {
      return null;
    }
    if (element.isJsonObject()) {
      Map<String, Object> map = new LinkedHashMap<>();
      element.getAsJsonObject().entrySet().forEach(e -> map.put(e.getKey(), plain(e.getValue())));
      return map;
    }
    if (element.isJsonArray()) {
      List<Object> list = new ArrayList<>();
      element.getAsJsonArray().forEach(item -> list.add(plain(item)));
      return list;
    }
    if (element.getAsJsonPrimitive().isNumber()) {
      return new BigDecimal(element.getAsString());
    }
    return element.getAsJsonPrimitive().isBoolean()
        ? element.getAsBoolean()
        : element.getAsString();
  }

  private static Map<String, Object> object(String json) {
    return ObjectFields.asObject(JACKSON.unmarshal(json, Map.class));
  }

  private static Map<String, Object> annotated(String value) {
    return Map.of("metadata", Map.of("annotations", Map.of(ConfigMapLock.ANNOTATION, value)));
  }
}
