// Package browsertest runs the examples' dashboard page in a headless
// Chromium for their tests: it finds the browser (Debian's chromium, which
// the repository's CI installs), starts it for one test and polls the page
// until it shows what the test waits for.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// Path finds a Chromium: $CHROMIUM, else Debian's /usr/bin/chromium, else
// one on PATH; "" when there is none.
func Path() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Start starts a headless Chromium with a window of width × height for t,
// closed when t ends, and returns its context, which ends after timeout.
// It skips t (saying why) when there is no Chromium.
func Start(t testing.TB, timeout time.Duration, width, height int) context.Context {
	t.Helper()
	path := Path()
	if path == "" {
		t.Skip("no Chromium found (apt-get install chromium, or set $CHROMIUM); .ci/run installs it")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelTimeout)
	return ctx
}

// WaitFor evaluates the JavaScript expression probe on the page every
// 250 ms until ok accepts what it returns, and returns that. After 60 s it
// fails t, saying what it waited for and what the page last showed.
func WaitFor[V any](t testing.TB, ctx context.Context, what, probe string, ok func(V) bool) V {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[V](probe))
		require.NoError(t, err)
		if ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the page shows %+v", what, v)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
