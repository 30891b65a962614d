//go:build !amd64

package workers

// pause stands for n spin-wait hints where there is no such instruction
// here: a short busy loop on a local count, which the compiler keeps
// because the function is not inlined (several workers pause at once, so
// the loop writes nothing they share).
//
//go:noinline
func pause(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}
