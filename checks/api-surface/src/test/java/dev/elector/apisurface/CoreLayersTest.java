package dev.elector.apisurface;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The layers of elector-core, read from its class files: a class names types of its own package and
 * of the packages below it, never of one above (CONTRIBUTING.md, "Packages"). The time seams and
 * the lock SPI are at the bottom, each naming only the JDK, the candidate's machine and the pacing
 * tools above them, the API and its driver on top. What counts as naming a type is what {@link
 * InternalBoundaryTest} counts.
 */
class CoreLayersTest {

  /** Each package of elector-core, and the core packages below it that its classes may name. */
  static final Map<String, Set<String>> BELOW =
      Map.of(
          "dev.elector.time", Set.of(),
          "dev.elector.lock", Set.of(),
          "dev.elector.internal.time", Set.of("dev.elector.time"),
          "dev.elector.internal.candidate", Set.of("dev.elector.lock", "dev.elector.time"),
          "dev.elector.internal", Set.of("dev.elector.time"),
          "dev.elector",
              Set.of(
                  "dev.elector.time",
                  "dev.elector.lock",
                  "dev.elector.internal.time",
                  "dev.elector.internal.candidate",
                  "dev.elector.internal"));

  private static final Pattern ELECTOR_TYPE =
      Pattern.compile("dev/elector/(?:[a-z0-9_]+/)*(?=[A-Z][A-Za-z0-9_$]*)");

  @Test
  void noPackageOfTheCoreNamesAPackageAboveIt() {
    Map<String, Set<String>> named = new TreeMap<>();
    InternalBoundaryTest.classFiles(ApiSurfaceTest.location("elector-core"))
        .forEach((className, bytes) -> named.put(className, namedPackages(bytes)));
    assertEquals(
        List.of(),
        breaches(named),
        "a core package names one above it; move the type down, or invert the dependency with an"
            + " interface in the lower package");
    assertEquals(
        BELOW.keySet(),
        new TreeSet<>(packagesOf(named.keySet())),
        "BELOW must place exactly the packages of elector-core");
  }

  @Test
  void aTypeNamingAPackageAboveItOrAnUnplacedPackageIsABreach() {
    assertEquals(
        List.of(
            "dev.elector.extra.Thing is in dev.elector.extra, which BELOW does not place",
            "dev.elector.lock.LeaderLock names dev.elector, which is not below"
                + " dev.elector.lock"),
        breaches(
            new TreeMap<>(
                Map.of(
                    "dev.elector.lock.LeaderLock",
                    Set.of("dev.elector.lock", "dev.elector"),
                    "dev.elector.extra.Thing",
                    Set.of("dev.elector.time"),
                    "dev.elector.Term",
                    Set.of("dev.elector.lock", "dev.elector.internal.candidate")))));
  }

  /** What breaks the layers: a class naming a core package not below its own, or unplaced. */
  static List<String> breaches(Map<String, Set<String>> namedByClass) {
    List<String> breaches = new ArrayList<>();
    namedByClass.forEach(
        (className, named) -> {
          String own = packageOf(className);
          Set<String> below = BELOW.get(own);
          if (below == null) {
            breaches.add(className + " is in " + own + ", which BELOW does not place");
            return;
          }
          for (String pkg : new TreeSet<>(named)) {
            if (!pkg.equals(own) && !below.contains(pkg)) {
              breaches.add(className + " names " + pkg + ", which is not below " + own);
            }
          }
        });
    return breaches;
  }

  /** The Elector packages whose types a class file names. */
  private static Set<String> namedPackages(byte[] classFile) {
    Set<String> found = new TreeSet<>();
    for (String name : InternalBoundaryTest.usedNames(classFile)) {
      Matcher m = ELECTOR_TYPE.matcher(name);
      while (m.find()) {
        String pkg = m.group();
        found.add(pkg.substring(0, pkg.length() - 1).replace('/', '.'));
      }
    }
    return found;
  }

  private static List<String> packagesOf(Set<String> classNames) {
    return classNames.stream().map(CoreLayersTest::packageOf).distinct().toList();
  }

  private static String packageOf(String className) {
    return className.substring(0, className.lastIndexOf('.'));
  }
}
