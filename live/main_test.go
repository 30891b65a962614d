package live_test

import (
	"os"
	"testing"

	"github.com/pond-go/pond/internal/aligned"
	"github.com/pond-go/pond/internal/engine"
	"github.com/pond-go/pond/internal/workers"
)

// TestMain makes every worker of every pool take part in every tick and
// run every hand-over it is given, hands over every push's rows between
// ticks (however few and however close the ticks), and makes every
// aligned closing one the workers may split, with every other tick and
// such closing split and the others done alone (as the workers' gate
// may choose), so that the tests comparing several workers with one (the
// fuzz twins, the aligned properties) go through the workers' paths and the switches between
// them however busy the machine is and however many rows a partition
// gets. No benchmark of this package uses workers.
func TestMain(m *testing.M) {
	workers.SetEveryPart(true)
	engine.SetHandOffRows(1)
	workers.SetGateForce(2)
	aligned.SetCloseSplitRows(1 << 30)
	os.Exit(m.Run())
}
