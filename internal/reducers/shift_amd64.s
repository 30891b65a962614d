#include "textflag.h"
#include "go_asm.h"

// The one pass of Moments.ShiftSquares and Moments.ShiftSums, each
// operation the Go code's, in the same order, so that the sums come out
// bit for bit the same: the Go code keeps its sums in registers only in
// part (every register is lost at math.FMA's fallback call), and spills
// and reloads them at each value.
//
// Registers: X0 s, X1 c, X2 q, X3 qc, X4 the value, X5-X10 temporaries;
// DI the band's lowest exponent, R10 the largest distance from it found
// (far), R11 the band's width less one (span), R8 the slot, R9 the end of
// the run, R12 the stride in bytes, SI and R13 temporaries.

// FAR sets far to the larger of far and bandDistance(bits, lo).
#define FAR(bits) \
	MOVQ bits, SI; \
	SHRQ $52, SI; \
	ANDL $0x7ff, SI; \
	SUBQ DI, SI; \
	MOVQ bits, R13; \
	SHLQ $1, R13; \
	CMOVQEQ R13, SI; \
	CMPQ SI, R10; \
	CMOVQHI SI, R10

// SUBDD is subDD: t = s - x; d = t - s; c += (s - (t - d)) - (x + d); s = t.
#define SUBDD \
	VSUBSD X4, X0, X5; \
	VSUBSD X0, X5, X6; \
	VSUBSD X6, X5, X7; \
	VSUBSD X7, X0, X7; \
	VADDSD X6, X4, X8; \
	VSUBSD X8, X7, X7; \
	VADDSD X7, X1, X1; \
	VMOVAPD X5, X0

// ADDDD is addDD: t = s + x; d = t - s; c += (s - (t - d)) + (x - d); s = t.
#define ADDDD \
	VADDSD X4, X0, X5; \
	VSUBSD X0, X5, X6; \
	VSUBSD X6, X5, X7; \
	VSUBSD X7, X0, X7; \
	VSUBSD X6, X4, X8; \
	VADDSD X8, X7, X7; \
	VADDSD X7, X1, X1; \
	VMOVAPD X5, X0

// SUBSQ is subSquare: p = x*x; e = fma(x, x, -p); u = q - p; d = u - q;
// qc += (q - (u - d)) - (p + d) - e; q = u.
#define SUBSQ \
	VMULSD X4, X4, X5; \
	VMOVAPD X5, X6; \
	VFMSUB231SD X4, X4, X6; \
	VSUBSD X5, X2, X7; \
	VSUBSD X2, X7, X8; \
	VSUBSD X8, X7, X9; \
	VSUBSD X9, X2, X9; \
	VADDSD X8, X5, X10; \
	VSUBSD X10, X9, X9; \
	VSUBSD X6, X9, X9; \
	VADDSD X9, X3, X3; \
	VMOVAPD X7, X2

// ADDSQ is addSquare: p = x*x; e = fma(x, x, -p); u = q + p; d = u - q;
// qc += (q - (u - d)) + (p - d) + e; q = u.
#define ADDSQ \
	VMULSD X4, X4, X5; \
	VMOVAPD X5, X6; \
	VFMSUB231SD X4, X4, X6; \
	VADDSD X5, X2, X7; \
	VSUBSD X2, X7, X8; \
	VSUBSD X8, X7, X9; \
	VSUBSD X9, X2, X9; \
	VSUBSD X8, X5, X10; \
	VADDSD X10, X9, X9; \
	VADDSD X6, X9, X9; \
	VADDSD X9, X3, X3; \
	VMOVAPD X7, X2

// RUN sets R8 and R9 to the first slot and the end of the run at
// field of the Slide at BX, from slot off (CX) on.
#define RUN(field) \
	MOVQ field(BX), R8; \
	MOVQ field+8(BX), R9; \
	LEAQ (R8)(R9*8), R9; \
	LEAQ (R8)(CX*8), R8

// func shift(m *Moments, sl *Slide, off int) bool
TEXT ·shift(SB), NOSPLIT, $0-25
	CMPB ·shiftAsm(SB), $0
	JEQ scalar
	MOVQ m+0(FP), AX
	MOVQ sl+8(FP), BX
	MOVQ off+16(FP), CX
	// A slot before the row's or a stride that does not move: the Go
	// code's behaviour, whatever it is.
	TESTQ CX, CX
	JLT scalar
	MOVQ Slide_Stride(BX), R12
	TESTQ R12, R12
	JLE scalar
	SHLQ $3, R12

	// !m.anchored || b.n <= sl.RN: the pass does not apply.
	CMPB Moments_anchored(AX), $0
	JEQ no
	MOVQ Moments_main+band_n(AX), DX
	CMPQ DX, Slide_RN(BX)
	JLE no

	// bandRange(anchor, squareLimit()): DI lo, R11 span.
	MOVWQSX Moments_anchor(AX), SI
	LEAQ -const_bandSpan(SI), DI
	LEAQ const_bandSpan(SI), R11
	MOVQ $(const_bigExp-1), R9
	MOVQ $0x7ff, R13
	CMPB Moments_noSquares(AX), $0
	CMOVQNE R13, R9
	CMPQ R11, R9
	CMOVQGT R9, R11
	SUBQ DI, R11
	JGE banded
	MOVQ $0x1000, DI
	XORL R11, R11

banded:
	XORL R10, R10
	// checkRem := m.n != b.n || m.big != 0, in R13.
	XORL R13, R13
	CMPQ DX, Moments_n(AX)
	SETNE R13B
	MOVL Moments_big(AX), SI
	ORL SI, R13
	MOVQ R13, DX // DX: checkRem, until the leaving rows are taken
	VMOVSD Moments_main+band_s(AX), X0
	VMOVSD Moments_main+band_c(AX), X1
	RUN(Slide_Rem)
	CMPB Moments_noSquares(AX), $0
	JNE sums
	VMOVSD Moments_main+band_q(AX), X2
	VMOVSD Moments_main+band_qc(AX), X3

	// The leaving rows, with or without their exponents checked.
	CMPQ R8, R9
	JCC sqadd
	TESTQ DX, DX
	JEQ sqrem
sqremfar:
	MOVQ (R8), DX
	FAR(DX)
	MOVQ DX, X4
	SUBDD
	SUBSQ
	ADDQ R12, R8
	CMPQ R8, R9
	JCS sqremfar
	JMP sqadd
sqrem:
	MOVQ (R8), X4
	SUBDD
	SUBSQ
	ADDQ R12, R8
	CMPQ R8, R9
	JCS sqrem

sqadd:
	RUN(Slide_Add)
	CMPQ R8, R9
	JCC sqend
sqaddloop:
	MOVQ (R8), DX
	FAR(DX)
	MOVQ DX, X4
	ADDDD
	ADDSQ
	ADDQ R12, R8
	CMPQ R8, R9
	JCS sqaddloop

sqend:
	// far > span || notFinite(s, c, q, qc): x − x is +0 for a finite
	// x and NaN otherwise.
	CMPQ R10, R11
	JHI no
	VSUBSD X0, X0, X4
	VSUBSD X1, X1, X5
	VADDSD X5, X4, X4
	VSUBSD X2, X2, X5
	VADDSD X5, X4, X4
	VSUBSD X3, X3, X5
	VADDSD X5, X4, X4
	VUCOMISD X4, X4
	JPS no
	VMOVSD X2, Moments_main+band_q(AX)
	VMOVSD X3, Moments_main+band_qc(AX)
	JMP done

sums:
	CMPQ R8, R9
	JCC sumsadd
	TESTQ DX, DX
	JEQ sumsrem
sumsremfar:
	MOVQ (R8), DX
	FAR(DX)
	MOVQ DX, X4
	SUBDD
	ADDQ R12, R8
	CMPQ R8, R9
	JCS sumsremfar
	JMP sumsadd
sumsrem:
	MOVQ (R8), X4
	SUBDD
	ADDQ R12, R8
	CMPQ R8, R9
	JCS sumsrem

sumsadd:
	RUN(Slide_Add)
	CMPQ R8, R9
	JCC sumsend
sumsaddloop:
	MOVQ (R8), DX
	FAR(DX)
	MOVQ DX, X4
	ADDDD
	ADDQ R12, R8
	CMPQ R8, R9
	JCS sumsaddloop

sumsend:
	CMPQ R10, R11
	JHI no
	VSUBSD X0, X0, X4
	VSUBSD X1, X1, X5
	VADDSD X5, X4, X4
	VUCOMISD X4, X4
	JPS no

done:
	// m.n and b.n move by AN − RN; the sums are stored.
	MOVQ Slide_AN(BX), DX
	SUBQ Slide_RN(BX), DX
	ADDQ DX, Moments_n(AX)
	ADDQ DX, Moments_main+band_n(AX)
	VMOVSD X0, Moments_main+band_s(AX)
	VMOVSD X1, Moments_main+band_c(AX)
	MOVB $1, ret+24(FP)
	RET

no:
	MOVB $0, ret+24(FP)
	RET

scalar:
	JMP ·shiftGo(SB)

// func fillRunMinMax(m *Moments, run []uint64, stride, n int) (lo, hi float64, ok bool)
//
// The one pass of Moments.FillRunMinMax, as shift is ShiftSquares': X11
// the smallest value, X12 the largest, CX the first value's exponent.
TEXT ·fillRunMinMax(SB), NOSPLIT, $0-65
	CMPB ·shiftAsm(SB), $0
	JEQ fillgo
	MOVQ m+0(FP), AX
	// Outer bands to empty, an empty run, a stride that does not move:
	// the Go code's behaviour.
	CMPQ Moments_outer(AX), $0
	JNE fillgo
	MOVQ run_len+16(FP), R9
	TESTQ R9, R9
	JEQ fillgo
	MOVQ stride+32(FP), R12
	TESTQ R12, R12
	JLE fillgo
	SHLQ $3, R12
	MOVQ run_base+8(FP), R8
	LEAQ (R8)(R9*8), R9

	// The first value's exponent, e0, anchors the band: not zero, not
	// that of an infinity or a NaN.
	MOVQ (R8), CX
	SHRQ $52, CX
	ANDL $0x7ff, CX
	JEQ fillno
	CMPL CX, $0x7ff
	JEQ fillno

	// bandRange(e0, squareLimit()): DI lo, R11 span.
	LEAQ -const_bandSpan(CX), DI
	LEAQ const_bandSpan(CX), R11
	MOVQ $(const_bigExp-1), SI
	MOVQ $0x7ff, R13
	CMPB Moments_noSquares(AX), $0
	CMOVQNE R13, SI
	CMPQ R11, SI
	CMOVQGT SI, R11
	SUBQ DI, R11
	JGE fillbanded
	MOVQ $0x1000, DI
	XORL R11, R11

fillbanded:
	XORL R10, R10
	VXORPD X0, X0, X0
	VXORPD X1, X1, X1
	VXORPD X2, X2, X2
	VXORPD X3, X3, X3
	MOVQ $0x7ff0000000000000, DX
	MOVQ DX, X11
	MOVQ $0xfff0000000000000, DX
	MOVQ DX, X12
	CMPB Moments_noSquares(AX), $0
	JNE fillsums

	// lo = x if x < lo; hi = x if x > hi (a NaN moves neither).
fillsq:
	MOVQ (R8), DX
	FAR(DX)
	MOVQ DX, X4
	VMINSD X11, X4, X11
	VMAXSD X12, X4, X12
	ADDDD
	ADDSQ
	ADDQ R12, R8
	CMPQ R8, R9
	JCS fillsq
	JMP fillend

fillsums:
	MOVQ (R8), DX
	FAR(DX)
	MOVQ DX, X4
	VMINSD X11, X4, X11
	VMAXSD X12, X4, X12
	ADDDD
	ADDQ R12, R8
	CMPQ R8, R9
	JCS fillsums

fillend:
	// far > span || notFinite(s, q, qc, 0).
	CMPQ R10, R11
	JHI fillno
	VSUBSD X0, X0, X4
	VSUBSD X2, X2, X5
	VADDSD X5, X4, X4
	VSUBSD X3, X3, X5
	VADDSD X5, X4, X4
	VUCOMISD X4, X4
	JPS fillno

	// The whole state, anchored at e0, in the main band.
	MOVQ n+40(FP), DX
	MOVQ DX, Moments_n(AX)
	MOVW CX, Moments_anchor(AX)
	MOVB $1, Moments_anchored(AX)
	MOVL $0, Moments_big(AX)
	MOVQ DX, Moments_main+band_n(AX)
	VMOVSD X0, Moments_main+band_s(AX)
	VMOVSD X1, Moments_main+band_c(AX)
	VMOVSD X2, Moments_main+band_q(AX)
	VMOVSD X3, Moments_main+band_qc(AX)
	VMOVSD X11, lo+48(FP)
	VMOVSD X12, hi+56(FP)
	MOVB $1, ok+64(FP)
	RET

fillno:
	MOVQ $0, lo+48(FP)
	MOVQ $0, hi+56(FP)
	MOVB $0, ok+64(FP)
	RET

fillgo:
	JMP ·fillRunMinMaxGo(SB)
