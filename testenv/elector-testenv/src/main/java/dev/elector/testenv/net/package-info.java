/**
 * Network faults for tests against a real server: {@link dev.elector.testenv.net.FaultProxy}, a TCP
 * proxy per client that adds latency, rate limits, blackholes, resets and refusals at run time, and
 * {@link dev.elector.testenv.net.HttpFaults}, an OkHttp interceptor that answers a share of
 * requests with 500 or 429 without sending them. The proxy needs only the JDK; {@code HttpFaults}
 * needs OkHttp, which client-java brings.
 *
 * <p>Guarantees: faults apply from the moment the control call returns; the proxy never reorders or
 * alters bytes; closing leaves no thread behind. Not provided: faults inside TLS (the proxy sees
 * only ciphertext), UDP, or packet-level effects such as loss and duplication.
 */
@NullMarked
package dev.elector.testenv.net;

import org.jspecify.annotations.NullMarked;
