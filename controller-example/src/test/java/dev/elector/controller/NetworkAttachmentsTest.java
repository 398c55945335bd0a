package dev.elector.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** What a failed lookup of a pool's NetworkAttachmentDefinition tells the operator. */
class NetworkAttachmentsTest {

  @Test
  void aMissingObjectIsToldFromAMissingCrdByTheStatusDetails() {
    // As the API server answers: the object's 404 names it in details, the type's 404 does not.
    String objectGone =
        "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"NotFound\","
            + "\"details\":{\"name\":\"net-48\",\"group\":\"k8s.cni.cncf.io\","
            + "\"kind\":\"network-attachment-definitions\"},\"code\":404}";
    String typeGone =
        "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"the server could"
            + " not find the requested resource\",\"reason\":\"NotFound\",\"details\":{},\"code\":404}";

    NetworkAttachments.Check object = NetworkAttachments.fromError("nads/net-48", 404, objectGone);
    NetworkAttachments.Check type = NetworkAttachments.fromError("nads/net-48", 404, typeGone);

    assertFalse(object.found());
    assertEquals("NetworkNotFound", object.reason());
    assertTrue(
        object
            .message()
            .startsWith(
                "NetworkAttachmentDefinition nads/net-48 does not"
                    + " exist; create it, or fix spec.networkName"),
        object.message());
    assertEquals("MultusNotInstalled", type.reason());
    assertTrue(type.message().contains("install Multus"), type.message());
    assertEquals(
        "MultusNotInstalled",
        NetworkAttachments.fromError("nads/net-48", 404, "404 page not found").reason());
  }

  @Test
  void aMissingPermissionNamesTheRuleToAdd() {
    NetworkAttachments.Check check = NetworkAttachments.fromError("nads/net-48", 403, "{}");

    assertEquals("Forbidden", check.reason());
    assertTrue(
        check
            .message()
            .contains(
                "{apiGroups: [\"k8s.cni.cncf.io\"], resources:"
                    + " [\"network-attachment-definitions\"], verbs: [\"get\"]}"),
        check.message());
  }

  @Test
  void anyOtherFailureSaysWhenItIsTriedAgain() {
    NetworkAttachments.Check check = NetworkAttachments.fromError("nads/net-48", 503, "");

    assertEquals("NetworkCheckFailed", check.reason());
    assertTrue(check.message().endsWith("looked up again in 10 s"), check.message());
  }
}
