# The Ordo distribution as an image (used by docker-compose.yml). Build: docker build -t ordo .
# Stage "connect" is a Kafka Connect worker with the Ordo sink plugin (docker build --target connect .).
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
# Not the lab (module lab: ordo bench and its fault modes, decisions 0064), which the image does not carry.
# -Dmaven.test.skip: no test classes, so no ordo-server-*-tests.jar beside the server's jar.
RUN mvn -B -q -Dmaven.test.skip=true -pl distribution,connectors -am package

# A Kafka Connect worker (Kafka's own image) with the plugin directory on its plugin.path (docs/connectors.md).
FROM apache/kafka:4.3.1 AS connect
COPY --from=build /src/connectors/target/plugin/ordo-connect/ /opt/kafka/plugins/ordo-connect/
COPY connectors/docker/worker.properties /opt/kafka/config/ordo-connect-worker.properties
EXPOSE 8083
ENTRYPOINT ["/opt/kafka/bin/connect-distributed.sh", "/opt/kafka/config/ordo-connect-worker.properties"]

# The last stage is the default: the Ordo server.
FROM eclipse-temurin:17-jre
WORKDIR /opt/ordo
COPY --from=build /src/distribution/target/lib/ /opt/ordo/lib/
COPY --from=build /src/distribution/target/ordo-server-*.jar /opt/ordo/lib/
VOLUME /var/lib/ordo
EXPOSE 7070 9324
ENTRYPOINT ["java", "-XX:+UseParallelGC", "-Dlog4j2.configurationFile=ordo-log4j2.properties", "-cp", "/opt/ordo/lib/*", "dev.ordo.cli.OrdoMain"]
# A container must listen on all interfaces, so the server asks for authentication (docs/security.md):
# run it with ORDO_HTTP_AUTH=token and ORDO_HTTP_AUTH_BOOTSTRAP_TOKEN_FILE=/run/secrets/<file>, or add
# --insecure-http when the port is published on loopback only (as docker-compose.yml does).
CMD ["server", "--http-host", "0.0.0.0", "--state-dir", "/var/lib/ordo"]
