//go:build !amd64

package aligned

import "unsafe"

// pairKernel is false: foldSquaresWith folds its rows in Go.
var pairKernel = false

func foldPair(unsafe.Pointer, uintptr, uint, []int32, []float64, []float64, int, int, int) int {
	return 0
}

func foldPairCount(unsafe.Pointer, uintptr, uint, []int32, []float64, []float64, int, int, int, []uint32, uint32, [][]uint64) int {
	return 0
}

func foldPairCountOnly(unsafe.Pointer, uintptr, uint, []int32, []float64, []float64, int, int, int, []uint32, uint32) int {
	return 0
}
