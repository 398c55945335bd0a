/**
 * Internal: the client-neutral machinery of the Kubernetes backends, public only because
 * elector-k8s-lease and elector-fabric8 live in other modules. Not API; anything here may change or
 * go in any release, so applications must not use it.
 *
 * <p>Here: the leader record in client-go's field names on {@code Map} values ({@link
 * dev.elector.kube.internal.RecordFields}), Kubernetes timestamps ({@link
 * dev.elector.kube.internal.KubeTimes}), the options every lock builder shares, their checks and
 * defaults ({@link dev.elector.kube.internal.LockBuilder}, {@link
 * dev.elector.kube.internal.LockOptions}), failure messages that name the missing Role rule ({@link
 * dev.elector.kube.internal.FailureText}), and the list-then-watch loop ({@link
 * dev.elector.kube.internal.ListWatchLoop}) with its request bound ({@link
 * dev.elector.kube.internal.WatchPacer}), and on them the lock itself ({@link
 * dev.elector.kube.internal.ObjectLock}), how a Lease and a ConfigMap hold the record ({@link
 * dev.elector.kube.internal.LeaseShape}, {@link dev.elector.kube.internal.ConfigMapShape}) and the
 * shared and per-lock watches ({@link dev.elector.kube.internal.SharedWatch}, {@link
 * dev.elector.kube.internal.ObjectWatch}). Each backend supplies only the transport ({@link
 * dev.elector.kube.internal.ApiTransport}, which ends a request when its {@link
 * dev.elector.kube.internal.Abort} says so) and its public lock and builder classes.
 */
@NullMarked
package dev.elector.kube.internal;

import org.jspecify.annotations.NullMarked;
