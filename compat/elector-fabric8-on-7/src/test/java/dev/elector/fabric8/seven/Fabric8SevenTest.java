package dev.elector.fabric8.seven;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.elector.fabric8.Fabric8LeaseLock;
import io.fabric8.kubernetes.client.Version;
import io.fabric8.kubernetes.client.impl.KubernetesClientImpl;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * This module's class path is an application's on fabric8 7: elector-fabric8's published jar,
 * kubernetes-client and its API at the one version named by {@code fabric8.expected.version}, and
 * Jackson 2 without Jackson 3. Prints what it runs on, in the build log.
 */
class Fabric8SevenTest {

  @Test
  void runsOnFabric8SevenWithJacksonTwo() throws Exception {
    String expected = System.getProperty("fabric8.expected.version");
    String client = jarVersion(KubernetesClientImpl.class, "io.fabric8", "kubernetes-client");
    System.out.printf(
        "elector-fabric8 %s on fabric8 kubernetes-client-api %s, kubernetes-client %s, Jackson %s%n",
        jarVersion(Fabric8LeaseLock.class, "dev.elector", "elector-fabric8"),
        Version.clientVersion(),
        client,
        com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION);
    assertEquals(expected, Version.clientVersion(), "kubernetes-client-api");
    assertEquals(expected, client, "kubernetes-client");
    assertThrows(
        ClassNotFoundException.class,
        () -> Class.forName("tools.jackson.databind.ObjectMapper"),
        "Jackson 3 is on the class path");
  }

  /** The version in the Maven metadata of the jar that holds {@code type}. */
  private static String jarVersion(Class<?> type, String group, String artifact) throws Exception {
    URL location = type.getProtectionDomain().getCodeSource().getLocation();
    Path path = Path.of(location.toURI());
    if (Files.isDirectory(path)) {
      return "classes in " + path;
    }
    try (JarFile jar = new JarFile(path.toFile())) {
      var entry = jar.getJarEntry("META-INF/maven/" + group + "/" + artifact + "/pom.properties");
      if (entry == null) {
        return location.toString();
      }
      Properties properties = new Properties();
      try (InputStream in = jar.getInputStream(entry)) {
        properties.load(in);
      }
      return properties.getProperty("version");
    }
  }
}
