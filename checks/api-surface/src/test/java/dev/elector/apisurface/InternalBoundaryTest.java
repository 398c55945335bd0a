package dev.elector.apisurface;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.elector.k8s.LeaseLock;
import io.kubernetes.client.openapi.ApiClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The module boundary of the {@code .internal} packages, on the published jars: a class of a
 * published jar may name a type of another jar's {@code .internal} package only when {@link
 * #FRIENDS} lets that jar in. This is what a {@code module-info} with qualified exports would say
 * ({@code exports dev.elector.kube.internal to dev.elector.k8s.lease, ...}), checked for every
 * user, class path included. A class uses a type when its constant pool holds the type as a class
 * (a superclass, an interface, a type it creates, casts to, or calls or reads a member of), or when
 * one of its own fields or methods names the type. The descriptor of a method it calls is not
 * counted: it names what the callee declares, which is the callee's API, not the caller's use.
 */
class InternalBoundaryTest {

  /** Each internal package and the jars besides its own that may use it. */
  static final Map<String, Set<String>> FRIENDS =
      Map.of(
          "dev.elector.kube.internal",
          Set.of("elector-k8s-lease", "elector-configmap", "elector-fabric8"),
          "dev.elector.k8s.internal",
          Set.of("elector-configmap"),
          "dev.elector.quarkus.internal",
          Set.of("elector-quarkus-deployment"),
          "dev.elector.internal",
          Set.of("elector-shards"),
          "dev.elector.internal.time",
          Set.of("elector-kube-base", "elector-shards"));

  /** An internal package, sub-packages included, up to the class name that follows it. */
  private static final Pattern INTERNAL_NAME =
      Pattern.compile(
          "dev/elector/(?:[a-z0-9]+/)*internal/(?:[a-z0-9_]+/)*(?=[A-Z][A-Za-z0-9_$]*)");

  @TestFactory
  Stream<DynamicTest> noJarReachesAnotherJarsInternalsUnlessLetIn() {
    Map<String, String> owners = owners();
    return ApiSurfaceTest.MODULES.stream()
        .map(module -> dynamicTest(module, () -> checkModule(module, owners)));
  }

  /** What counts as a use: class entries and own members' descriptors, not called descriptors. */
  @Test
  void readsTheTypesAClassUsesFromItsClassFile() throws IOException {
    assertEquals(Set.of(), internalPackages(classFile(Fixture.class)));
    assertEquals(Set.of("dev.elector.kube.internal"), internalPackages(classFile(Names.class)));
    assertEquals(Set.of("dev.elector.kube.internal"), internalPackages(classFile(Creates.class)));
    assertEquals(Set.of(), internalPackages(classFile(CallsBuilderSetter.class)));
    assertEquals(
        Set.of("dev.elector.internal.candidate"),
        internalPackages(classFile(NamesASubPackage.class)),
        "a sub-package of an internal package is that package, not its parent");
  }

  /** Names a type of a sub-package of an internal package. */
  @SuppressWarnings("unused") // read from its class file only
  private static final class NamesASubPackage {
    private dev.elector.internal.candidate.@Nullable Purpose purpose;
  }

  private static byte[] classFile(Class<?> type) throws IOException {
    try (InputStream in =
        type.getResourceAsStream("/" + type.getName().replace('.', '/') + ".class")) {
      return Objects.requireNonNull(in, type.getName()).readAllBytes();
    }
  }

  /** Names an internal type in its own field only. */
  @SuppressWarnings("unused") // read from its class file only
  private static final class Names {
    private dev.elector.kube.internal.@Nullable Reply reply;
  }

  /** Creates an internal type, which is a class entry of its constant pool. */
  @SuppressWarnings("unused") // read from its class file only
  private static final class Creates {
    Object make() {
      return new dev.elector.kube.internal.Abort();
    }
  }

  /** Calls a setter of the public lock builder, whose implementation is internal. */
  @SuppressWarnings("unused") // read from its class file only
  private static final class CallsBuilderSetter {
    Object build() {
      return LeaseLock.newBuilder(new ApiClient()).name("x");
    }
  }

  /** Uses no internal type at all. */
  private static final class Fixture {}

  private static void checkModule(String module, Map<String, String> owners) {
    List<String> breaches = new ArrayList<>();
    classFiles(ApiSurfaceTest.location(module))
        .forEach(
            (className, bytes) -> {
              for (String used : internalPackages(bytes)) {
                String owner = owners.get(used);
                if (owner == null) {
                  breaches.add(className + " names " + used + ", which no published jar holds");
                } else if (!owner.equals(module)
                    && !FRIENDS.getOrDefault(used, Set.of()).contains(module)) {
                  breaches.add(className + " names " + used + " of " + owner);
                }
              }
            });
    if (!breaches.isEmpty()) {
      fail(
          module
              + " reaches internals it was not let into:\n  "
              + String.join("\n  ", breaches)
              + "\nUse the owner's API instead; if the module is a backend that must share the"
              + " implementation, add it to InternalBoundaryTest.FRIENDS for that package.");
    }
  }

  /** Each internal package of a published jar, and the jar that holds it. */
  private static Map<String, String> owners() {
    Map<String, String> owners = new LinkedHashMap<>();
    for (String module : ApiSurfaceTest.MODULES) {
      for (String className : classFiles(ApiSurfaceTest.location(module)).keySet()) {
        String pkg = className.substring(0, Math.max(0, className.lastIndexOf('.')));
        if (ApiSurface.isInternalPackage(pkg)) {
          String before = owners.putIfAbsent(pkg, module);
          if (before != null && !before.equals(module)) {
            fail("the package " + pkg + " is split between " + before + " and " + module);
          }
        }
      }
    }
    FRIENDS.keySet().stream()
        .filter(pkg -> !owners.containsKey(pkg))
        .forEach(pkg -> fail("FRIENDS names " + pkg + ", which no published jar holds"));
    return owners;
  }

  /** The internal packages whose types a class file uses (see the class comment). */
  static Set<String> internalPackages(byte[] classFile) {
    Set<String> found = new TreeSet<>();
    for (String name : usedNames(classFile)) {
      Matcher m = INTERNAL_NAME.matcher(name);
      while (m.find()) {
        String pkg = m.group();
        found.add(pkg.substring(0, pkg.length() - 1).replace('/', '.'));
      }
    }
    return found;
  }

  /**
   * The class names of the constant pool's class entries, and the descriptors and signatures of the
   * class's own fields and methods (JVMS 4.1 to 4.6).
   */
  static List<String> usedNames(byte[] bytes) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    if (in.getInt() != 0xCAFEBABE) {
      throw new IllegalArgumentException("not a class file");
    }
    in.getInt(); // minor and major version
    int count = Short.toUnsignedInt(in.getShort());
    String[] utf8 = new String[count];
    List<Integer> classes = new ArrayList<>();
    for (int i = 1; i < count; i++) {
      int tag = Byte.toUnsignedInt(in.get());
      switch (tag) {
        case 1 -> {
          byte[] text = new byte[Short.toUnsignedInt(in.getShort())];
          in.get(text);
          utf8[i] = new String(text, ISO_8859_1); // the names sought are ASCII
        }
        case 7 -> classes.add(Short.toUnsignedInt(in.getShort()));
        case 8, 16, 19, 20 -> in.getShort();
        case 15 -> {
          in.get();
          in.getShort();
        }
        case 3, 4, 9, 10, 11, 12, 17, 18 -> in.getInt();
        case 5, 6 -> {
          in.getLong();
          i++; // takes two entries
        }
        default -> throw new IllegalArgumentException("constant pool tag " + tag);
      }
    }
    List<String> names = new ArrayList<>();
    classes.forEach(index -> names.add(utf8[index]));
    in.position(in.position() + 6); // access flags, this class, superclass (a class entry)
    int interfaces = Short.toUnsignedInt(in.getShort());
    in.position(in.position() + 2 * interfaces);
    for (int table = 0; table < 2; table++) { // fields, then methods
      int members = Short.toUnsignedInt(in.getShort());
      for (int k = 0; k < members; k++) {
        in.position(in.position() + 4); // access flags, name
        names.add(utf8[Short.toUnsignedInt(in.getShort())]); // descriptor
        int attributes = Short.toUnsignedInt(in.getShort());
        for (int a = 0; a < attributes; a++) {
          String attribute = utf8[Short.toUnsignedInt(in.getShort())];
          int length = in.getInt();
          if ("Signature".equals(attribute)) {
            names.add(utf8[Short.toUnsignedInt(in.getShort())]);
          } else {
            in.position(in.position() + length);
          }
        }
      }
    }
    return names;
  }

  /** The class files of a jar or a class directory, by class name. */
  static Map<String, byte[]> classFiles(Path location) {
    Map<String, byte[]> classes = new LinkedHashMap<>();
    try {
      if (Files.isDirectory(location)) {
        try (Stream<Path> files = Files.walk(location)) {
          for (Path file : (Iterable<Path>) files::iterator) {
            String path =
                location
                    .relativize(file)
                    .toString()
                    .replace(file.getFileSystem().getSeparator(), "/");
            if (isClass(path)) {
              classes.put(className(path), Files.readAllBytes(file));
            }
          }
        }
        return classes;
      }
      try (JarFile jar = new JarFile(location.toFile())) {
        for (var entry : (Iterable<java.util.jar.JarEntry>) jar.stream()::iterator) {
          if (isClass(entry.getName())) {
            try (InputStream in = jar.getInputStream(entry)) {
              classes.put(className(entry.getName()), in.readAllBytes());
            }
          }
        }
      }
      return classes;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the classes of " + location, e);
    }
  }

  private static boolean isClass(String path) {
    return path.endsWith(".class")
        && !path.startsWith("META-INF/")
        && !path.endsWith("module-info.class");
  }

  private static String className(String path) {
    return path.substring(0, path.length() - ".class".length()).replace('/', '.');
  }
}
