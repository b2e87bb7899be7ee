package dev.ordo.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class one real in-JVM KRaft Kafka cluster, started before the first test and
 * closed after the last. Inject it as a {@link RealKafka} parameter (constructor, lifecycle
 * method or test method).
 *
 * <p>{@code brokers = 1} (default) runs one combined broker+controller node. More brokers run
 * with one separate controller (3 combined nodes are broken on Kafka 4.3.1), with replication 3
 * and min ISR 2 for internal topics, so a test may stop a broker.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(KafkaClusterExtension.class)
public @interface KafkaCluster {
  int brokers() default 1;
}
