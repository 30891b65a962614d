#include "textflag.h"

// func line(p unsafe.Pointer)
TEXT ·line(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func two(p, r unsafe.Pointer)
TEXT ·two(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	MOVQ r+8(FP), CX
	PREFETCHT0 (AX)
	PREFETCHT0 (CX)
	RET

// func lines(p unsafe.Pointer, n int)
TEXT ·lines(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
loop:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	DECQ CX
	JNZ loop
	RET

// func runs(p unsafe.Pointer, n int, r unsafe.Pointer, m int): n lines
// from p, then m lines from r; a run of 0 or fewer lines is skipped.
TEXT ·runs(SB), NOSPLIT|NOFRAME, $0-32
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	TESTQ CX, CX
	JLE second
first:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	DECQ CX
	JNZ first
second:
	MOVQ r+16(FP), AX
	MOVQ m+24(FP), CX
	TESTQ CX, CX
	JLE done
more:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	DECQ CX
	JNZ more
done:
	RET

// func span(p unsafe.Pointer, bytes int), bytes > 0: four lines a turn,
// then one at a time.
TEXT ·span(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	MOVQ bytes+8(FP), CX
	MOVQ AX, DX
	ANDQ $63, DX
	ADDQ DX, CX
	SUBQ DX, AX
four:
	CMPQ CX, $256
	JLE rest
	PREFETCHT0 (AX)
	PREFETCHT0 64(AX)
	PREFETCHT0 128(AX)
	PREFETCHT0 192(AX)
	ADDQ $256, AX
	SUBQ $256, CX
	JMP four
rest:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	SUBQ $64, CX
	JGT rest
	RET
