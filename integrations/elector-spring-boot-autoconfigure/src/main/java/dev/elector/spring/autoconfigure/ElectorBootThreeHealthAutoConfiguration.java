package dev.elector.spring.autoconfigure;

import dev.elector.ElectorStats;
import dev.elector.LeaderElector;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * The {@code elector} health indicator on Spring Boot 3.5, whose health API ({@code
 * org.springframework.boot.actuate.health}) is not Boot 4's. This jar is compiled against Boot 4,
 * so the indicator is a proxy of Boot 3.5's {@code HealthIndicator} interface, built from the same
 * status and details as the Boot 4 indicator ({@link ElectorHealthAutoConfiguration}) through Boot
 * 3.5's public {@code Health} builder. It is registered with that interface as its bean type, so
 * the health endpoint finds it as it finds any indicator. Off with {@code
 * management.health.elector.enabled=false} or {@code management.health.defaults.enabled=false}, as
 * Boot's own indicators; an application's own {@code electorHealthIndicator} bean wins.
 */
@AutoConfiguration(after = {ElectorAutoConfiguration.class, ElectorDisabledAutoConfiguration.class})
@ConditionalOnClass(name = ElectorBootThreeHealthAutoConfiguration.INDICATOR)
@ConditionalOnMissingClass("org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnBean(LeaderElector.class)
@Conditional(ElectorBootThreeHealthAutoConfiguration.Enabled.class)
@org.springframework.context.annotation.Import(
    ElectorBootThreeHealthAutoConfiguration.Registrar.class)
final class ElectorBootThreeHealthAutoConfiguration {
  static final String INDICATOR = "org.springframework.boot.actuate.health.HealthIndicator";
  static final String HEALTH = "org.springframework.boot.actuate.health.Health";
  static final String BEAN_NAME = "electorHealthIndicator";

  /** Boot's rule for an indicator: its own property, else the defaults' property, else on. */
  static final class Enabled implements Condition {
    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
      Environment environment = context.getEnvironment();
      Boolean own = environment.getProperty("management.health.elector.enabled", Boolean.class);
      if (own != null) {
        return own;
      }
      return environment.getProperty("management.health.defaults.enabled", Boolean.class, true);
    }
  }

  /** Registers the proxy with Boot 3.5's interface as its type, unless the application has one. */
  static final class Registrar implements ImportBeanDefinitionRegistrar, BeanFactoryAware {
    private @Nullable BeanFactory beanFactory;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
      this.beanFactory = beanFactory;
    }

    @Override
    public void registerBeanDefinitions(
        AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
      if (registry.containsBeanDefinition(BEAN_NAME)) {
        return;
      }
      ClassLoader loader = ElectorBootThreeHealthAutoConfiguration.class.getClassLoader();
      Class<?> indicator = ClassUtils.resolveClassName(INDICATOR, loader);
      Class<?> health = ClassUtils.resolveClassName(HEALTH, loader);
      BeanFactory factory = Objects.requireNonNull(beanFactory, "beanFactory");
      RootBeanDefinition definition = new RootBeanDefinition();
      definition.setTargetType(indicator);
      definition.setInstanceSupplier(
          () -> indicator(indicator, health, factory.getBean(LeaderElector.class)));
      registry.registerBeanDefinition(BEAN_NAME, definition);
    }
  }

  /** A Boot 3.5 {@code HealthIndicator} reporting {@code elector}'s health. */
  static Object indicator(Class<?> indicator, Class<?> health, LeaderElector elector) {
    Method up = method(health, "up");
    Method down = method(health, "down");
    Method withDetails = method(up.getReturnType(), "withDetails", Map.class);
    Method build = method(up.getReturnType(), "build");
    InvocationHandler handler =
        (proxy, method, args) -> {
          switch (method.getName()) {
            case "health":
              if (method.getParameterCount() == 0) {
                ElectorStats now = elector.stats();
                Object builder = (now.healthy() ? up : down).invoke(null);
                withDetails.invoke(builder, ElectorDetails.of(elector, now));
                return build.invoke(builder);
              }
              break;
            case "toString":
              return "elector health indicator of " + elector.describe();
            case "hashCode":
              return System.identityHashCode(proxy);
            case "equals":
              return proxy == args[0];
            default:
              break;
          }
          if (method.isDefault()) {
            try {
              return InvocationHandler.invokeDefault(proxy, method, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          }
          throw new UnsupportedOperationException(method.toString());
        };
    return Proxy.newProxyInstance(indicator.getClassLoader(), new Class<?>[] {indicator}, handler);
  }

  private static Method method(Class<?> type, String name, Class<?>... parameters) {
    try {
      return type.getMethod(name, parameters);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(
          "Spring Boot 3.5's " + type.getName() + " has no " + name + ": an unsupported Boot", e);
    }
  }
}
