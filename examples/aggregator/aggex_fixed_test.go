package main

// Package main: the command's flags are parsed by parseFlags, which an
// external test package cannot reach.

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAgxAMillisecondSettingPastTheDurationRangeIsRefused: README
// "Settings": "A bad value stops the command with a message that names
// the flag (or the variable ...), quotes the value and says what is
// wanted"; the *_MS variables take a bare integer as milliseconds, and
// the old -retention-ms, -grace-ms and -history-ms flags still work.
// A millisecond count past the range of a Go duration (about 2^63 ns,
// 292 years) overflows silently: -retention-ms 18446744073710 (and
// RETENTION_MS=18446744073710) starts the command with a raw window of
// 448.384µs, and -retention-ms 9223372036855 is refused as
// "-retention -2562047h47m16.854551616s", a value nobody gave.
//
// The cause (fixed): main.go:124 (time.Duration(*ms.v) * time.Millisecond)
// and envflag.ParseDuration (envflag.go:114, time.Duration(n) *
// time.Millisecond) multiply without checking the range.
func TestAgxAMillisecondSettingPastTheDurationRangeIsRefused(t *testing.T) {
	_, err := parseFlags([]string{"-retention-ms", "18446744073710"}, io.Discard)
	if assert.Error(t, err, "-retention-ms 18446744073710 must not become 448µs") {
		assert.Contains(t, err.Error(), "18446744073710", "the message quotes the value given")
	}
	_, err = parseFlags([]string{"-retention-ms", "9223372036855"}, io.Discard)
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "9223372036855", "the message quotes the value given")
	}
	t.Setenv("RETENTION_MS", "18446744073710")
	_, err = parseFlags(nil, io.Discard)
	if assert.Error(t, err, "RETENTION_MS=18446744073710 must not become 448µs") {
		assert.Contains(t, err.Error(), "RETENTION_MS")
	}
}
