/**
 * The {@code network.harvesterhci.io/v1alpha1} custom resources shared by the DHCP agent and the
 * IPPool controller: {@link dev.elector.ippool.IPPool} and {@link
 * dev.elector.ippool.VirtualMachineNetworkConfig}, their CRD manifests ({@link
 * dev.elector.ippool.NetworkCrds}) and typed API access ({@link dev.elector.ippool.NetworkApis}).
 *
 * <p>The model classes are plain JSON beans in the style of client-java's generated models:
 * mutable, with fluent setters, (de)serialised by the client's Gson.
 */
package dev.elector.ippool;
