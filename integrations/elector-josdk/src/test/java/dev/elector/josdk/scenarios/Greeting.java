package dev.elector.josdk.scenarios;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The example's custom resource, {@code greetings.examples.elector.dev/v1}: a name to greet. The
 * operator renders it into the ConfigMap {@code NAME-greeting}.
 */
@Group("examples.elector.dev")
@Version("v1")
public class Greeting extends CustomResource<Greeting.Spec, Void> implements Namespaced {
  private static final long serialVersionUID = 1L;

  /** What to greet, and how often to reconcile again without a change (0: only on changes). */
  public static class Spec implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private String name;
    private long resyncMillis;

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }

    public long getResyncMillis() {
      return resyncMillis;
    }

    public void setResyncMillis(long resyncMillis) {
      this.resyncMillis = resyncMillis;
    }
  }

  /**
   * A greeting for {@code name} in {@code namespace}, reconciled again every {@code resyncMillis}.
   */
  public static Greeting of(String namespace, String objectName, String name, long resyncMillis) {
    Greeting greeting = new Greeting();
    greeting.getMetadata().setNamespace(namespace);
    greeting.getMetadata().setName(objectName);
    Spec spec = new Spec();
    spec.setName(name);
    spec.setResyncMillis(resyncMillis);
    greeting.setSpec(spec);
    return greeting;
  }
}
