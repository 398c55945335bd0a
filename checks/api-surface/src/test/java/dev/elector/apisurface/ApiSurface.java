package dev.elector.apisurface;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The public surface of one jar (or class directory), read by reflection: every public or protected
 * type outside the {@code .internal} packages, its public and protected members with their generic
 * signatures, and the places where such a signature names an internal type.
 *
 * <p>The text form ({@link #text()}) is what the golden files hold: one line per type, starting
 * with its binary name, followed by its members indented by two spaces, both sorted.
 */
final class ApiSurface {

  /** Where a public signature names a type of an internal package. */
  record Leak(String element, String internalType, String signature) {}

  private final TreeMap<String, TreeSet<String>> members = new TreeMap<>();
  private final TreeMap<String, String> headers = new TreeMap<>();
  private final Set<Leak> leaks = new LinkedHashSet<>();

  private ApiSurface() {}

  /**
   * Reads the classes of {@code location} (a jar or a class directory) through {@code loader},
   * which must also see everything their signatures name.
   */
  static ApiSurface read(Path location, ClassLoader loader) {
    return read(location, loader, "");
  }

  /** Like {@link #read(Path, ClassLoader)}, for the classes whose names start with a prefix. */
  static ApiSurface read(Path location, ClassLoader loader, String namePrefix) {
    ApiSurface surface = new ApiSurface();
    for (String name : classNames(location)) {
      if (!name.startsWith(namePrefix)) {
        continue;
      }
      Class<?> type;
      try {
        type = Class.forName(name, false, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        throw new IllegalStateException(
            "cannot load "
                + name
                + " from "
                + location
                + " ("
                + e
                + "); add what it needs as a test dependency of api-surface",
            e);
      }
      try {
        if (isApi(type)) {
          surface.add(type);
        }
      } catch (LinkageError | TypeNotPresentException e) {
        throw new IllegalStateException(
            "cannot read the signatures of "
                + name
                + " ("
                + e
                + "); a type they name is missing from the api-surface test classpath: add it as"
                + " a test dependency of api-surface",
            e);
      }
    }
    return surface;
  }

  /** True if the package is internal: one of its dot-separated parts is {@code internal}. */
  static boolean isInternalPackage(String packageName) {
    return Arrays.asList(packageName.split("\\.", -1)).contains("internal");
  }

  /** The golden-file text: types sorted by name, each followed by its sorted members. */
  String text() {
    StringBuilder out = new StringBuilder();
    headers.forEach(
        (name, header) -> {
          out.append(header).append('\n');
          for (String member : members.get(name)) {
            out.append("  ").append(member).append('\n');
          }
        });
    return out.toString();
  }

  /** Every place where a public signature names an internal type, in reading order. */
  List<Leak> leaks() {
    return List.copyOf(leaks);
  }

  /**
   * The entries of a golden-file text, each member qualified by its type's name, so that two texts
   * can be compared as sets. Blank lines and lines starting with {@code #} are skipped.
   */
  static Set<String> entries(String text) {
    Set<String> entries = new LinkedHashSet<>();
    String type = "(no type yet)";
    for (String line : text.split("\n", -1)) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      if (line.startsWith("  ")) {
        entries.add(type + " :: " + line.strip());
      } else {
        type = line.strip().split("[<:]", 2)[0];
        entries.add(line.strip());
      }
    }
    return entries;
  }

  // ---- reading

  private static List<String> classNames(Path location) {
    try {
      if (Files.isDirectory(location)) {
        try (Stream<Path> files = Files.walk(location)) {
          return files
              .filter(p -> p.toString().endsWith(".class"))
              .map(
                  p ->
                      location
                          .relativize(p)
                          .toString()
                          .replace(p.getFileSystem().getSeparator(), "/"))
              .map(ApiSurface::className)
              .filter(n -> !n.isEmpty())
              .sorted()
              .collect(Collectors.toList());
        }
      }
      try (JarFile jar = new JarFile(location.toFile())) {
        return jar.stream()
            .map(e -> e.getName())
            .filter(n -> n.endsWith(".class") && !n.startsWith("META-INF/"))
            .map(ApiSurface::className)
            .filter(n -> !n.isEmpty())
            .sorted()
            .collect(Collectors.toList());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the classes of " + location, e);
    }
  }

  /** The binary name of a class file path, or "" for module-info and package-info. */
  private static String className(String path) {
    String name = path.substring(0, path.length() - ".class".length());
    if (name.endsWith("module-info") || name.endsWith("package-info")) {
      return "";
    }
    return name.replace('/', '.');
  }

  /** Public or protected, not synthetic, anonymous or local, in API types and packages. */
  private static boolean isApi(Class<?> type) {
    if (type.isSynthetic() || type.isAnonymousClass() || type.isLocalClass()) {
      return false;
    }
    if (!isExported(type.getModifiers())) {
      return false;
    }
    Class<?> outer = type.getEnclosingClass();
    if (outer != null) {
      return isApi(outer);
    }
    return !isInternalPackage(type.getPackageName());
  }

  private static boolean isExported(int modifiers) {
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  private void add(Class<?> type) {
    String name = type.getName();
    headers.put(name, header(type));
    TreeSet<String> lines = new TreeSet<>();
    members.put(name, lines);

    Type superclass = type.getGenericSuperclass();
    if (superclass != null && superclass != Object.class && !type.isEnum() && !type.isRecord()) {
      check(name, name, "extends " + render(superclass), superclass);
    }
    for (Type parent : type.getGenericInterfaces()) {
      check(name, name, "implements " + render(parent), parent);
    }
    for (TypeVariable<?> variable : type.getTypeParameters()) {
      for (Type bound : variable.getBounds()) {
        check(name, name, "type parameter " + variable.getName(), bound);
      }
    }

    for (Field field : type.getDeclaredFields()) {
      if (isExported(field.getModifiers()) && !field.isSynthetic()) {
        String line =
            modifiers(field, type) + render(field.getGenericType()) + " " + field.getName();
        lines.add(line);
        check(name, name + "#" + field.getName(), line, field.getGenericType());
      }
    }
    for (Constructor<?> constructor : type.getDeclaredConstructors()) {
      if (isExported(constructor.getModifiers()) && !constructor.isSynthetic()) {
        addExecutable(type, constructor, lines);
      }
    }
    Set<String> declared = new HashSet<>();
    for (Method method : type.getDeclaredMethods()) {
      if (isExported(method.getModifiers()) && !method.isSynthetic() && !method.isBridge()) {
        addExecutable(type, method, lines);
        declared.add(id(method));
      }
    }
    // Public and protected methods inherited from a superclass that is not itself API (a
    // package-private base class) are part of this type's surface.
    for (Class<?> up = type.getSuperclass();
        up != null && up != Object.class && !isApi(up) && !up.getName().startsWith("java.");
        up = up.getSuperclass()) {
      for (Method method : up.getDeclaredMethods()) {
        if (isExported(method.getModifiers())
            && !method.isSynthetic()
            && !method.isBridge()
            && declared.add(id(method))) {
          addExecutable(type, method, lines);
        }
      }
    }
  }

  private void addExecutable(Class<?> owner, Executable executable, Set<String> lines) {
    String typeName = owner.getName();
    StringBuilder line = new StringBuilder(modifiers(executable, owner));
    String typeParameters = typeParameters(executable.getTypeParameters());
    if (!typeParameters.isEmpty()) {
      line.append(typeParameters).append(' ');
    }
    String element;
    if (executable instanceof Method method) {
      line.append(render(method.getGenericReturnType())).append(' ').append(method.getName());
      element = typeName + "#" + id(method);
    } else {
      line.append(owner.getSimpleName());
      element = typeName + "#<init>" + erasedParameters(executable);
    }
    Type[] parameters = executable.getGenericParameterTypes();
    line.append('(');
    for (int i = 0; i < parameters.length; i++) {
      if (i > 0) {
        line.append(", ");
      }
      String rendered = render(parameters[i]);
      if (executable.isVarArgs() && i == parameters.length - 1 && rendered.endsWith("[]")) {
        rendered = rendered.substring(0, rendered.length() - 2) + "...";
      }
      line.append(rendered);
    }
    line.append(')');
    Type[] exceptions = executable.getGenericExceptionTypes();
    if (exceptions.length > 0) {
      line.append(" throws ")
          .append(
              Arrays.stream(exceptions).map(ApiSurface::render).collect(Collectors.joining(", ")));
    }
    String text = line.toString();
    lines.add(text);

    for (TypeVariable<?> variable : executable.getTypeParameters()) {
      for (Type bound : variable.getBounds()) {
        check(typeName, element, text, bound);
      }
    }
    if (executable instanceof Method method) {
      check(typeName, element, text, method.getGenericReturnType());
    }
    for (Type parameter : parameters) {
      check(typeName, element, text, parameter);
    }
    for (Type exception : exceptions) {
      check(typeName, element, text, exception);
    }
  }

  private static String header(Class<?> type) {
    StringBuilder out = new StringBuilder(type.getName());
    out.append(typeParameters(type.getTypeParameters()));
    out.append(": ");
    int modifiers = type.getModifiers();
    out.append(Modifier.isPublic(modifiers) ? "public " : "protected ");
    if (type.getEnclosingClass() != null
        && Modifier.isStatic(modifiers)
        && !type.isInterface()
        && !type.isEnum()
        && !type.isRecord()) {
      out.append("static ");
    }
    if (type.isSealed()) {
      out.append("sealed ");
    }
    if (type.isAnnotation()) {
      out.append("@interface");
    } else if (type.isInterface()) {
      out.append("interface");
    } else if (type.isEnum()) {
      out.append("enum");
    } else if (type.isRecord()) {
      out.append("record");
    } else {
      if (Modifier.isAbstract(modifiers)) {
        out.append("abstract ");
      }
      if (Modifier.isFinal(modifiers)) {
        out.append("final ");
      }
      out.append("class");
    }
    Type superclass = type.getGenericSuperclass();
    if (superclass != null && superclass != Object.class && !type.isEnum() && !type.isRecord()) {
      out.append(" extends ").append(render(superclass));
    }
    Type[] interfaces = type.isAnnotation() ? new Type[0] : type.getGenericInterfaces();
    if (interfaces.length > 0) {
      out.append(type.isInterface() ? " extends " : " implements ")
          .append(
              Arrays.stream(interfaces).map(ApiSurface::render).collect(Collectors.joining(", ")));
    }
    if (type.isSealed()) {
      out.append(" permits ")
          .append(
              Arrays.stream(type.getPermittedSubclasses())
                  .map(Class::getName)
                  .sorted()
                  .collect(Collectors.joining(", ")));
    }
    return out.toString();
  }

  /** The modifiers that matter to a caller or an implementer, with a trailing space. */
  private static String modifiers(Member member, Class<?> owner) {
    int modifiers = member.getModifiers();
    List<String> words = new ArrayList<>();
    words.add(Modifier.isPublic(modifiers) ? "public" : "protected");
    if (Modifier.isStatic(modifiers)) {
      words.add("static");
    }
    if (member instanceof Method method) {
      if (method.isDefault()) {
        words.add("default");
      } else if (Modifier.isAbstract(modifiers)) {
        words.add("abstract");
      }
      if (Modifier.isFinal(modifiers) && !Modifier.isFinal(owner.getModifiers())) {
        words.add("final");
      }
    } else if (member instanceof Field && Modifier.isFinal(modifiers)) {
      words.add("final");
    }
    return String.join(" ", words) + " ";
  }

  private static String typeParameters(TypeVariable<?>[] variables) {
    if (variables.length == 0) {
      return "";
    }
    return Arrays.stream(variables)
        .map(
            v -> {
              List<Type> bounds =
                  Arrays.stream(v.getBounds())
                      .filter(b -> b != Object.class)
                      .collect(Collectors.toList());
              return bounds.isEmpty()
                  ? v.getName()
                  : v.getName()
                      + " extends "
                      + bounds.stream().map(ApiSurface::render).collect(Collectors.joining(" & "));
            })
        .collect(Collectors.joining(", ", "<", ">"));
  }

  /** A method's name and erased parameter types: the key of an allowed-internal entry. */
  private static String id(Method method) {
    return method.getName() + erasedParameters(method);
  }

  private static String erasedParameters(Executable executable) {
    return Arrays.stream(executable.getParameterTypes())
        .map(Class::getTypeName)
        .collect(Collectors.joining(",", "(", ")"));
  }

  static String render(Type type) {
    if (type instanceof Class<?> c) {
      return c.getTypeName();
    }
    if (type instanceof ParameterizedType parameterized) {
      return render(parameterized.getRawType())
          + Arrays.stream(parameterized.getActualTypeArguments())
              .map(ApiSurface::render)
              .collect(Collectors.joining(", ", "<", ">"));
    }
    if (type instanceof WildcardType wildcard) {
      if (wildcard.getLowerBounds().length > 0) {
        return "? super " + render(wildcard.getLowerBounds()[0]);
      }
      Type upper = wildcard.getUpperBounds()[0];
      return upper == Object.class ? "?" : "? extends " + render(upper);
    }
    if (type instanceof GenericArrayType array) {
      return render(array.getGenericComponentType()) + "[]";
    }
    if (type instanceof TypeVariable<?> variable) {
      return variable.getName();
    }
    return type.getTypeName();
  }

  // ---- the internal-type check

  private void check(String typeName, String element, String signature, Type type) {
    Set<String> found = new TreeSet<>();
    collectInternal(type, found);
    for (String internal : found) {
      leaks.add(new Leak(element, internal, typeName + ": " + signature));
    }
  }

  /** Adds every internal type that {@code type} names, type arguments and bounds included. */
  private static void collectInternal(Type type, Set<String> found) {
    if (type instanceof Class<?> plain) {
      Class<?> c = plain;
      while (c.isArray()) {
        c = c.getComponentType();
      }
      if (!c.isPrimitive() && isInternalPackage(c.getPackageName())) {
        found.add(c.getName());
      }
    } else if (type instanceof ParameterizedType parameterized) {
      collectInternal(parameterized.getRawType(), found);
      if (parameterized.getOwnerType() != null) {
        collectInternal(parameterized.getOwnerType(), found);
      }
      for (Type argument : parameterized.getActualTypeArguments()) {
        collectInternal(argument, found);
      }
    } else if (type instanceof WildcardType wildcard) {
      Stream.concat(
              Arrays.stream(wildcard.getUpperBounds()), Arrays.stream(wildcard.getLowerBounds()))
          .forEach(bound -> collectInternal(bound, found));
    } else if (type instanceof GenericArrayType array) {
      collectInternal(array.getGenericComponentType(), found);
    }
    // A type variable's bounds are checked where it is declared.
  }
}
