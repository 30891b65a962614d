//go:build !amd64

package workers

// pause stands for n spin-wait hints where there is no such instruction
// here: a short busy loop the compiler keeps.
func pause(n int) {
	for i := 0; i < n; i++ {
		pauseSink++
	}
}

var pauseSink int
