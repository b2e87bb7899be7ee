#!/usr/bin/env bash
# Runs the priority store's JMH benchmarks (src/test/java/dev/ordo/store/bench).
#
#   priority-store/bench.sh                      # PopBenchmark with its defaults (about 6 minutes on 2 cores)
#   priority-store/bench.sh PopBenchmark -p popped=0 -p cursors=kept   # any JMH options
#
# Builds the module's test classes, then runs org.openjdk.jmh.Main in a plain JVM on the test
# class path (JMH forks need a real class path, which exec:java inside Maven's JVM lacks).
# Results go to priority-store/target/jmh-result.json as well as the console.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"
mvn -B -q -pl priority-store -am install -DskipTests
mvn -B -q -pl priority-store test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile="$here/target/bench.classpath"
cp="$here/target/test-classes:$here/target/classes:$(cat "$here/target/bench.classpath")"
if [ $# -eq 0 ]; then
  set -- PopBenchmark
fi
cd "$here"
rm -rf target/bench-templates
exec java -cp "$cp" org.openjdk.jmh.Main -rf json -rff "$here/target/jmh-result.json" "$@"
