#!/usr/bin/env bash
# The test command of the README: every package of the three modules
# (the library, its conformance suite, the examples), with the race
# detector, then a summary of what was skipped and why.
#
# The conformance vectors are read from $POND_VECTORS, else
# ../shared/vectors, else the verbatim copy in conformance/testdata/vectors.
# What the tests need: the Go module proxy (for the examples' modules);
# optionally Debian's chromium (the dashboard's browser tests) and
# protoc with its Go plugins (the proto drift test). Without them those
# tests skip, and the summary below says so.
set -euo pipefail
cd "$(dirname "$0")"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# -timeout: the largest package (live) takes about 3 minutes under -race
# on an idle two-core machine, but a loaded one can take three times that,
# past go test's default of 10 minutes a package.
go test -race -count=1 -timeout 20m -json ./... ./conformance/... ./examples/... "$@" >"$log" || status=$?
go run ./examples/internal/testsummary <"$log" || status=$?
exit $status
