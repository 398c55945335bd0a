package dev.elector.demo;

import dev.elector.dhcp.lab.NetLab;
import dev.elector.testkit.kube.KubeCluster;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What the demo's steps share: the settings, the output, the summary and what earlier steps made.
 */
final class DemoRun {
  final Demo.Options options;
  final Progress progress;
  final DemoSummary summary = new DemoSummary();
  final HttpClient http = HttpClient.newHttpClient();

  /** Where logs and kubeconfigs go. */
  Path work;

  KubeCluster cluster;

  /** The namespace of the pool, the VM and the agents; null until the control plane is ready. */
  String namespace;

  /** The network namespaces, where the machine allows them. */
  Optional<NetLab> lab = Optional.empty();

  /** When the leading agent was killed, wall clock; -1 before. */
  long killedAtMillis = -1;

  DemoRun(Demo.Options options, Progress progress) {
    this.options = options;
    this.progress = progress;
  }
}
