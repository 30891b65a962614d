package envflag

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAFlagWinsOverItsVariable: a variable sets its flag's default, a
// flag given overrides it, a bad variable too, and a bad variable whose
// flag is not given is the error, naming the variable.
func TestAFlagWinsOverItsVariable(t *testing.T) {
	t.Setenv("T_WORKERS", "abc")
	t.Setenv("T_RATE", "2.5")
	t.Setenv("T_TTL", "1500")
	t.Setenv("T_ON", "maybe")
	parse := func(args ...string) (*FlagSet, *int, *float64, *time.Duration, *bool) {
		fs := New(flag.NewFlagSet("t", flag.ContinueOnError))
		fs.SetOutput(io.Discard)
		w := fs.Int("workers", "T_WORKERS", 1, "")
		r := fs.Float("rate", "T_RATE", 1, "")
		d := fs.Duration("ttl", "T_TTL", time.Second, "")
		on := fs.Bool("on", "T_ON", false, "")
		require.NoError(t, fs.Parse(args))
		return fs, w, r, d, on
	}

	fs, w, r, d, on := parse("-workers", "3", "-on=true")
	require.NoError(t, fs.Err())
	assert.Equal(t, 3, *w)
	assert.Equal(t, 2.5, *r)
	assert.Equal(t, 1500*time.Millisecond, *d)
	assert.True(t, *on)

	fs, _, _, _, _ = parse("-on=true")
	assert.EqualError(t, fs.Err(), `T_WORKERS="abc": not an integer`)
	fs, _, _, _, _ = parse("-workers", "3")
	assert.EqualError(t, fs.Err(), `T_ON="maybe": not a boolean (true or false)`)
}
