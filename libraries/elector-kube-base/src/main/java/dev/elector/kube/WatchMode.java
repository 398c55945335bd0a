package dev.elector.kube;

/**
 * How a Kubernetes lock watches its object while it follows.
 *
 * <p>{@link #AUTO} is the default of every lock builder: locks share one watch of the whole
 * collection when the identity may list and watch it, and each watches its own object otherwise.
 */
public enum WatchMode {
  /**
   * Share one watch of the collection (every Lease, or every ConfigMap, in the namespace) among all
   * locks of that collection built on the same client, as {@link #SHARED} does, while the identity
   * may list and watch the collection. The first 403 of the shared watch decides, once per client
   * and collection: the locks then watch their own objects as with {@link #PER_LOCK}, and so do
   * locks built later. One INFO line says which mode is used and why.
   */
  AUTO,
  /**
   * Always share one watch of the collection: one thread and one connection however many locks.
   * Needs {@code list} and {@code watch} on the whole collection in the namespace; without them the
   * watch reports 403 once with the rule to add, and followers poll meanwhile.
   */
  SHARED,
  /**
   * Each lock watches its own object by name on a thread of its own; needs {@code list} and {@code
   * watch} on that one name only.
   */
  PER_LOCK
}
