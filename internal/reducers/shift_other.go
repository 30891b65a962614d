//go:build !amd64

package reducers

// shiftAsm is false: there is no assembly pass here.
var shiftAsm = false

func shift(m *Moments, sl *Slide, off int) bool { return shiftGo(m, sl, off) }
