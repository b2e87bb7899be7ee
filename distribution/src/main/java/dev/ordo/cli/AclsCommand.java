package dev.ordo.cli;

import dev.ordo.server.KafkaAcls;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ordo acls}: prints the {@code kafka-acls.sh} commands that grant one role its Kafka ACLs on
 * a cluster ({@link KafkaAcls}, docs/security.md). Prints only: an operator reads them and runs them.
 */
@Command(
    name = "acls",
    header = "Prints the kafka-acls.sh commands that grant a role the Kafka ACLs it needs, and no more.",
    mixinStandardHelpOptions = true,
    versionProvider = dev.ordo.cli.internal.VersionProvider.class,
    usageHelpAutoWidth = true,
    description = {
      "Prints one kafka-acls.sh command per resource the role uses on the cluster's topics, consumer groups and "
          + "transactional ids (docs/security.md), each after a comment saying what it is for. Nothing is sent to "
          + "Kafka: run the commands as a user allowed to change ACLs."
    })
final class AclsCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--role", required = true, paramLabel = "ROLE",
      description = "server, producer or lease-consumer")
  String role;

  @Option(names = "--principal", required = true, paramLabel = "PRINCIPAL",
      description = "the Kafka principal to grant, e.g. User:ordo")
  String principal;

  @Option(names = "--cluster", defaultValue = "ordo", paramLabel = "NAME",
      description = "the Ordo cluster (--cluster of ordo server; default: ${DEFAULT-VALUE})")
  String cluster;

  @Option(names = "--group", paramLabel = "GROUP", description = "the lease consumer's group.id (lease-consumer only)")
  String group;

  @Option(names = "--no-backpressure", description = "producer only: without ordo.producer.backpressure, which "
      + "reads <cluster>.topics and <cluster>.namespaces")
  boolean noBackpressure;

  @Option(names = "--bootstrap-server", defaultValue = "localhost:9092", paramLabel = "HOST:PORT",
      description = "put in the printed commands (default: ${DEFAULT-VALUE})")
  String bootstrapServer;

  @Option(names = "--command-config", paramLabel = "FILE",
      description = "put in the printed commands: the admin client settings kafka-acls.sh logs in with")
  String commandConfig;

  @Override
  public Integer call() {
    KafkaAcls.Role r = switch (role) {
      case "server" -> KafkaAcls.Role.SERVER;
      case "producer" -> KafkaAcls.Role.PRODUCER;
      case "lease-consumer" -> KafkaAcls.Role.LEASE_CONSUMER;
      default -> throw new ParameterException(spec.commandLine(),
          "--role must be server, producer or lease-consumer, got '" + role + "'");
    };
    if ((r == KafkaAcls.Role.LEASE_CONSUMER) != (group != null)) {
      throw new ParameterException(spec.commandLine(), r == KafkaAcls.Role.LEASE_CONSUMER
          ? "--role lease-consumer needs --group (its group.id)" : "--group is for --role lease-consumer only");
    }
    if (noBackpressure && r != KafkaAcls.Role.PRODUCER) {
      throw new ParameterException(spec.commandLine(), "--no-backpressure is for --role producer only");
    }
    if (!principal.matches("[A-Za-z]+:.+")) {
      throw new ParameterException(spec.commandLine(), "--principal must be TYPE:NAME, e.g. User:ordo, got '"
          + principal + "'");
    }
    List<KafkaAcls.Grant> grants;
    try {
      grants = KafkaAcls.grants(r, cluster, group, !noBackpressure);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    for (KafkaAcls.Grant g : grants) {
      out.println("# " + g.why());
      out.println(g.kafkaAclsCommand(principal, bootstrapServer, commandConfig));
    }
    out.flush();
    return 0;
  }
}
