package cmdtest

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fake prints a line, its ready line, then a farewell once stopped.
func fake(ctx context.Context, args []string, stdout, _ io.Writer) error {
	fmt.Fprintln(stdout, "starting", args)
	fmt.Fprintln(stdout, "dashboard: http://127.0.0.1:4242/")
	<-ctx.Done()
	fmt.Fprintln(stdout, "stopped")
	return nil
}

func TestStartWaitsForTheReadyLineAndStopReturnsTheRest(t *testing.T) {
	url, ready, stop := Start(t, fake, "-x")
	assert.Equal(t, "http://127.0.0.1:4242/", url)
	assert.Equal(t, "starting [-x]\ndashboard: http://127.0.0.1:4242/\n", ready)
	assert.Equal(t, "stopped\n", stop())
	assert.Empty(t, stop(), "a second stop returns nothing")
}
