/**
 * Elector's own test infrastructure on the local control plane, not published: {@link
 * dev.elector.testenv.HaControlPlane} (several API servers on one etcd, behind a balancer) and
 * {@link dev.elector.testenv.Await} (waiting on a condition in real time); the network faults are
 * in {@link dev.elector.testenv.net}.
 */
@NullMarked
package dev.elector.testenv;

import org.jspecify.annotations.NullMarked;
