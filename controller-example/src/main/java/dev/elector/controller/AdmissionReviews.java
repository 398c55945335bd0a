package dev.elector.controller;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.elector.ippool.IPPool;
import dev.elector.ippool.IPv4Status;
import dev.elector.ippool.VirtualMachineNetworkConfig;
import io.kubernetes.client.openapi.JSON;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Answers AdmissionReview v1 requests for IPPools and VirtualMachineNetworkConfigs with the rules
 * the controller applies at reconcile ({@link PoolValidation}, {@link VmConfigRules}, {@link
 * PoolUsage}) and upstream's defaults ({@link PoolDefaults}):
 *
 * <ul>
 *   <li>validate, IPPool CREATE and UPDATE: every problem of the spec, including those a stored
 *       pool is spared, a network another pool serves ({@link OnePoolPerNetwork}), and at CREATE a
 *       NetworkAttachmentDefinition that does not exist (upstream's rule, unless turned off); an
 *       UPDATE that leaves the spec as it was (finalizers, annotations) always passes, one that
 *       changes upstream's immutable fields is refused ({@link PoolImmutability}, unless
 *       renumbering is allowed), and one that moves serverIP onto an address allocated to a MAC is
 *       refused;
 *   <li>validate, IPPool DELETE: refused while a VirtualMachineNetworkConfig uses the pool (a pool
 *       whose network another pool serves has no users);
 *   <li>validate, VirtualMachineNetworkConfig CREATE: {@link VmConfigRules};
 *   <li>mutate, IPPool CREATE: serverIP and the range filled in when left out; a /31 or /32, which
 *       has no address to fill in, refused.
 * </ul>
 *
 * <p>Anything else is allowed. Pure: the caches come in as functions.
 */
final class AdmissionReviews {
  /** Path of the validating webhook. */
  static final String VALIDATE = "/validate";

  /** Path of the mutating webhook. */
  static final String MUTATE = "/mutate";

  private static final Gson GSON = new Gson();

  private final Function<String, List<IPPool>> poolsOnNetwork;
  private final Function<String, List<VirtualMachineNetworkConfig>> configsOnNetwork;
  private final Cidr serviceCidr;
  private final boolean renumbering;
  private final Function<String, Optional<String>> missingNetwork;

  /**
   * @param serviceCidr the cluster's service CIDR, or null to skip the overlap check
   * @param renumbering whether an UPDATE may change upstream's immutable fields ({@link
   *     PoolImmutability})
   * @param missingNetwork why a new pool's network ("NAMESPACE/NAME") cannot be used, empty when it
   *     exists (or cannot be told); null to admit a pool before its network
   */
  AdmissionReviews(
      Function<String, List<IPPool>> poolsOnNetwork,
      Function<String, List<VirtualMachineNetworkConfig>> configsOnNetwork,
      Cidr serviceCidr,
      boolean renumbering,
      Function<String, Optional<String>> missingNetwork) {
    this.poolsOnNetwork = poolsOnNetwork;
    this.configsOnNetwork = configsOnNetwork;
    this.serviceCidr = serviceCidr;
    this.renumbering = renumbering;
    this.missingNetwork = missingNetwork;
  }

  /**
   * The AdmissionReview answering {@code body}, sent to {@code path}.
   *
   * @throws IllegalArgumentException when {@code body} is not an AdmissionReview v1 request
   */
  String answer(String path, String body) {
    JsonObject review;
    try {
      review = JsonParser.parseString(body).getAsJsonObject();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("the body is not JSON: " + e.getMessage(), e);
    }
    JsonObject request = review.getAsJsonObject("request");
    if (request == null || !request.has("uid")) {
      throw new IllegalArgumentException("the body is not an AdmissionReview request");
    }
    String uid = request.get("uid").getAsString();
    String kind = request.getAsJsonObject("kind").get("kind").getAsString();
    String operation = request.get("operation").getAsString();
    JsonObject response = new JsonObject();
    response.addProperty("uid", uid);
    response.addProperty("allowed", true);
    if (MUTATE.equals(path)) {
      if (IPPool.KIND.equals(kind) && "CREATE".equals(operation)) {
        IPPool pool = object(request, "object", IPPool.class);
        Optional<String> refusal = PoolDefaults.refusal(pool.getSpec());
        List<PoolDefaults.Operation> ops = PoolDefaults.fill(pool.getSpec());
        if (refusal.isPresent()) {
          deny(response, kind, operation, request, List.of(refusal.get()));
        } else if (!ops.isEmpty()) {
          response.addProperty("patchType", "JSONPatch");
          response.addProperty(
              "patch",
              Base64.getEncoder()
                  .encodeToString(GSON.toJson(ops).getBytes(StandardCharsets.UTF_8)));
        }
      }
    } else if (VALIDATE.equals(path)) {
      List<String> problems = problems(kind, operation, request);
      if (!problems.isEmpty()) {
        deny(response, kind, operation, request, problems);
      }
    } else {
      throw new IllegalArgumentException(
          "no webhook at " + path + "; use " + VALIDATE + " or " + MUTATE);
    }
    JsonObject out = new JsonObject();
    out.addProperty("apiVersion", "admission.k8s.io/v1");
    out.addProperty("kind", "AdmissionReview");
    out.add("response", response);
    return out.toString();
  }

  private static void deny(
      JsonObject response,
      String kind,
      String operation,
      JsonObject request,
      List<String> problems) {
    response.addProperty("allowed", false);
    JsonObject status = new JsonObject();
    status.addProperty("code", "DELETE".equals(operation) ? 409 : 422);
    status.addProperty("reason", "DELETE".equals(operation) ? "Conflict" : "Invalid");
    status.addProperty(
        "message", kind + " " + name(request) + " is refused: " + String.join("; ", problems));
    response.add("status", status);
  }

  private List<String> problems(String kind, String operation, JsonObject request) {
    if (IPPool.KIND.equals(kind)) {
      switch (operation) {
        case "CREATE":
          return poolProblems(object(request, "object", IPPool.class), null);
        case "UPDATE":
          return poolProblems(
              object(request, "object", IPPool.class), object(request, "oldObject", IPPool.class));
        case "DELETE":
          IPPool old = object(request, "oldObject", IPPool.class);
          List<String> users = PoolUsage.users(old, poolsOnNetwork, configsOnNetwork);
          return users.isEmpty() ? List.of() : List.of(PoolUsage.message(old, users));
        default:
          return List.of();
      }
    }
    if (VirtualMachineNetworkConfig.KIND.equals(kind) && "CREATE".equals(operation)) {
      return VmConfigRules.problems(
          object(request, "object", VirtualMachineNetworkConfig.class),
          network -> OnePoolPerNetwork.servingOnly(poolsOnNetwork.apply(network)));
    }
    return List.of();
  }

  private List<String> poolProblems(IPPool pool, IPPool old) {
    if (old != null && Objects.equals(old.getSpec(), pool.getSpec())) {
      return List.of();
    }
    List<String> problems = new ArrayList<>();
    if (old != null && !renumbering) {
      PoolImmutability.refusal(old.getSpec(), pool.getSpec()).ifPresent(problems::add);
    }
    PoolValidation.validate(pool.getSpec(), serviceCidr)
        .problems()
        .forEach(p -> problems.add(p.message()));
    String network = pool.getSpec() == null ? null : pool.getSpec().getNetworkName();
    if (network != null) {
      OnePoolPerNetwork.servedByOther(pool, poolsOnNetwork.apply(network))
          .ifPresent(owner -> problems.add(OnePoolPerNetwork.refusal(pool, owner)));
      if (old == null && missingNetwork != null && network.indexOf('/') > 0) {
        missingNetwork.apply(network).ifPresent(problems::add);
      }
    }
    if (old != null && old.getStatus() != null && old.getStatus().getIpv4() != null) {
      String server =
          pool.getSpec() == null || pool.getSpec().getIpv4Config() == null
              ? null
              : pool.getSpec().getIpv4Config().getServerIP();
      Map<String, String> allocated = old.getStatus().getIpv4().getAllocated();
      String holder = server == null ? null : allocated.get(server.trim());
      if (holder != null && !IPv4Status.isMarker(holder)) {
        problems.add(
            "spec.ipv4Config.serverIP "
                + server
                + " is allocated to MAC "
                + holder
                + "; choose a free address of the pool for serverIP");
      }
    }
    return problems;
  }

  private static <T> T object(JsonObject request, String member, Class<T> type) {
    JsonElement element = request.get(member);
    if (element == null || element.isJsonNull()) {
      throw new IllegalArgumentException("the request has no " + member);
    }
    return JSON.deserialize(element.toString(), type);
  }

  private static String name(JsonObject request) {
    String namespace = request.has("namespace") ? request.get("namespace").getAsString() : "";
    String name = request.has("name") ? request.get("name").getAsString() : "";
    return namespace + "/" + name;
  }
}
