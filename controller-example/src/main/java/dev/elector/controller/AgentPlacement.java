package dev.elector.controller;

import com.google.gson.JsonParseException;
import com.google.gson.reflect.TypeToken;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1Toleration;
import java.lang.reflect.Type;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where and with what the agent pods run, beyond what the pool itself decides: the operator's node
 * selector, tolerations and resources (the chart's {@code agent.*} values, passed as JSON flags),
 * and whether two agents of one pool may share a node.
 *
 * <p>The pool decides the rest: its NetworkAttachmentDefinition's cluster network (label {@value
 * #CLUSTER_NETWORK_LABEL}) becomes a required node affinity to the nodes labelled {@code
 * network.harvesterhci.io/<clusternetwork>=true}, the nodes that carry that network.
 *
 * @param nodeSelector added to every agent pod's nodeSelector
 * @param tolerations every agent pod's tolerations
 * @param resources the agent container's requests and limits; null for none
 * @param spreadRequired true: agents of one pool never share a node (a replica stays Pending when
 *     fewer matching nodes exist than replicas); false: they avoid it where they can
 */
record AgentPlacement(
    Map<String, String> nodeSelector,
    List<V1Toleration> tolerations,
    V1ResourceRequirements resources,
    boolean spreadRequired) {

  /** Harvester's label on a NetworkAttachmentDefinition naming its cluster network. */
  static final String CLUSTER_NETWORK_LABEL = "network.harvesterhci.io/clusternetwork";

  /** Harvester's node label prefix: {@code network.harvesterhci.io/<clusternetwork>=true}. */
  static final String NODE_LABEL_PREFIX = "network.harvesterhci.io/";

  /** No selector, no tolerations, no resources, required spreading. */
  static final AgentPlacement DEFAULT = new AgentPlacement(Map.of(), List.of(), null, true);

  AgentPlacement {
    nodeSelector = Map.copyOf(nodeSelector);
    tolerations = List.copyOf(tolerations);
  }

  /** The node label an agent on {@code clusterNetwork} needs. */
  static String nodeLabel(String clusterNetwork) {
    return NODE_LABEL_PREFIX + clusterNetwork;
  }

  /**
   * Reads the JSON of a flag: {@code --agent-node-selector '{"k":"v"}'}.
   *
   * @throws IllegalArgumentException naming the flag, the value and the fix
   */
  static Map<String, String> parseNodeSelector(String json) {
    Map<String, String> parsed =
        parse("--agent-node-selector", json, new TypeToken<Map<String, String>>() {}.getType());
    return parsed == null ? Map.of() : new LinkedHashMap<>(parsed);
  }

  /** Reads {@code --agent-tolerations '[{"key":"k","operator":"Exists"}]'}. */
  static List<V1Toleration> parseTolerations(String json) {
    List<V1Toleration> parsed =
        parse("--agent-tolerations", json, new TypeToken<List<V1Toleration>>() {}.getType());
    return parsed == null ? List.of() : parsed;
  }

  /** Reads {@code --agent-resources '{"requests":{"cpu":"10m"}}'}; {@code {}} means none. */
  static V1ResourceRequirements parseResources(String json) {
    V1ResourceRequirements parsed = parse("--agent-resources", json, V1ResourceRequirements.class);
    if (parsed == null
        || (parsed.getRequests() == null || parsed.getRequests().isEmpty())
            && (parsed.getLimits() == null || parsed.getLimits().isEmpty())) {
      return null;
    }
    return parsed;
  }

  /** Reads {@code --agent-spread required|preferred}. */
  static boolean parseSpread(String value) {
    return switch (value) {
      case "required" -> true;
      case "preferred" -> false;
      default ->
          throw new IllegalArgumentException(
              "--agent-spread '"
                  + value
                  + "' is neither required nor preferred; give preferred when the cluster has"
                  + " fewer nodes on a network than --agent-replicas");
    };
  }

  private static <T> T parse(String flag, String json, Type type) {
    try {
      return JSON.getGson().fromJson(json, type);
    } catch (JsonParseException | IllegalStateException | NumberFormatException e) {
      throw new IllegalArgumentException(
          flag
              + " '"
              + json
              + "' is not valid JSON of the pod field it sets ("
              + e.getMessage()
              + "); give it like the chart does, for example with toJson",
          e);
    }
  }
}
