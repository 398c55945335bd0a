package dev.elector.examples.qosdk;

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

  /** What to greet. */
  public static class Spec implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private String name;

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }
  }
}
