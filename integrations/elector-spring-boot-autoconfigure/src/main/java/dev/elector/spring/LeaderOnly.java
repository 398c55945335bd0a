package dev.elector.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only while this replica leads; otherwise the call returns at once
 * without running it ({@code null} for a method that returns a value; methods that return a
 * primitive other than {@code void} are refused at start-up). Meant for {@code @Scheduled} methods
 * and other bean methods; the auto-configuration proxies every bean with such a method.
 *
 * <p>The method learns its term two ways: a parameter of type {@link dev.elector.Term} receives the
 * current term (whatever the caller passed), and {@link CurrentTerm#get()} returns it on the
 * calling thread for the length of the call (the way for {@code @Scheduled} methods, which take no
 * parameters). A term that ends while the method runs does not interrupt it: the method checks
 * {@link dev.elector.Term#isActive()} between steps, or reacts to {@link
 * dev.elector.Term#whenEnded()}. A call that returns after its term ended is logged at WARN.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface LeaderOnly {}
