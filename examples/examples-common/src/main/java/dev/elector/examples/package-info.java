/**
 * What the DHCP agent and the IPPool controller examples share: their command lines ({@link
 * dev.elector.examples.CommandLines}, on picocli) and their probe and metrics server ({@link
 * dev.elector.examples.ProbeServer}). Not part of Elector's published API.
 */
package dev.elector.examples;
