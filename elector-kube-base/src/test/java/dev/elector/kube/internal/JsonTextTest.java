package dev.elector.kube.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTextTest {

  @Test
  void writesEveryPlainValueWithNullsKept() {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("s", "a\"b\\c\n\u0001");
    map.put("n", 15L);
    map.put("b", true);
    map.put("gone", null);
    map.put("list", Arrays.asList(1, "x", null));
    map.put("inner", Map.of("k", "v"));

    assertEquals(
        "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"n\":15,\"b\":true,\"gone\":null,"
            + "\"list\":[1,\"x\",null],\"inner\":{\"k\":\"v\"}}",
        JsonText.write(map));
  }

  @Test
  void rejectsWhatJsonCannotHold() {
    assertThrows(IllegalArgumentException.class, () -> JsonText.write(Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> JsonText.write(new Object()));
    assertThrows(IllegalArgumentException.class, () -> JsonText.write(Map.of(1, "x")));
    assertEquals("[]", JsonText.write(List.of()));
  }
}
