/**
 * The IPPool controller: {@link dev.elector.controller.IPPoolController} (embeddable), {@link
 * dev.elector.controller.ControllerConfig} and {@link dev.elector.controller.ControllerMain} (the
 * process). See {@code controller-example/README.md} for what it reconciles, its conditions, flags,
 * event lines and RBAC.
 *
 * <p>Guarantees: only the replica that holds the Lease reconciles; every write checks the
 * leadership term first and every update is conditional on the resourceVersion it was computed
 * from, so a deposed leader can land at most the writes already in flight, and none of them can
 * overwrite newer state; one address is never allocated to two MACs of a pool, because each pool's
 * allocation table is changed only by such conditional status writes.
 *
 * <p>Not guaranteed: that MACs are unique across VirtualMachineNetworkConfigs (two configs with one
 * MAC share its address); that an agent's pods actually run (AgentReady reports what the
 * Deployment's status says); cleanup of the agent's ServiceAccount and RoleBinding, which stay for
 * the namespace's other pools.
 */
package dev.elector.controller;
