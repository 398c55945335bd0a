package dev.elector.k8s;

import dev.elector.kube.KubeLock;
import dev.elector.lock.LeaderRecord;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The Lease lock on a real API server; outside writes go through client-java's typed API. Public so
 * that other Lease backends (elector-fabric8) run the same scenarios with their own lock.
 */
public class LeaseLockIT extends AbstractKubeLockIT {

  @Override
  protected KubeLock newLock(ApiClient client, String namespace, String name, String identity) {
    return LeaseLock.newBuilder(client)
        .namespace(namespace)
        .name(name)
        .identity(identity)
        .requestTimeout(REQUEST_TIMEOUT)
        .build();
  }

  @Override
  protected List<Path> rbacManifests() {
    return List.of(
        Path.of(System.getProperty("elector.repository.root", ".."), "deploy/lease/rbac.yaml"));
  }

  @Override
  protected void writeForeignRecord(
      String namespace,
      String name,
      String holder,
      int leaseDurationSeconds,
      Instant renewTime,
      long transitions)
      throws ApiException {
    CoordinationV1Api api = new CoordinationV1Api(admin);
    OffsetDateTime renew = renewTime.atOffset(ZoneOffset.UTC);
    V1LeaseSpec spec =
        new V1LeaseSpec()
            .holderIdentity(holder)
            .leaseDurationSeconds(leaseDurationSeconds)
            .acquireTime(renew)
            .renewTime(renew)
            .leaseTransitions((int) transitions);
    for (int attempt = 0; ; attempt++) {
      try {
        V1Lease current = api.readNamespacedLease(name, namespace).execute();
        api.replaceNamespacedLease(name, namespace, current.spec(spec)).execute();
        return;
      } catch (ApiException e) {
        if (e.getCode() == 404) {
          api.createNamespacedLease(
                  namespace,
                  new V1Lease()
                      .apiVersion("coordination.k8s.io/v1")
                      .kind("Lease")
                      .metadata(new V1ObjectMeta().name(name))
                      .spec(spec))
              .execute();
          return;
        }
        if (e.getCode() != 409 || attempt > 10) {
          throw e;
        }
      }
    }
  }

  @Override
  protected void editMetadata(
      String namespace, String name, String label, String value, @Nullable String preferredHolder)
      throws ApiException {
    CoordinationV1Api api = new CoordinationV1Api(admin);
    for (int attempt = 0; ; attempt++) {
      try {
        V1Lease current = api.readNamespacedLease(name, namespace).execute();
        current.getMetadata().putLabelsItem(label, value);
        if (preferredHolder != null) {
          current.getMetadata().putAnnotationsItem(LeaderRecord.PREFERRED_HOLDER, preferredHolder);
        }
        api.replaceNamespacedLease(name, namespace, current).execute();
        return;
      } catch (ApiException e) {
        if (e.getCode() != 409 || attempt > 10) {
          throw e;
        }
      }
    }
  }

  @Override
  protected void deleteObject(String namespace, String name) throws ApiException {
    new CoordinationV1Api(admin).deleteNamespacedLease(name, namespace).execute();
  }

  @Override
  protected Optional<Stored> readStored(String namespace, String name) throws ApiException {
    try {
      V1LeaseSpec spec =
          new CoordinationV1Api(admin).readNamespacedLease(name, namespace).execute().getSpec();
      return Optional.of(
          new Stored(
              spec.getHolderIdentity(),
              spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions()));
    } catch (ApiException e) {
      if (e.getCode() == 404) {
        return Optional.empty();
      }
      throw e;
    }
  }
}
