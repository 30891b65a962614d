package conformance_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Leniencies of the conformance runner found by the mutation probes of
// mutation_probe_test.go, fixed: each test below mutates a real case in a
// way FORMAT.md says must make the run fail (each failed while the runner
// passed such a case).

// TestMu42CaseWithAStepTheRunnerCannotBuildFails: FORMAT.md says "Every case
// must pass; a case is never skipped silently." runVector
// (conformance_test.go) turned a step whose "op" has no builder in
// steps (notImplemented) into t.Skip, so such a case never runs, at any
// worker count, and `go test` (and test.sh, which only lists skips)
// reported success. Here one op of a real case is renamed to one the
// runner does not know: the case must fail, at 1, 2 and 4 workers.
func TestMu42CaseWithAStepTheRunnerCannotBuildFails(t *testing.T) {
	names := []string{"rolling-time-window-sum", "views-chain-fill-diff-cumulative", "reducers-unknown-reducer"}
	cases := mu42LoadCases(t, names...)
	files := map[string][]byte{}
	for i, name := range names {
		d := mu42CaseNamed(t, cases, name).doc(t)
		desc, ok := mu42StepOp(func(step map[string]json.RawMessage) {
			step["op"] = json.RawMessage(`"interpolate"`)
		})(rand.New(rand.NewPCG(mu42Seed, uint64(i))), nil, d)
		require.True(t, ok)
		t.Logf("%s: %s", name, desc)
		files[name] = d.bytes(t)
	}
	got, failed := mu42RunConformance(t, files)
	for name := range files {
		for _, w := range []int{1, 2, 4} {
			require.Equal(t, "FAIL", got[fmt.Sprintf("%s/workers=%d", name, w)], "%s at %d workers: a case with a step the runner cannot build must fail, not skip", name, w)
		}
	}
	require.True(t, failed, "go test must fail")
}

// TestMu42CaseWithAMisspeltFieldFails: a field the runner does not know, in
// an expect entry or at the top of a case ("lenght" for "length"), was
// ignored, so the check it meant never ran. The runner reads cases
// strictly now: such a case fails at every worker count.
func TestMu42CaseWithAMisspeltFieldFails(t *testing.T) {
	names := []string{"rolling-time-window-sum", "series-drop-mode"}
	cases := mu42LoadCases(t, names...)
	files := map[string][]byte{}
	for i, name := range names {
		d := mu42CaseNamed(t, cases, name).doc(t)
		if i == 0 {
			mu42Entry(d.expect, 0)["lenght"] = json.Number("1")
		} else {
			d.top["abuot"] = json.RawMessage(`"a misspelt top-level field"`)
		}
		files[name] = d.bytes(t)
	}
	got, failed := mu42RunConformance(t, files)
	for name := range files {
		for _, w := range []int{1, 2, 4} {
			require.Equal(t, "FAIL", got[fmt.Sprintf("%s/workers=%d", name, w)], "%s at %d workers: a case with a misspelt field must fail", name, w)
		}
	}
	require.True(t, failed, "go test must fail")
}
