#!/usr/bin/env bash
# Runs the priority store's JMH benchmarks (src/test/java/dev/ordo/store/bench).
#
#   priority-store/bench.sh                 # PopBenchmark with its defaults (5-7 minutes on 2 cores)
#   priority-store/bench.sh PopBenchmark -p popped=0 -p cursors=kept   # any JMH options
#   priority-store/bench.sh paired          # PairedPops: before and after in alternating slices (about 5 minutes)
#   priority-store/bench.sh groups          # GroupPops: a store with 1,000 group keys against one without (about 2 minutes)
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
cd "$here"
rm -rf target/bench-templates
if [ "${1:-}" = paired ]; then
  shift
  exec java -Xms2g -Xmx2g -cp "$cp" dev.ordo.store.bench.PairedPops "$@"
fi
if [ "${1:-}" = groups ]; then
  shift
  exec java -Xms1g -Xmx1g -cp "$cp" dev.ordo.store.bench.GroupPops "$@"
fi
if [ $# -eq 0 ]; then
  set -- PopBenchmark
fi
exec java -cp "$cp" org.openjdk.jmh.Main -rf json -rff "$here/target/jmh-result.json" "$@"
