package dev.elector.quarkus.deployment.internal;

import dev.elector.kube.LockKind;
import dev.elector.kube.WatchMode;
import dev.elector.quarkus.internal.LockKindConverter;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.ApplicationInfoBuildItem;
import io.quarkus.kubernetes.spi.KubernetesEffectiveServiceAccountBuildItem;
import io.quarkus.kubernetes.spi.KubernetesEnvBuildItem;
import io.quarkus.kubernetes.spi.KubernetesRoleBindingBuildItem;
import io.quarkus.kubernetes.spi.KubernetesRoleBuildItem;
import io.quarkus.kubernetes.spi.KubernetesServiceAccountBuildItem;
import io.quarkus.kubernetes.spi.PolicyRule;
import io.quarkus.kubernetes.spi.RoleRef;
import io.quarkus.kubernetes.spi.Subject;
import io.quarkus.runtime.configuration.ConfigurationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What elector-quarkus adds to the manifests that quarkus-kubernetes (or quarkus-openshift,
 * quarkus-knative) generates: {@code POD_NAME} and {@code POD_NAMESPACE} from the Downward API, the
 * variables the elector reads for its identity and namespace; a Role granting what the elector
 * needs on its lock, as deploy/lease/rbac.yaml and deploy/configmap/rbac.yaml do; a RoleBinding of
 * it to the application's effective ServiceAccount; and that ServiceAccount, unless the application
 * names one of its own.
 *
 * <p>The lock's settings are run-time properties: these steps read their values as the build sees
 * them (application.properties and the build's profile). Without quarkus-kubernetes nothing
 * consumes these build items, so Quarkus does not run the steps.
 */
class KubernetesManifestProcessor {
  private static final Logger log = LoggerFactory.getLogger(KubernetesManifestProcessor.class);

  private static final String PREFIX = "quarkus.elector.";

  /** A property of quarkus-kubernetes, -openshift or -knative that names the service account. */
  private static final Pattern SERVICE_ACCOUNT_PROPERTY =
      Pattern.compile(
          "quarkus\\.(kubernetes|openshift|knative)\\.(service-account|rbac\\.service-accounts\\..*)");

  @BuildStep(onlyIf = Contributes.class)
  void podEnvironment(BuildProducer<KubernetesEnvBuildItem> env) {
    env.produce(KubernetesEnvBuildItem.createFromField("POD_NAME", "metadata.name", null));
    env.produce(
        KubernetesEnvBuildItem.createFromField("POD_NAMESPACE", "metadata.namespace", null));
  }

  /**
   * The application's own ServiceAccount, named after it, so that the Deployment runs as the
   * account the RoleBinding names; not when the application names a service account itself.
   */
  @BuildStep(onlyIf = Contributes.class)
  void serviceAccount(BuildProducer<KubernetesServiceAccountBuildItem> accounts) {
    for (String property : ConfigProvider.getConfig().getPropertyNames()) {
      if (SERVICE_ACCOUNT_PROPERTY.matcher(property).matches()) {
        return;
      }
    }
    accounts.produce(new KubernetesServiceAccountBuildItem(false));
  }

  /** The Role and its RoleBinding, for each target's effective ServiceAccount. */
  @BuildStep(onlyIf = Contributes.class)
  void rbac(
      ApplicationInfoBuildItem application,
      List<KubernetesEffectiveServiceAccountBuildItem> accounts,
      BuildProducer<KubernetesRoleBuildItem> roles,
      BuildProducer<KubernetesRoleBindingBuildItem> bindings) {
    Config config = ConfigProvider.getConfig();
    Optional<String> namespace = config.getOptionalValue(PREFIX + "namespace", String.class);
    if (namespace.isPresent()) {
      log.warn(
          "{}namespace is {}, so the lock is not in the application's own namespace: the generated"
              + " manifests get no Role or RoleBinding for it; grant it as deploy/lease/rbac.yaml"
              + " shows, in namespace {}, or remove {}namespace",
          PREFIX,
          namespace.get(),
          namespace.get(),
          PREFIX);
      return;
    }
    List<PolicyRule> rules = rules(config, application.getName());
    String role = application.getName() + "-leader-election";
    for (KubernetesEffectiveServiceAccountBuildItem account : accounts) {
      roles.produce(new KubernetesRoleBuildItem(role, rules, account.getTarget()));
      bindings.produce(
          new KubernetesRoleBindingBuildItem(
              role,
              account.getTarget(),
              Map.of(),
              new RoleRef(role, false),
              new Subject(
                  null,
                  "ServiceAccount",
                  account.getServiceAccountName(),
                  account.getNamespace())));
    }
  }

  /**
   * What the elector needs on its lock: get, list, watch and patch on the lock object by name (the
   * lock lists and watches with a field selector on its name), create on the kind (Kubernetes
   * cannot restrict create by name); create on events when {@code record-events} is true; list and
   * watch on the whole kind when followers share one watch ({@code watch-mode=shared}).
   */
  static List<PolicyRule> rules(Config config, String applicationName) {
    String kind = config.getOptionalValue(PREFIX + "lock-kind", String.class).orElse("lease");
    LockKind lockKind;
    try {
      lockKind = new LockKindConverter().convert(kind);
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(PREFIX + "lock-kind: " + e.getMessage(), e);
    }
    String name = config.getOptionalValue(PREFIX + "name", String.class).orElse(applicationName);
    List<String> group = List.of(lockKind == LockKind.CONFIG_MAP ? "" : "coordination.k8s.io");
    List<String> resource = List.of(lockKind == LockKind.CONFIG_MAP ? "configmaps" : "leases");
    List<PolicyRule> rules = new ArrayList<>();
    rules.add(
        new PolicyRule(
            group, null, List.of(name), resource, List.of("get", "list", "watch", "patch")));
    rules.add(new PolicyRule(group, resource, List.of("create")));
    if (config.getOptionalValue(PREFIX + "record-events", Boolean.class).orElse(false)) {
      rules.add(new PolicyRule(List.of(""), List.of("events"), List.of("create")));
    }
    boolean watch = config.getOptionalValue(PREFIX + "watch", Boolean.class).orElse(true);
    Optional<WatchMode> mode = config.getOptionalValue(PREFIX + "watch-mode", WatchMode.class);
    if (watch && mode.filter(m -> m == WatchMode.SHARED).isPresent()) {
      rules.add(new PolicyRule(group, resource, List.of("list", "watch")));
    }
    return List.copyOf(rules);
  }

  /**
   * Whether {@code quarkus.elector.enabled} and {@code quarkus.elector.kubernetes.enabled} are both
   * true.
   */
  static final class Contributes implements BooleanSupplier {
    private final ElectorBuildTimeConfig config;

    Contributes(ElectorBuildTimeConfig config) {
      this.config = config;
    }

    @Override
    public boolean getAsBoolean() {
      return config.enabled() && config.kubernetes().enabled();
    }
  }
}
