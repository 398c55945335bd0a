package dev.elector.controller;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command line of {@link ControllerMain}: {@code --flag value} or {@code --flag=value}. Every
 * problem is a {@link FlagException} whose message names the flag, the value and the fix.
 */
final class Flags {
  static final String USAGE = String.join("\n",
      "usage: ControllerMain [flags]",
      "  --kubeconfig PATH        kubeconfig to use (default: in-cluster, else $KUBECONFIG,"
          + " else ~/.kube/config)",
      "  --agent-image IMAGE      agent image (default " + ControllerConfig.DEFAULT_AGENT_IMAGE
          + ")",
      "  --agent-replicas N       agent replicas per pool, 1-100 (default "
          + ControllerConfig.DEFAULT_AGENT_REPLICAS + ")",
      "  --lease-duration D       lease duration (default 15s)",
      "  --renew-deadline D       renew deadline (default 10s)",
      "  --retry-period D         retry period (default 2s)",
      "  --health-addr HOST:PORT  /healthz and /readyz (default 0.0.0.0:8080; port 0 picks one)",
      "  --identity ID            identity in the Lease (default POD_NAME or host name + suffix)",
      "  --lease-name NAME        Lease name (default " + ControllerConfig.DEFAULT_LEASE_NAME
          + "; namespace from POD_NAMESPACE)",
      "  --workers N              reconciler threads per resource kind, 1-64 (default "
          + ControllerConfig.DEFAULT_WORKERS + ")",
      "  --help                   print this and exit",
      "durations: 15s, 500ms, 2m, 1h, 1m30s or ISO-8601 like PT15S");
  private static final List<String> KNOWN = List.of("--kubeconfig", "--agent-image",
      "--agent-replicas", "--lease-duration", "--renew-deadline", "--retry-period",
      "--health-addr", "--identity", "--lease-name", "--workers", "--help");
  private static final Pattern DURATION_PART = Pattern.compile("(\\d+)(ms|s|m|h)");

  /** A bad command line. */
  static final class FlagException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    FlagException(String message) {
      super(message);
    }
  }

  /** Host and port to listen on. */
  record HostPort(String host, int port) {
    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  private final ControllerConfig.Builder config;
  private final Path kubeconfig;
  private final HostPort health;
  private final boolean help;

  private Flags(ControllerConfig.Builder config, Path kubeconfig, HostPort health,
      boolean help) {
    this.config = config;
    this.kubeconfig = kubeconfig;
    this.health = health;
    this.help = help;
  }

  /**
   * Parses {@code args} onto a config builder (events and clock can still be set on it).
   *
   * @throws FlagException naming the flag and the fix
   */
  static Flags parse(String... args) {
    Map<String, String> values = new LinkedHashMap<>();
    boolean help = false;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--help") || arg.equals("-h")) {
        help = true;
        continue;
      }
      if (!arg.startsWith("--")) {
        throw new FlagException("unexpected argument '" + arg + "'; every setting is a flag such"
            + " as --agent-image IMAGE (see --help)");
      }
      String name = arg;
      String value;
      int eq = arg.indexOf('=');
      if (eq > 0) {
        name = arg.substring(0, eq);
        value = arg.substring(eq + 1);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        value = null;
      }
      if (!KNOWN.contains(name)) {
        throw new FlagException("unknown flag " + name + "; known flags: "
            + String.join(" ", KNOWN));
      }
      if (value == null || value.startsWith("--")) {
        throw new FlagException("flag " + name + " needs a value, for example " + name + " "
            + example(name));
      }
      if (values.put(name, value) != null) {
        throw new FlagException("flag " + name + " is given twice; give it once");
      }
    }
    ControllerConfig.Builder config = ControllerConfig.newBuilder();
    String image = values.get("--agent-image");
    if (image != null) {
      config.agentImage(image);
    }
    if (values.containsKey("--agent-replicas")) {
      config.agentReplicas(integer("--agent-replicas", values.get("--agent-replicas")));
    }
    if (values.containsKey("--workers")) {
      config.workers(integer("--workers", values.get("--workers")));
    }
    if (values.containsKey("--lease-duration")) {
      config.leaseDuration(duration("--lease-duration", values.get("--lease-duration")));
    }
    if (values.containsKey("--renew-deadline")) {
      config.renewDeadline(duration("--renew-deadline", values.get("--renew-deadline")));
    }
    if (values.containsKey("--retry-period")) {
      config.retryPeriod(duration("--retry-period", values.get("--retry-period")));
    }
    if (values.containsKey("--identity")) {
      config.identity(values.get("--identity"));
    }
    if (values.containsKey("--lease-name")) {
      config.leaseName(values.get("--lease-name"));
    }
    Path kubeconfig = null;
    if (values.containsKey("--kubeconfig")) {
      kubeconfig = Path.of(values.get("--kubeconfig"));
      if (!Files.isReadable(kubeconfig)) {
        throw new FlagException("--kubeconfig " + kubeconfig + " cannot be read; give the path of"
            + " a kubeconfig file, or leave the flag out to use in-cluster config, $KUBECONFIG"
            + " or ~/.kube/config");
      }
    }
    HostPort health = hostPort("--health-addr", values.getOrDefault("--health-addr",
        "0.0.0.0:8080"));
    try {
      config.build();
    } catch (IllegalArgumentException e) {
      throw new FlagException(e.getMessage());
    }
    return new Flags(config, kubeconfig, health, help);
  }

  /** The settings, as a builder (so a caller can add what flags do not set). */
  ControllerConfig.Builder config() {
    return config;
  }

  /** The --kubeconfig file, or null for client-java's standard resolution. */
  Path kubeconfig() {
    return kubeconfig;
  }

  HostPort health() {
    return health;
  }

  boolean help() {
    return help;
  }

  /** Parses 15s, 500ms, 2m, 1h, 1m30s or ISO-8601 (PT15S). */
  static Duration duration(String flag, String text) {
    String trimmed = text.trim();
    Duration parsed = null;
    if (trimmed.startsWith("P") || trimmed.startsWith("p")) {
      try {
        parsed = Duration.parse(trimmed);
      } catch (DateTimeParseException e) {
        parsed = null;
      }
    } else if (!trimmed.isEmpty()) {
      Matcher m = DURATION_PART.matcher(trimmed);
      int at = 0;
      Duration sum = Duration.ZERO;
      while (at < trimmed.length() && m.find(at) && m.start() == at) {
        long n = Long.parseLong(m.group(1));
        sum = sum.plus(switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          default -> Duration.ofHours(n);
        });
        at = m.end();
      }
      parsed = at == trimmed.length() ? sum : null;
    }
    if (parsed == null) {
      throw new FlagException(flag + " '" + text + "' is not a duration; write it like 15s,"
          + " 500ms, 2m, 1m30s or PT15S");
    }
    if (parsed.isZero() || parsed.isNegative()) {
      throw new FlagException(flag + " " + text + " must be positive, for example 15s");
    }
    return parsed;
  }

  static HostPort hostPort(String flag, String text) {
    int colon = text.lastIndexOf(':');
    String host = colon < 0 ? "" : text.substring(0, colon);
    String port = colon < 0 ? "" : text.substring(colon + 1);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (!port.matches("\\d{1,5}") || Integer.parseInt(port) > 65535) {
      throw new FlagException(flag + " '" + text + "' is not HOST:PORT; write it like"
          + " 0.0.0.0:8080 or 127.0.0.1:0 (port 0 picks a free port)");
    }
    return new HostPort(host.isEmpty() ? "0.0.0.0" : host, Integer.parseInt(port));
  }

  private static int integer(String flag, String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new FlagException(flag + " '" + text + "' is not a whole number; write it like "
          + example(flag));
    }
  }

  private static String example(String flag) {
    return switch (flag) {
      case "--kubeconfig" -> "/home/me/.kube/config";
      case "--agent-image" -> ControllerConfig.DEFAULT_AGENT_IMAGE;
      case "--agent-replicas", "--workers" -> "2";
      case "--lease-duration" -> "15s";
      case "--renew-deadline" -> "10s";
      case "--retry-period" -> "2s";
      case "--health-addr" -> "0.0.0.0:8080";
      case "--identity" -> "replica-a";
      default -> "ippool-controller";
    };
  }
}
