/**
 * Micrometer metrics of electors: {@link dev.elector.micrometer.ElectorMetrics} binds client-go's
 * leader gauge and Elector's counters to a registry. Meters are read at scrape time from the
 * electors' snapshots, never on the elector's threads.
 */
@NullMarked
package dev.elector.micrometer;

import org.jspecify.annotations.NullMarked;
