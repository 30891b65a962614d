// Package cmdtest runs an example's command in-process for its tests, as
// go run would run it, and waits for it to print the address of its
// dashboard.
package cmdtest

import (
	"bufio"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Run is an example's command: it runs until ctx ends, printing its ready
// lines to stdout and its log to stderr.
type Run func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// readyLine is the line a command prints once its dashboard serves.
var readyLine = regexp.MustCompile(`^dashboard: (http://127\.0\.0\.1:\d+/)$`)

// stopWithin is how long a stopped command may take to return.
const stopWithin = 30 * time.Second

// Start runs the command with args on a goroutine of its own and returns
// the dashboard's URL once the command has printed it, everything it
// printed until then, and a function that stops it (cancelling the
// context a signal would cancel) and returns what it printed after. The
// test fails if the command ends before its ready line, returns an error
// or takes longer than 30 s to stop; the test's cleanup stops it if the
// test has not.
func Start(t testing.TB, run Run, args ...string) (url, ready string, stop func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, pw, io.Discard)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	var out strings.Builder
	for url == "" {
		require.True(t, lines.Scan(), "the command ended before its ready line: %s", out.String())
		out.WriteString(lines.Text() + "\n")
		if m := readyLine.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
	}
	rest := make(chan string, 1)
	go func() {
		var b strings.Builder
		for lines.Scan() {
			b.WriteString(lines.Text() + "\n")
		}
		rest <- b.String()
	}()
	stopped := false
	stop = func() string {
		if stopped {
			return ""
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(stopWithin):
			t.Fatal("the command did not stop")
		}
		return <-rest
	}
	t.Cleanup(func() { stop() })
	return url, out.String(), stop
}
