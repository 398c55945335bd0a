package dev.elector.k8s.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import dev.elector.kube.internal.LeaseShape;
import dev.elector.kube.internal.RecordFields;
import dev.elector.lock.LeaderRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Lease body as client-go writes and reads it. */
class LeaseShapeTest {
  private final LeaseShape format = new LeaseShape();
  private static final Instant T = Instant.parse("2026-12-02T12:00:00.5Z");

  /** An object as client-java's transport reads it. */
  private static Map<String, Object> json(String text) {
    return GsonValues.parseObject(text);
  }

  private static JsonElement tree(String text) {
    return JsonParser.parseString(text);
  }

  @Test
  void createBodyHasKindApiVersionAndClientGoFields() {
    Map<String, Object> body =
        format.createBody("ns", "lock", new LeaderRecord("me", Duration.ofMillis(2500), T, T, 3));

    assertEquals(
        tree(
            "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\","
                + "\"metadata\":{\"name\":\"lock\",\"namespace\":\"ns\"},\"spec\":{\"holderIdentity\":"
                + "\"me\",\"leaseDurationSeconds\":3,\"acquireTime\":\"2026-12-02T12:00:00.500000Z\","
                + "\"renewTime\":\"2026-12-02T12:00:00.500000Z\",\"leaseTransitions\":3}}"),
        GsonValues.toTree(body));
  }

  @Test
  void patchRemovesFieldsTheRecordLacks() {
    Map<String, Object> patch = format.patchBody(new LeaderRecord("", null, null, T, 1));

    assertEquals(
        tree(
            "{\"spec\":{\"holderIdentity\":\"\",\"leaseDurationSeconds\":null,"
                + "\"acquireTime\":null,\"renewTime\":\"2026-12-02T12:00:00.500000Z\","
                + "\"leaseTransitions\":1}}"),
        GsonValues.toTree(patch));
  }

  @Test
  void readsAClientGoLease() {
    RecordFields.Parsed parsed =
        format.parse(
            json(
                "{\"spec\":{\"holderIdentity\":\"go\","
                    + "\"leaseDurationSeconds\":15,\"acquireTime\":\"2026-12-02T12:00:00.500000Z\","
                    + "\"renewTime\":\"2026-12-02T12:00:00.500000Z\",\"leaseTransitions\":9}}"));

    assertEquals(new LeaderRecord("go", Duration.ofSeconds(15), T, T, 9), parsed.record());
  }

  @Test
  void emptyLeaseIsFreeAndNonPositiveDurationsPassThrough() {
    assertEquals(new LeaderRecord("", null, null, null, 0), format.parse(json("{}")).record());
    assertEquals(
        Duration.ofSeconds(-5),
        format
            .parse(json("{\"spec\":{\"holderIdentity\":\"x\",\"leaseDurationSeconds\":-5}}"))
            .record()
            .leaseDuration());
    assertEquals(
        Duration.ZERO,
        format.parse(json("{\"spec\":{\"leaseDurationSeconds\":0}}")).record().leaseDuration());
  }

  @Test
  void oddTimesAreDroppedNotFatal() {
    LeaderRecord record =
        format
            .parse(
                json(
                    "{\"spec\":{\"holderIdentity\":\"x\","
                        + "\"renewTime\":\"last tuesday\",\"acquireTime\":42}}"))
            .record();

    assertNull(record.renewTime());
    assertNull(record.acquireTime());
  }

  @Test
  void nonsenseFieldsMakeItMalformed() {
    assertTrue(
        format
            .parse(json("{\"spec\":{\"holderIdentity\":{\"a\":1}}}"))
            .problem()
            .contains("spec.holderIdentity"));
    assertTrue(
        format
            .parse(json("{\"spec\":{\"leaseDurationSeconds\":\"15s\"}}"))
            .problem()
            .contains("spec.leaseDurationSeconds"));
    assertTrue(
        format
            .parse(json("{\"spec\":{\"leaseDurationSeconds\":1.5}}"))
            .problem()
            .contains("spec.leaseDurationSeconds"));
    assertTrue(
        format
            .parse(json("{\"spec\":{\"leaseTransitions\":-1}}"))
            .problem()
            .contains("spec.leaseTransitions"));
    assertTrue(format.parse(json("{\"spec\":[1]}")).problem().contains("spec"));
  }
}
