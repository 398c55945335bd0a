package dev.elector.apisurface;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** What {@link ApiSurface} reads from the classes of the {@code fixture} package. */
class ApiSurfaceModelTest {

  private static final String FIXTURE = "dev.elector.apisurface.fixture.";

  private static ApiSurface fixture() throws URISyntaxException {
    Path testClasses =
        Paths.get(
            ApiSurfaceModelTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return ApiSurface.read(testClasses, ApiSurfaceModelTest.class.getClassLoader(), FIXTURE);
  }

  @Test
  void listsPublicAndProtectedTypesAndMembersOutsideInternalPackages() throws Exception {
    assertEquals(
        """
        dev.elector.apisurface.fixture.Api<T extends java.lang.Comparable<T>>: public class \
        extends dev.elector.apisurface.fixture.Base \
        implements java.util.function.Supplier<java.util.List<T>>
          protected int count
          protected void useHidden(dev.elector.apisurface.fixture.internal.Hidden[])
          public <R> R map(java.util.List<? super T>, R) throws java.io.IOException
          public Api(java.lang.String, int...)
          public int inherited()
          public java.util.List<T> get()
          public java.util.List<dev.elector.apisurface.fixture.internal.Hidden> leak()
          public static final java.lang.String NAME
        dev.elector.apisurface.fixture.Api$Nested: public static final class
          public Nested()
        """,
        fixture().text());
  }

  @Test
  void findsEveryInternalTypeInAPublicSignature() throws Exception {
    List<String> leaks =
        fixture().leaks().stream()
            .map(l -> l.element() + " -> " + l.internalType())
            .sorted()
            .collect(Collectors.toList());
    assertEquals(
        List.of(
            "dev.elector.apisurface.fixture.Api#leak() -> "
                + "dev.elector.apisurface.fixture.internal.Hidden",
            "dev.elector.apisurface.fixture.Api#useHidden("
                + "dev.elector.apisurface.fixture.internal.Hidden[]) -> "
                + "dev.elector.apisurface.fixture.internal.Hidden"),
        leaks);
  }

  @Test
  void aMemberIsKeyedByItsType() {
    Set<String> entries =
        ApiSurface.entries(
            "# comment\na.B<T>: public class\n  public void run()\n\na.C: public enum\n");
    assertEquals(
        Set.of("a.B<T>: public class", "a.B :: public void run()", "a.C: public enum"), entries);
  }

  @Test
  void internalIsAWholePackageNamePart() {
    assertTrue(ApiSurface.isInternalPackage("dev.elector.kube.internal"));
    assertTrue(ApiSurface.isInternalPackage("dev.elector.internal.json"));
    assertFalse(ApiSurface.isInternalPackage("dev.elector.internals"));
    assertFalse(ApiSurface.isInternalPackage("dev.elector.kube"));
  }
}
