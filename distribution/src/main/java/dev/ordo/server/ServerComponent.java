package dev.ordo.server;

/**
 * A part of {@code ordo server} with a life cycle: the queue topology, the delay-tier forwarders,
 * the HTTP API. {@link OrdoServer} starts the components in list order once Kafka is reachable and
 * the cluster's topics exist, and closes them in reverse order on shutdown (or when a later
 * component fails to start).
 *
 * <p>To add one to the distribution, implement this interface in module {@code ordo} (it may wrap
 * classes of any other module) and add it to {@link Components#standard()}.
 */
public interface ServerComponent {
  /** A short name for logs, errors and {@code /health}, e.g. {@code "queue-topology"}. */
  String name();

  /**
   * Starts the component. Register HTTP handlers on {@link ServerContext#http()} here. Throw to
   * abort the server start: the message is shown to the user as one line, so make it say what is
   * wrong. May block until the component is ready, or return and report readiness via {@link #status()}.
   */
  void start(ServerContext ctx) throws Exception;

  /** Stops the component and frees its resources. Called once, also after a failed {@link #start}. Must not throw. */
  void close();

  /**
   * {@code "UP"} when working; anything else (e.g. {@code "STARTING"}, {@code "DOWN"}) makes
   * {@code GET /health} answer 503. Called from HTTP threads: keep it cheap and thread-safe.
   */
  default String status() {
    return "UP";
  }
}
