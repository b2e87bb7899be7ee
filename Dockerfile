# The Ordo distribution as an image (used by docker-compose.yml). Build: docker build -t ordo .
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -q -DskipTests -pl distribution -am package

FROM eclipse-temurin:17-jre
WORKDIR /opt/ordo
COPY --from=build /src/distribution/target/lib/ /opt/ordo/lib/
COPY --from=build /src/distribution/target/ordo-ordo-*.jar /opt/ordo/lib/
VOLUME /var/lib/ordo
EXPOSE 7070
ENTRYPOINT ["java", "-Dlog4j2.configurationFile=ordo-log4j2.properties", "-cp", "/opt/ordo/lib/*", "dev.ordo.cli.OrdoMain"]
CMD ["server", "--http-host", "0.0.0.0", "--state-dir", "/var/lib/ordo"]
