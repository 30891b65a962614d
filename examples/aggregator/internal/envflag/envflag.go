// Package envflag defines command-line flags whose defaults come from
// environment variables, so that every knob of the example can be set
// either way (a flag wins over its variable).
package envflag

import (
	"flag"
	"fmt"
	"os"
	"strconv"
)

// FlagSet wraps a flag.FlagSet and collects the errors of unparsable
// environment variables.
type FlagSet struct {
	*flag.FlagSet
	errs []error
}

// New returns a FlagSet around fs.
func New(fs *flag.FlagSet) *FlagSet { return &FlagSet{FlagSet: fs} }

// Err returns the first bad environment variable, if any.
func (f *FlagSet) Err() error {
	if len(f.errs) > 0 {
		return f.errs[0]
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
			f.errs = append(f.errs, fmt.Errorf("%s=%q: not an integer", env, v))
		} else {
			def = n
		}
	}
	return f.FlagSet.Int(name, def, f.usage(env, usage))
}

// Float defines a float64 flag.
func (f *FlagSet) Float(name, env string, def float64, usage string) *float64 {
	if v, ok := os.LookupEnv(env); ok && env != "" {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s=%q: not a number", env, v))
		} else {
			def = x
		}
	}
	return f.FlagSet.Float64(name, def, f.usage(env, usage))
}
