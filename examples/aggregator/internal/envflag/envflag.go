// Package envflag defines command-line flags whose defaults come from
// environment variables, so that every knob of the example can be set
// either way (a flag wins over its variable).
package envflag

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"
)

// FlagSet wraps a flag.FlagSet and collects the errors of unparsable
// environment variables.
type FlagSet struct {
	*flag.FlagSet
	errs []envError
}

// envError is a bad environment variable and the flag it is the default of.
type envError struct {
	flag string
	err  error
}

// New returns a FlagSet around fs.
func New(fs *flag.FlagSet) *FlagSet { return &FlagSet{FlagSet: fs} }

// Err returns the first bad environment variable, if any, among those of
// the flags not given on the command line: call it after Parse. A flag
// given wins over its variable, a bad one too.
func (f *FlagSet) Err() error {
	for _, e := range f.errs {
		if !f.IsSet(e.flag) {
			return e.err
		}
	}
	return nil
}

func (f *FlagSet) usage(env, usage string) string {
	if env == "" {
		return usage
	}
	return usage + " (env " + env + ")"
}

// String defines a string flag.
func (f *FlagSet) String(name, env, def, usage string) *string {
	if v, ok := os.LookupEnv(env); ok && env != "" {
		def = v
	}
	return f.FlagSet.String(name, def, f.usage(env, usage))
}

// Int defines an int flag.
func (f *FlagSet) Int(name, env string, def int, usage string) *int {
	if v, ok := os.LookupEnv(env); ok && env != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			f.errs = append(f.errs, envError{name, fmt.Errorf("%s=%q: not an integer", env, v)})
		} else {
			def = n
		}
	}
	return f.FlagSet.Int(name, def, f.usage(env, usage))
}

// Bool defines a bool flag; its variable is read with strconv.ParseBool.
func (f *FlagSet) Bool(name, env string, def bool, usage string) *bool {
	if v, ok := os.LookupEnv(env); ok && env != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			f.errs = append(f.errs, envError{name, fmt.Errorf("%s=%q: not a boolean (true or false)", env, v)})
		} else {
			def = b
		}
	}
	return f.FlagSet.Bool(name, def, f.usage(env, usage))
}

// Float defines a float64 flag.
func (f *FlagSet) Float(name, env string, def float64, usage string) *float64 {
	if v, ok := os.LookupEnv(env); ok && env != "" {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			f.errs = append(f.errs, envError{name, fmt.Errorf("%s=%q: not a number", env, v)})
		} else {
			def = x
		}
	}
	return f.FlagSet.Float64(name, def, f.usage(env, usage))
}

// Duration defines a time.Duration flag, written as Go writes durations
// ("30s", "5m", "1m30s"). Its variable may also be a bare integer, read
// as milliseconds, so variables named *_MS keep their old meaning.
func (f *FlagSet) Duration(name, env string, def time.Duration, usage string) *time.Duration {
	if v, ok := os.LookupEnv(env); ok && env != "" {
		d, err := ParseDuration(v)
		if err != nil {
			f.errs = append(f.errs, envError{name, fmt.Errorf("%s=%q: %w", env, v, err)})
		} else {
			def = d
		}
	}
	return f.FlagSet.Duration(name, def, f.usage(env, usage))
}

// ParseDuration reads a Go duration, or a bare integer as milliseconds.
func ParseDuration(s string) (time.Duration, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		d, ok := Millis(n)
		if !ok {
			return 0, fmt.Errorf("%d ms is beyond a duration's range (at most %d ms, about 292 years)", n, maxMillis)
		}
		return d, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("not a duration (want e.g. 30s, 5m or 1500ms)")
	}
	return d, nil
}

// IsSet reports whether the flag called name was given on the command line.
func (f *FlagSet) IsSet(name string) bool {
	set := false
	f.Visit(func(fl *flag.Flag) {
		if fl.Name == name {
			set = true
		}
	})
	return set
}

// maxMillis is the most milliseconds a [time.Duration] holds.
const maxMillis = int64(math.MaxInt64 / time.Millisecond)

// Millis returns n milliseconds as a duration, and false when a duration
// cannot hold them (beyond about ±292 years) rather than a wrapped value.
func Millis(n int64) (time.Duration, bool) {
	if n > maxMillis || n < -maxMillis {
		return 0, false
	}
	return time.Duration(n) * time.Millisecond, true
}
