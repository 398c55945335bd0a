package dev.elector.spring;

import dev.elector.LeaderElector;
import dev.elector.Term;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Proxies every bean that has a {@link LeaderOnly} method, so that the method runs only while the
 * elector leads. {@link LeaderOnlyConfiguration} registers it, imported by the auto-configuration.
 * It lives in this package, not the auto-configuration's, because it sets {@link CurrentTerm},
 * which only this package can set.
 *
 * <p>It runs before Spring's {@code @Scheduled} and {@code @Async} post-processors (order {@value
 * #ORDER}), so that scheduled calls go through the proxy.
 *
 * <p>Without a {@link LeaderElector} bean ({@code elector.enabled=false}) no replica leads, so
 * every {@code @LeaderOnly} call is skipped, never run unguarded: the proxies are made all the
 * same, and one WARN, once the singletons exist (or at the first skipped call of a later bean),
 * names the property and the methods.
 */
final class LeaderOnlyPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
    implements SmartInitializingSingleton {
  private static final long serialVersionUID = 1L;
  private static final Logger log = LoggerFactory.getLogger(LeaderOnlyPostProcessor.class);

  /** The order of this post-processor: before the scheduling one (lowest precedence). */
  static final int ORDER = Ordered.LOWEST_PRECEDENCE - 100;

  private final transient Supplier<@Nullable LeaderElector> elector;

  /** The {@code @LeaderOnly} methods of the beans proxied so far, as Type.method. */
  private final List<String> guarded = new CopyOnWriteArrayList<>();

  /** Whether the WARN about a missing elector was logged: once per context. */
  private final AtomicBoolean warned = new AtomicBoolean();

  /**
   * A post-processor that asks {@code elector} for the current term at each call (a supplier, so
   * that the elector bean is not created with the post-processors); a null elector means that there
   * is none, and the calls are skipped.
   */
  LeaderOnlyPostProcessor(Supplier<@Nullable LeaderElector> elector) {
    this.elector = elector;
    DefaultPointcutAdvisor advisor =
        new DefaultPointcutAdvisor(
            new AnnotationMatchingPointcut(null, LeaderOnly.class, true), new Guard());
    this.advisor = advisor;
    setBeforeExistingAdvisors(true);
    setProxyTargetClass(true);
    setOrder(ORDER);
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    Class<?> type = ClassUtils.getUserClass(bean);
    ReflectionUtils.doWithMethods(
        type,
        method -> {
          Class<?> returns = method.getReturnType();
          if (returns.isPrimitive() && returns != void.class) {
            throw new BeanInitializationException(
                "@LeaderOnly method "
                    + type.getName()
                    + "."
                    + method.getName()
                    + " returns "
                    + returns
                    + ", which it cannot do when it is skipped on a follower; make it return void"
                    + " or an object (null when skipped)");
          }
          guarded.add(type.getSimpleName() + "." + method.getName());
        },
        method -> method.isAnnotationPresent(LeaderOnly.class));
    return super.postProcessAfterInitialization(bean, beanName);
  }

  /** Once every singleton exists: without an elector, says once which methods will not run. */
  @Override
  public void afterSingletonsInstantiated() {
    if (!guarded.isEmpty() && elector.get() == null) {
      warnNoElector();
    }
  }

  private void warnNoElector() {
    if (warned.compareAndSet(false, true)) {
      log.warn(
          "elector.enabled=false: no replica leads, so every call of a @LeaderOnly method is"
              + " skipped ({}); for a local run or a test, elector.lead-when-disabled=true makes"
              + " this process lead alone",
          String.join(", ", guarded));
    }
  }

  /** Runs the call only inside an active term, handing it the term. */
  private final class Guard implements MethodInterceptor {
    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
      Method method = invocation.getMethod();
      LeaderElector candidate = elector.get();
      if (candidate == null) {
        warnNoElector();
        log.debug("{} skipped: no elector (elector.enabled=false)", method.getName());
        return null;
      }
      Optional<Term> current = candidate.currentTerm().filter(Term::isActive);
      if (current.isEmpty()) {
        log.debug("{} skipped: this replica does not lead", method.getName());
        return null;
      }
      Term term = current.get();
      Object[] arguments = invocation.getArguments();
      Class<?>[] types = method.getParameterTypes();
      for (int i = 0; i < types.length; i++) {
        if (types[i] == Term.class) {
          arguments[i] = term;
        }
      }
      try {
        return CurrentTerm.with(term, invocation::proceed);
      } finally {
        if (!term.isActive()) {
          log.warn(
              "{}.{} returned after its term (fencing token {}) ended; check Term.isActive()"
                  + " between steps",
              method.getDeclaringClass().getSimpleName(),
              method.getName(),
              term.fencingToken());
        }
      }
    }
  }
}
