#!/usr/bin/env bash
# The test command of the README: every package, with the race detector.
# The conformance vectors are read from $POND_VECTORS, else
# ../shared/vectors, else the verbatim copy in testdata/vectors.
set -euo pipefail
cd "$(dirname "$0")"
go test -race -count=1 ./... "$@"
