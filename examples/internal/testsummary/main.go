// Command testsummary reads `go test -json` on its standard input and
// prints what a person wants from a test run: each package's result line,
// the whole output of every failed test, every skipped test with the
// reason it gave, and a closing count.
//
//	go test -json ./... | go run ./examples/internal/testsummary
//
// It exits 1 when a test or a package failed (a build failure included).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

type key struct{ pkg, test string }

type run struct {
	output  map[key]*strings.Builder
	passed  int
	failed  []key
	skipped []key
	pkgLine []string
	pkgFail bool
}

func main() {
	r := &run{output: map[key]*strings.Builder{}}
	if err := r.read(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	r.print(os.Stdout)
	if len(r.failed) > 0 || r.pkgFail {
		os.Exit(1)
	}
}

func (r *run) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			// go test prints build errors as plain text before the JSON.
			fmt.Println(string(line))
			continue
		}
		r.add(e)
	}
	return sc.Err()
}

func (r *run) add(e event) {
	k := key{e.Package, e.Test}
	switch e.Action {
	case "output":
		b := r.output[k]
		if b == nil {
			b = &strings.Builder{}
			r.output[k] = b
		}
		b.WriteString(e.Output)
	case "pass":
		if e.Test != "" {
			r.passed++
			delete(r.output, k)
		} else {
			r.pkgLine = append(r.pkgLine, fmt.Sprintf("ok  \t%s\t%.3fs", e.Package, e.Elapsed))
		}
	case "fail":
		if e.Test != "" {
			r.failed = append(r.failed, k)
		} else {
			r.pkgFail = true
			r.pkgLine = append(r.pkgLine, fmt.Sprintf("FAIL\t%s\t%.3fs", e.Package, e.Elapsed))
		}
	case "build-output":
		fmt.Print(e.Output)
	case "build-fail":
		r.pkgFail = true
	case "skip":
		if e.Test != "" {
			r.skipped = append(r.skipped, k)
		} else {
			r.pkgLine = append(r.pkgLine, fmt.Sprintf("?   \t%s\t[no test files]", e.Package))
		}
	}
}

// reason is the last line a skipped test logged before it stopped: the
// message of its t.Skip.
func (r *run) reason(k key) string {
	b := r.output[k]
	if b == nil {
		return "(no reason given)"
	}
	var last string
	for _, l := range strings.Split(b.String(), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		last = l
	}
	if last == "" {
		return "(no reason given)"
	}
	return last
}

func (r *run) print(w io.Writer) {
	for _, l := range r.pkgLine {
		fmt.Fprintln(w, l)
	}
	for _, k := range r.failed {
		fmt.Fprintf(w, "\n--- FAIL: %s %s\n", k.pkg, k.test)
		if b := r.output[k]; b != nil {
			fmt.Fprint(w, b.String())
		}
	}
	if len(r.skipped) > 0 {
		sort.Slice(r.skipped, func(i, j int) bool {
			if r.skipped[i].pkg != r.skipped[j].pkg {
				return r.skipped[i].pkg < r.skipped[j].pkg
			}
			return r.skipped[i].test < r.skipped[j].test
		})
		fmt.Fprintf(w, "\nSkipped (%d):\n", len(r.skipped))
		for _, k := range r.skipped {
			fmt.Fprintf(w, "  %s %s: %s\n", k.pkg, k.test, r.reason(k))
		}
	}
	fmt.Fprintf(w, "\n%d passed, %d failed, %d skipped\n", r.passed, len(r.failed), len(r.skipped))
}
