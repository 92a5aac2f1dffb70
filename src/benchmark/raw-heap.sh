#!/usr/bin/env bash
# Raw MIME heap benchmark (issue 47): the heap one raw message costs per byte of its input at enqueue and at
# sending, for the shapes a sender can choose (dev.mailqueue.dispatch.control.RawHeapCost, in the EJB module's test
# classes). In-process, no server or database; about 30 s. Prints its figures; asserts nothing.
#
#   bash src/benchmark/raw-heap.sh [messages held at once, default 40]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
mvn -q -pl ejb-module test-compile
mvn -q -pl ejb-module dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/raw-heap.classpath
# A fixed heap and the parallel collector, so that "used after a full collection" is what the messages hold.
java -Xms1g -Xmx1g -XX:+UseParallelGC \
    -cp "ejb-module/target/classes:ejb-module/target/test-classes:$(cat ejb-module/target/raw-heap.classpath)" \
    dev.mailqueue.dispatch.control.RawHeapCost "$@"
