//go:build !amd64

package reducers

// shiftAsm is false: there is no assembly pass here.
var shiftAsm = false

func shiftRun(m *Moments, slots []int, sl *Slide) int { return shiftRunGo(m, slots, sl) }

func fillRunMinMax(m *Moments, run []uint64, stride, n int) (lo, hi float64, ok bool) {
	return fillRunMinMaxGo(m, run, stride, n)
}
