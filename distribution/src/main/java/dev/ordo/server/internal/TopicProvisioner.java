package dev.ordo.server.internal;

import dev.ordo.api.TopicsReady;
import dev.ordo.server.ClusterLayout;
import dev.ordo.server.ServerConfig;
import dev.ordo.server.StartupException;
import dev.ordo.server.TopicSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the missing topics of a {@link ClusterLayout} and checks that the existing ones agree
 * with it: equal partition counts for the co-partitioned topics, and each topic's required configs.
 */
public final class TopicProvisioner {
  private static final Logger LOG = LoggerFactory.getLogger(TopicProvisioner.class);
  private static final long TIMEOUT_S = 30;

  private final Admin admin;

  public TopicProvisioner(Admin admin) {
    this.admin = admin;
  }

  /** What {@link #ensure} found and did. */
  public record Result(ClusterLayout layout, List<String> created) {}

  /**
   * Makes the cluster's topics exist and agree with the layout of {@code base}.
   *
   * @param requestedPartitions the partition count asked for; when empty, existing co-partitioned
   *     topics decide it (else {@link ServerConfig#DEFAULT_PARTITIONS})
   * @return the layout in force (its partition count) and the topics created
   */
  public Result ensure(ClusterLayout base, OptionalInt requestedPartitions) {
    List<String> created = new ArrayList<>();
    for (int attempt = 1; ; attempt++) {
      Map<String, TopicDescription> existing = describeExisting(base.specs());
      ClusterLayout layout = check(base, requestedPartitions, existing);
      List<NewTopic> missing = new ArrayList<>();
      for (TopicSpec spec : layout.specs()) {
        if (!existing.containsKey(spec.name())) {
          missing.add(new NewTopic(spec.name(), Optional.of(spec.partitions()), Optional.empty()).configs(spec.configs()));
        }
      }
      if (missing.isEmpty()) {
        return new Result(layout, sorted(created));
      }
      List<String> made = new ArrayList<>();
      List<String> raced = new ArrayList<>();
      create(missing, made, raced);
      if (!made.isEmpty()) {
        LOG.info("Created topics {}", sorted(made));
        created.addAll(made);
      }
      // A topic is in the controller's metadata before every broker knows it, and in a broker's
      // metadata before its partitions take writes: wait until every partition's leader answers, so
      // that components (and the checks below) find it and the first writes are not refused.
      awaitReady(made);
      awaitReady(raced);
      if (raced.isEmpty()) {
        return new Result(layout, sorted(created));
      }
      // Someone else made some of them meanwhile (another ordo instance, or a topic not yet
      // visible to the broker we asked): check them like any existing topic.
      if (attempt >= 3) {
        throw new StartupException("topics " + raced + " keep appearing and disappearing; is another tool deleting them?");
      }
    }
  }

  /** Checks the existing topics against the layout; returns the layout with the partition count in force. */
  private ClusterLayout check(ClusterLayout base, OptionalInt requestedPartitions, Map<String, TopicDescription> existing) {
    // 1. The partition count: co-partitioned topics must agree among themselves and with the flag.
    Map<String, Integer> coCounts = new TreeMap<>();
    for (TopicSpec spec : base.coPartitioned()) {
      TopicDescription d = existing.get(spec.name());
      if (d != null) {
        coCounts.put(spec.name(), d.partitions().size());
      }
    }
    Set<Integer> distinct = Set.copyOf(coCounts.values());
    if (distinct.size() > 1) {
      throw new StartupException("topics " + describeCounts(coCounts) + " must have the same number of "
          + "partitions (they are co-partitioned); fix the topics or use another --cluster");
    }
    int partitions;
    if (distinct.isEmpty()) {
      partitions = requestedPartitions.orElse(ServerConfig.DEFAULT_PARTITIONS);
    } else {
      partitions = distinct.iterator().next();
      if (requestedPartitions.isPresent() && requestedPartitions.getAsInt() != partitions) {
        throw new StartupException("--partitions " + requestedPartitions.getAsInt() + " does not match the existing "
            + "topics " + describeCounts(coCounts) + "; omit --partitions or pass --partitions " + partitions);
      }
    }
    ClusterLayout layout = base.withPartitions(partitions);

    // 2. Required configs of existing topics.
    List<TopicSpec> toCheck = layout.specs().stream()
        .filter(s -> existing.containsKey(s.name()) && !s.required().isEmpty()).toList();
    if (!toCheck.isEmpty()) {
      Map<ConfigResource, Config> configs = get(admin.describeConfigs(toCheck.stream()
          .map(s -> new ConfigResource(ConfigResource.Type.TOPIC, s.name())).toList()).all(), "describe topic configs");
      for (TopicSpec spec : toCheck) {
        Config config = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, spec.name()));
        for (Map.Entry<String, String> want : spec.required().entrySet()) {
          ConfigEntry entry = config == null ? null : config.get(want.getKey());
          String have = entry == null ? null : entry.value();
          if (!matches(want.getKey(), want.getValue(), have)) {
            throw new StartupException("existing topic " + spec.name() + " has " + want.getKey() + "=" + have
                + " but needs " + want.getKey() + "=" + want.getValue() + "; alter it with kafka-configs "
                + "or delete it so that ordo recreates it");
          }
        }
      }
    }
    return layout;
  }

  private void create(List<NewTopic> missing, List<String> made, List<String> raced) {
    Map<String, KafkaFuture<Void>> results = admin.createTopics(missing).values();
    for (Map.Entry<String, KafkaFuture<Void>> r : results.entrySet()) {
      try {
        r.getValue().get(TIMEOUT_S, TimeUnit.SECONDS);
        made.add(r.getKey());
      } catch (ExecutionException e) {
        if (e.getCause() instanceof TopicExistsException) {
          raced.add(r.getKey());
        } else {
          throw new StartupException("cannot create topic " + r.getKey() + ": " + Messages.oneLine(e), e);
        }
      } catch (TimeoutException e) {
        throw new StartupException("timed out creating topic " + r.getKey() + " after " + TIMEOUT_S + " s");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StartupException("interrupted while creating topics");
      }
    }
  }

  private void awaitReady(List<String> names) {
    try {
      TopicsReady.await(admin, names, Duration.ofSeconds(TIMEOUT_S));
    } catch (IllegalStateException e) {
      throw new StartupException("topics " + names + " were created but are not ready: " + Messages.oneLine(e), e);
    }
  }

  private static List<String> sorted(List<String> names) {
    List<String> copy = new ArrayList<>(names);
    Collections.sort(copy);
    return List.copyOf(copy);
  }

  private static boolean matches(String key, String want, String have) {
    if (have == null) {
      return false;
    }
    if (key.equals("cleanup.policy")) {
      // "compact" or "compact,delete" both keep the latest value per key.
      return Set.of(have.replace(" ", "").split(",")).containsAll(Set.of(want.split(",")));
    }
    return want.equalsIgnoreCase(have);
  }

  private static String describeCounts(Map<String, Integer> counts) {
    return counts.entrySet().stream().map(e -> e.getKey() + " (" + e.getValue() + ")")
        .collect(Collectors.joining(", "));
  }

  private Map<String, TopicDescription> describeExisting(Collection<TopicSpec> specs) {
    Set<String> names = get(admin.listTopics().names(), "list topics");
    List<String> ours = specs.stream().map(TopicSpec::name).filter(names::contains).toList();
    if (ours.isEmpty()) {
      return Map.of();
    }
    return new HashMap<>(get(admin.describeTopics(ours).allTopicNames(), "describe topics"));
  }

  private static <T> T get(KafkaFuture<T> future, String what) {
    try {
      return future.get(TIMEOUT_S, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new StartupException("cannot " + what + ": " + Messages.oneLine(e), e);
    } catch (TimeoutException e) {
      throw new StartupException("cannot " + what + ": no answer from Kafka within " + TIMEOUT_S + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StartupException("interrupted while trying to " + what);
    }
  }
}
