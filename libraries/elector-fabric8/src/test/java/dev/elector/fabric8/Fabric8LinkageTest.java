package dev.elector.fabric8;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.Version;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every fabric8 class, method and field that elector-fabric8's main classes name in their bytecode
 * resolves, with the same descriptor and kind (class or interface), on the fabric8 of this test's
 * class path, and no descriptor names a Jackson type. elector-fabric8 runs it on fabric8 8 and
 * elector-fabric8-on-7 on 7.5.2, each against the same compiled classes, so a call that one major
 * lacks fails the build before it could fail an application with {@code NoSuchMethodError}.
 */
class Fabric8LinkageTest {

  private static final Pattern FABRIC8_TYPE = Pattern.compile("L(io/fabric8/[^;<>]+)[;<]");

  @Test
  void everyFabric8MemberThatTheLocksCallResolvesOnThisFabric8() throws Exception {
    String api = Version.clientVersion();
    String impl = jarVersion("io.fabric8.kubernetes.client.impl.KubernetesClientImpl");
    assertEquals(
        api,
        impl,
        "the test class path mixes fabric8 majors: kubernetes-client-api "
            + api
            + ", kubernetes-client "
            + impl);

    List<Ref> refs = new ArrayList<>();
    Set<String> types = new TreeSet<>();
    for (byte[] bytes : mainClasses()) {
      ConstantPool pool = ConstantPool.read(bytes);
      refs.addAll(pool.fabric8Members());
      types.addAll(pool.fabric8Types());
    }
    assertFalse(refs.isEmpty(), "no fabric8 calls found in elector-fabric8's classes");

    List<String> problems = new ArrayList<>();
    for (String type : types) {
      try {
        load(type);
      } catch (ClassNotFoundException | LinkageError e) {
        problems.add("class " + type + " is missing: " + e);
      }
    }
    Set<String> lines = new TreeSet<>();
    for (Ref ref : new TreeSet<>(refs)) {
      if (ref.descriptor().contains("com/fasterxml/jackson/")
          || ref.descriptor().contains("tools/jackson/")) {
        problems.add(ref + " names a Jackson type, which differs between fabric8 7 and 8");
      }
      String found = resolve(ref);
      if (found.startsWith("missing")) {
        problems.add(ref + ": " + found);
      }
      lines.add(ref + " -> " + found);
    }
    System.out.printf(
        "fabric8 %s (kubernetes-client %s), %s: %d members, %d types that elector-fabric8 links%n",
        api, impl, jackson(), lines.size(), types.size());
    lines.forEach(line -> System.out.println("  " + line));
    assertTrue(problems.isEmpty(), () -> String.join("\n", problems));
  }

  /** The version in the Maven metadata of the jar holding {@code className}. */
  private static String jarVersion(String className) throws Exception {
    URL location =
        Class.forName(className, false, loader())
            .getProtectionDomain()
            .getCodeSource()
            .getLocation();
    Path path = Path.of(location.toURI());
    if (Files.isDirectory(path)) {
      return "classes in " + path;
    }
    try (JarFile jar = new JarFile(path.toFile())) {
      JarEntry entry =
          jar.getJarEntry("META-INF/maven/io.fabric8/kubernetes-client/pom.properties");
      if (entry == null) {
        return path.getFileName().toString();
      }
      Properties properties = new Properties();
      try (InputStream in = jar.getInputStream(entry)) {
        properties.load(in);
      }
      return properties.getProperty("version");
    }
  }

  private static String jackson() {
    List<String> found = new ArrayList<>();
    if (present("tools.jackson.databind.ObjectMapper")) {
      found.add("Jackson 3");
    }
    if (present("com.fasterxml.jackson.databind.ObjectMapper")) {
      found.add("Jackson 2");
    }
    return found.isEmpty() ? "no Jackson databind" : String.join(" and ", found);
  }

  private static boolean present(String name) {
    try {
      Class.forName(name, false, loader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /** The class files of elector-fabric8's main code, from its jar or its classes directory. */
  private static List<byte[]> mainClasses() throws Exception {
    Path location =
        Path.of(Fabric8Http.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<byte[]> classes = new ArrayList<>();
    if (Files.isDirectory(location)) {
      try (var files = Files.walk(location.resolve("dev/elector/fabric8"))) {
        for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
          classes.add(Files.readAllBytes(file));
        }
      }
    } else {
      try (JarFile jar = new JarFile(location.toFile())) {
        for (JarEntry entry : jar.stream().toList()) {
          if (entry.getName().endsWith(".class")) {
            try (InputStream in = jar.getInputStream(entry)) {
              classes.add(in.readAllBytes());
            }
          }
        }
      }
    }
    assertFalse(classes.isEmpty(), "no classes at " + location);
    return classes;
  }

  private static ClassLoader loader() {
    return Fabric8LinkageTest.class.getClassLoader();
  }

  private static Class<?> load(String internalName) throws ClassNotFoundException {
    return Class.forName(internalName.replace('/', '.'), false, loader());
  }

  /**
   * Where the JVM would find {@code ref}: the declaring class, or "missing ..." when it would throw
   * {@code NoSuchMethodError}, {@code NoSuchFieldError} or {@code IncompatibleClassChangeError}.
   */
  private static String resolve(Ref ref) {
    Class<?> owner;
    try {
      owner = load(ref.owner());
    } catch (ClassNotFoundException | LinkageError e) {
      return "missing: no class " + ref.owner();
    }
    if (ref.kind() != Kind.FIELD && owner.isInterface() != (ref.kind() == Kind.INTERFACE_METHOD)) {
      return "missing: " + ref.owner() + (owner.isInterface() ? " is an interface" : " is a class");
    }
    if (ref.name().equals("<init>")) {
      for (Constructor<?> constructor : owner.getDeclaredConstructors()) {
        if (descriptor(constructor.getParameterTypes(), void.class).equals(ref.descriptor())) {
          return ref.owner();
        }
      }
      return "missing: no such constructor";
    }
    for (Class<?> type : supertypes(owner)) {
      if (ref.kind() == Kind.FIELD) {
        for (Field field : type.getDeclaredFields()) {
          if (field.getName().equals(ref.name())
              && descriptor(field.getType()).equals(ref.descriptor())) {
            return type.getName().replace('.', '/');
          }
        }
      } else {
        for (Method method : type.getDeclaredMethods()) {
          if (method.getName().equals(ref.name())
              && descriptor(method.getParameterTypes(), method.getReturnType())
                  .equals(ref.descriptor())) {
            return type.getName().replace('.', '/');
          }
        }
      }
    }
    return "missing: no such " + (ref.kind() == Kind.FIELD ? "field" : "method");
  }

  /** The class, its superclasses, then every interface they implement, as the JVM looks. */
  private static List<Class<?>> supertypes(Class<?> owner) {
    List<Class<?>> order = new ArrayList<>();
    for (Class<?> c = owner; c != null; c = c.getSuperclass()) {
      order.add(c);
    }
    Deque<Class<?>> queue = new ArrayDeque<>(order);
    Set<Class<?>> seen = new HashSet<>(order);
    while (!queue.isEmpty()) {
      for (Class<?> i : queue.removeFirst().getInterfaces()) {
        if (seen.add(i)) {
          order.add(i);
          queue.addLast(i);
        }
      }
    }
    if (owner.isInterface()) {
      order.add(Object.class);
    }
    return order;
  }

  private static String descriptor(Class<?>[] parameters, Class<?> result) {
    StringBuilder out = new StringBuilder("(");
    for (Class<?> parameter : parameters) {
      out.append(descriptor(parameter));
    }
    return out.append(')').append(descriptor(result)).toString();
  }

  private static String descriptor(Class<?> type) {
    if (type.isArray()) {
      return type.getName().replace('.', '/');
    }
    if (type.isPrimitive()) {
      return switch (type.getName()) {
        case "void" -> "V";
        case "boolean" -> "Z";
        case "byte" -> "B";
        case "char" -> "C";
        case "short" -> "S";
        case "int" -> "I";
        case "long" -> "J";
        case "float" -> "F";
        case "double" -> "D";
        default -> throw new IllegalArgumentException(type.getName());
      };
    }
    return "L" + type.getName().replace('.', '/') + ";";
  }

  enum Kind {
    FIELD,
    METHOD,
    INTERFACE_METHOD
  }

  record Ref(Kind kind, String owner, String name, String descriptor) implements Comparable<Ref> {
    @Override
    public int compareTo(Ref other) {
      return toString().compareTo(other.toString());
    }

    @Override
    public String toString() {
      return owner + "." + name + descriptor;
    }
  }

  /** The constant pool of one class file: the entries that name classes and members. */
  private static final class ConstantPool {
    private final Object[] entries;
    private final int[][] pairs;
    private final int[] tags;

    private ConstantPool(int count) {
      entries = new Object[count];
      pairs = new int[count][];
      tags = new int[count];
    }

    static ConstantPool read(byte[] bytes) throws IOException {
      DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes));
      if (in.readInt() != 0xCAFEBABE) {
        throw new IOException("not a class file");
      }
      in.readUnsignedShort();
      in.readUnsignedShort();
      ConstantPool pool = new ConstantPool(in.readUnsignedShort());
      for (int i = 1; i < pool.tags.length; i++) {
        int tag = in.readUnsignedByte();
        pool.tags[i] = tag;
        switch (tag) {
          case 1 -> pool.entries[i] = in.readUTF();
          case 7, 8, 16, 19, 20 -> pool.pairs[i] = new int[] {in.readUnsignedShort()};
          case 9, 10, 11, 12, 17, 18 ->
              pool.pairs[i] = new int[] {in.readUnsignedShort(), in.readUnsignedShort()};
          case 15 -> pool.pairs[i] = new int[] {in.readUnsignedByte(), in.readUnsignedShort()};
          case 3, 4 -> in.readInt();
          case 5, 6 -> {
            in.readLong();
            i++;
          }
          default -> throw new IOException("unknown constant pool tag " + tag);
        }
      }
      return pool;
    }

    private String utf(int index) {
      return (String) entries[index];
    }

    private String className(int index) {
      return utf(pairs[index][0]);
    }

    List<Ref> fabric8Members() {
      List<Ref> refs = new ArrayList<>();
      for (int i = 1; i < tags.length; i++) {
        Kind kind =
            switch (tags[i]) {
              case 9 -> Kind.FIELD;
              case 10 -> Kind.METHOD;
              case 11 -> Kind.INTERFACE_METHOD;
              default -> null;
            };
        if (kind == null) {
          continue;
        }
        String owner = className(pairs[i][0]);
        int[] nameAndType = pairs[pairs[i][1]];
        if (owner.startsWith("io/fabric8/")) {
          refs.add(new Ref(kind, owner, utf(nameAndType[0]), utf(nameAndType[1])));
        }
      }
      return refs;
    }

    /** fabric8 classes named anywhere: class entries and every descriptor or signature. */
    Set<String> fabric8Types() {
      Set<String> types = new TreeSet<>();
      for (int i = 1; i < tags.length; i++) {
        if (tags[i] == 7 && className(i).startsWith("io/fabric8/")) {
          types.add(className(i));
        } else if (tags[i] == 1) {
          Matcher matcher = FABRIC8_TYPE.matcher(utf(i));
          while (matcher.find()) {
            types.add(matcher.group(1));
          }
        }
      }
      return types;
    }
  }
}
