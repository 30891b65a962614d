package main

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClxMoreBadFlagsAreRefused: the README's flags with values they
// cannot take are refused before anything starts, with a message naming
// the flag and its value; the producer's flags are checked only where a
// producer runs.
func TestClxMoreBadFlagsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-role", ""}, `-role ""`},
		{[]string{"-role", "Worker"}, `-role "Worker"`},
		{[]string{"-rate", "0"}, "-rate 0"},
		{[]string{"-rate", "-5"}, "-rate -5"},
		{[]string{"-rate", "2000"}, "-rate 2000"},
		{[]string{"-role", "producer", "-rate", "3"}, "-rate 3"},
		{[]string{"-hosts", "-1"}, "-hosts -1"},
		{[]string{"-role", "producer", "-hosts", "0"}, "-hosts 0"},
		{[]string{"-max-hosts", "-1"}, "-max-hosts -1"},
		{[]string{"-role", "dashboard", "-workers", "-1"}, "-workers -1"},
		{[]string{"-ping-interval", "-1s"}, "-ping-interval -1s"},
		{[]string{"-ping-timeout", "0s"}, "-ping-timeout 0s"},
		{[]string{"-partitions", "2147483648"}, "-partitions 2147483648"},
		{[]string{"-workers", "2", "extra"}, `unexpected argument "extra"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := parse(tc.args, io.Discard)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	for _, tc := range []struct {
		args    []string
		workers int
	}{
		{[]string{"-role", "worker"}, 1},
		{[]string{"-role", "all"}, 3},
		{[]string{"-role", "worker", "-workers", "5"}, 5},
		{[]string{"-role", "dashboard", "-rate", "3", "-hosts", "0"}, 0},
		{[]string{"-rate", "1000", "-partitions", "2147483647", "-seed", "0"}, 3},
	} {
		o, err := parse(tc.args, io.Discard)
		require.NoError(t, err, "%q", tc.args)
		assert.Equal(t, tc.workers, o.workers, "%q", tc.args)
		assert.NotEmpty(t, o.id, "%q: the default ID", tc.args)
	}
}
