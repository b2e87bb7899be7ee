package dev.ordo.testing;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/** Starts the {@link KafkaCluster} of a test class once and closes it with the class's store. */
public final class KafkaClusterExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(KafkaClusterExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == RealKafka.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return cluster(context);
  }

  private static RealKafka cluster(ExtensionContext context) {
    Class<?> testClass = context.getRequiredTestClass();
    while (testClass.getAnnotation(KafkaCluster.class) == null && testClass.getEnclosingClass() != null) {
      testClass = testClass.getEnclosingClass();
    }
    KafkaCluster spec = testClass.getAnnotation(KafkaCluster.class);
    if (spec == null) {
      throw new ParameterResolutionException("annotate the test class with @KafkaCluster");
    }
    // Stored in the annotated class's own context: its store closes the cluster after that class,
    // so clusters of earlier classes do not stay up (and use memory and CPU) for the whole run.
    ExtensionContext owner = context;
    while (!(owner.getElement().orElse(null) == testClass) && owner.getParent().isPresent()) {
      owner = owner.getParent().get();
    }
    ExtensionContext.Store store = owner.getStore(NAMESPACE);
    Class<?> key = testClass;
    return store.getOrComputeIfAbsent(key, k -> RealKafka.start(spec.brokers()), RealKafka.class);
  }
}
