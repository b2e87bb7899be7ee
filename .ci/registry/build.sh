#!/usr/bin/env bash
# Builds the schema registry the tests run (Apicurio Registry 2.4.2.Final, in-memory storage, with its
# Confluent-compatible API under /apis/ccompat/v7) from Maven Central jars: the registry's app jar is
# re-augmented by the Quarkus Maven plugin (see pom.xml and docs/decisions/0031-confluent-wire-format-and-registry.md). Prints the runner jar.
# Run by the tests (dev.ordo.testing.SchemaRegistryServer) when the jar is missing.
set -euo pipefail
cd "$(dirname "$0")"
jar=target/ordo-test-registry-1-runner.jar
if [ ! -f "$jar" ]; then
  mvn -B -q package -DskipTests >&2
fi
echo "$PWD/$jar"
