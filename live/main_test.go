package live_test

import (
	"os"
	"testing"

	"github.com/pond-go/pond/internal/workers"
)

// TestMain makes every worker of every pool take part in every tick and
// run every hand-over it is given, so that the tests comparing several
// workers with one (the fuzz twins, the aligned properties) go through
// the workers' paths however busy the machine is. No benchmark of this
// package uses workers.
func TestMain(m *testing.M) {
	workers.SetEveryPart(true)
	os.Exit(m.Run())
}
