package dev.elector.k8s.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bodies as the client-java locks send them, written by Gson. */
class GsonValuesTest {
  @Test
  void writesTheNullsOfAMergePatchAndStringsAsTheyAre() {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("holderIdentity", "pod=<a>&'b'");
    spec.put("leaseDurationSeconds", 15L);
    spec.put("acquireTime", null);
    spec.put("list", Arrays.asList(true, null, new BigDecimal("1.50")));

    assertEquals(
        "{\"spec\":{\"holderIdentity\":\"pod=<a>&'b'\",\"leaseDurationSeconds\":15,"
            + "\"acquireTime\":null,\"list\":[true,null,1.50]}}",
        GsonValues.write(Map.of("spec", spec)));
  }

  @Test
  void readsBackWhatItWrites() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("a", null);
    body.put("b", Map.of("c", "\"quoted\"\n"));

    assertEquals(body, GsonValues.parseObject(GsonValues.write(body)));
  }
}
