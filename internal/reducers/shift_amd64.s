#include "textflag.h"
#include "go_asm.h"

// The one pass of Moments.ShiftSquares and Moments.ShiftSums, each
// operation the Go code's, in the same order, so that the sums come out
// bit for bit the same: the Go code keeps its sums in registers only in
// part (every register is lost at math.FMA's fallback call), and spills
// and reloads them at each value.
//
// Registers: X0 s, X1 c, X2 q, X3 qc, X4 the value, X5-X10 temporaries;
// X11 holds 1, X12 and X13 count the zeros leaving and entering (the Go
// code's gone and come); DI the band's lowest exponent, R11 the band's
// width less one (span), R8 the slot, R9 the end of the run, R12 the
// stride in bytes, SI and R13 temporaries. A value outside the band ends
// the pass at once (the Go code's far > span, checked as it goes). The
// band lies above exponent 0, so that every zero is outside it by the
// exponent and takes the zero's branch, where it is counted.

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

// DIST sets SI to the value's exponent's distance from the band's lowest,
// unsigned, and compares it with span: above it, the value is outside the
// band, but for a zero, which the caller checks then (bandDistance, with
// the zero's test taken only for values beyond the band).
#define DIST(bits) \
	MOVQ bits, SI; \
	SHRQ $52, SI; \
	ANDL $0x7ff, SI; \
	SUBQ DI, SI; \
	CMPQ SI, R11

// BANDRANGE sets DI and R11 to bandRange(anchor, m.squareLimit()), for
// the anchor in reg and the Moments at AX (R9 and R13 are clobbered).
#define BANDRANGE(reg) \
	LEAQ -const_bandSpan(reg), DI; \
	LEAQ const_bandSpan(reg), R11; \
	MOVQ $(const_bigExp-1), R9; \
	MOVQ $const_anchorMax, R13; \
	CMPB Moments_noSquares(AX), $0; \
	CMOVQNE R13, R9; \
	CMPQ R11, R9; \
	CMOVQGT R9, R11; \
	MOVQ $0x1000, R13; \
	SUBQ DI, R11; \
	CMOVQLT R13, DI; \
	MOVL $0, R9; \
	CMOVQLT R9, R11

// func shiftRun(m *Moments, slots []int, sl *Slide) int
//
// For i = 0, 1, …: the pass of ShiftSquares (or ShiftSums without
// squares) on the Moments at m+i reading slot slots[i] of the slide's
// rows, up to the first that does not apply, which it leaves unchanged;
// it returns how many it shifted. AX is the state at hand, R10 its
// index.
TEXT ·shiftRun(SB), NOSPLIT, $0-48
	CMPB ·shiftAsm(SB), $0
	JEQ rungo
	MOVQ sl+32(FP), BX
	MOVQ Slide_Stride(BX), R12
	TESTQ R12, R12
	JLE rungo
	SHLQ $3, R12
	MOVQ m+0(FP), AX
	XORL R10, R10
	MOVQ $1, DX
	MOVQ DX, X11

next:
	CMPQ R10, slots_len+16(FP)
	JGE end
	MOVQ slots_base+8(FP), CX
	MOVQ (CX)(R10*8), CX
	// A slot before the row's: left to the Go code.
	TESTQ CX, CX
	JLT end

	// !m.applies(sl): !m.anchored, an anchor at most bandSpan, or
	// b.n − zeros <= sl.RN; the pass does not apply.
	CMPB Moments_anchored(AX), $0
	JEQ end
	MOVQ Moments_main+band_n(AX), DX
	MOVWQZX Moments_zeros(AX), R13
	SUBQ R13, DX
	CMPQ DX, Slide_RN(BX)
	JLE end

	// The band's range: the anchor's ± bandSpan when that lies below
	// the squares' limit (and so below the sums'), else bandRange's cut.
	MOVWQSX Moments_anchor(AX), SI
	CMPQ SI, $const_bandSpan
	JLE end
	LEAQ -const_bandSpan(SI), DI
	MOVQ $(2*const_bandSpan), R11
	CMPQ SI, $(const_bigExp-1-const_bandSpan)
	JLE banded
	BANDRANGE(SI)

banded:

	// checkRem := m.rare || m.zeros != 0, in DX; no zeros counted yet.
	MOVBLZX Moments_rare(AX), DX
	MOVWQZX Moments_zeros(AX), R13
	ORQ R13, DX
	VPXOR X12, X12, X12
	VPXOR X13, X13, X13
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
	DIST(DX)
	JHI sqremzero
sqremin:
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
	DIST(DX)
	JHI sqaddzero
sqaddin:
	MOVQ DX, X4
	ADDDD
	ADDSQ
	ADDQ R12, R8
	CMPQ R8, R9
	JCS sqaddloop

sqend:
	// notFinite(s, c, q, qc): x − x is +0 for a finite x and NaN
	// otherwise.
	VSUBSD X0, X0, X4
	VSUBSD X1, X1, X5
	VADDSD X5, X4, X4
	VSUBSD X2, X2, X5
	VADDSD X5, X4, X4
	VSUBSD X3, X3, X5
	VADDSD X5, X4, X4
	VUCOMISD X4, X4
	JPS end
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
	DIST(DX)
	JHI sumsremzero
sumsremin:
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
	DIST(DX)
	JHI sumsaddzero
sumsaddin:
	MOVQ DX, X4
	ADDDD
	ADDQ R12, R8
	CMPQ R8, R9
	JCS sumsaddloop

sumsend:
	VSUBSD X0, X0, X4
	VSUBSD X1, X1, X5
	VADDSD X5, X4, X4
	VUCOMISD X4, X4
	JPS end

done:
	// zeros = addZeros(zeros, gone, come): min(max(zeros − gone, 0) +
	// come, maxZeros), when a zero left or entered.
	VPOR X12, X13, X5
	VPTEST X5, X5
	JEQ counted
	MOVWQZX Moments_zeros(AX), DX
	MOVQ X12, R13
	SUBQ R13, DX
	MOVL $0, R13
	CMOVQLT R13, DX
	MOVQ X13, R13
	ADDQ R13, DX
	MOVL $const_maxZeros, R13
	CMPQ DX, R13
	CMOVQGT R13, DX
	MOVW DX, Moments_zeros(AX)
counted:
	// b.n moves by AN − RN; the sums are stored.
	MOVQ Slide_AN(BX), DX
	SUBQ Slide_RN(BX), DX
	ADDQ DX, Moments_main+band_n(AX)
	VMOVSD X0, Moments_main+band_s(AX)
	VMOVSD X1, Moments_main+band_c(AX)
	INCQ R10
	ADDQ $Moments__size, AX
	JMP next

	// A value beyond the band: in it after all if it is a zero (of
	// either sign), and counted; otherwise the pass does not apply.
sqremzero:
	MOVQ DX, R13
	SHLQ $1, R13
	JNE end
	VPADDQ X11, X12, X12
	JMP sqremin
sqaddzero:
	MOVQ DX, R13
	SHLQ $1, R13
	JNE end
	VPADDQ X11, X13, X13
	JMP sqaddin
sumsremzero:
	MOVQ DX, R13
	SHLQ $1, R13
	JNE end
	VPADDQ X11, X12, X12
	JMP sumsremin
sumsaddzero:
	MOVQ DX, R13
	SHLQ $1, R13
	JNE end
	VPADDQ X11, X13, X13
	JMP sumsaddin

end:
	MOVQ R10, ret+40(FP)
	RET

rungo:
	JMP ·shiftRunGo(SB)

// func fillRunMinMax(m *Moments, run []uint64, stride, n int) (lo, hi float64, ok bool)
//
// The one pass of Moments.FillRunMinMax, as shift is ShiftSquares': X11
// the smallest value, X12 the largest, CX the first value's exponent, R10
// the zeros counted (a run is at most ShortRun long).
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

	// The first value's exponent, e0, anchors the band: above bandSpan
	// (so that the band lies above a zero's exponent), not that of an
	// infinity or a NaN.
	MOVQ (R8), CX
	SHRQ $52, CX
	ANDL $0x7ff, CX
	CMPL CX, $const_bandSpan
	JLE fillno
	CMPL CX, $0x7ff
	JEQ fillno

	// bandRange(e0, squareLimit()): DI lo, R11 span, as in shiftRun; R9
	// again the run's end after BANDRANGE.
	LEAQ -const_bandSpan(CX), DI
	MOVQ $(2*const_bandSpan), R11
	CMPQ CX, $(const_bigExp-1-const_bandSpan)
	JLE fillbanded
	MOVQ R9, R10
	BANDRANGE(CX)
	MOVQ R10, R9

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
	DIST(DX)
	JHI fillsqzero
fillsqin:
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
	DIST(DX)
	JHI fillsumszero
fillsumsin:
	MOVQ DX, X4
	VMINSD X11, X4, X11
	VMAXSD X12, X4, X12
	ADDDD
	ADDQ R12, R8
	CMPQ R8, R9
	JCS fillsums

fillend:
	// notFinite(s, q, qc, 0).
	VSUBSD X0, X0, X4
	VSUBSD X2, X2, X5
	VADDSD X5, X4, X4
	VSUBSD X3, X3, X5
	VADDSD X5, X4, X4
	VUCOMISD X4, X4
	JPS fillno

	// The whole state, anchored at e0, in the main band.
	MOVQ n+40(FP), DX
	MOVW CX, Moments_anchor(AX)
	MOVB $1, Moments_anchored(AX)
	MOVB $0, Moments_rare(AX)
	MOVW R10, Moments_zeros(AX)
	MOVQ DX, Moments_main+band_n(AX)
	VMOVSD X0, Moments_main+band_s(AX)
	VMOVSD X1, Moments_main+band_c(AX)
	VMOVSD X2, Moments_main+band_q(AX)
	VMOVSD X3, Moments_main+band_qc(AX)
	VMOVSD X11, lo+48(FP)
	VMOVSD X12, hi+56(FP)
	MOVB $1, ok+64(FP)
	RET

fillsqzero:
	MOVQ DX, R13
	SHLQ $1, R13
	JNE fillno
	INCQ R10
	JMP fillsqin
fillsumszero:
	MOVQ DX, R13
	SHLQ $1, R13
	JNE fillno
	INCQ R10
	JMP fillsumsin

fillno:
	MOVQ $0, lo+48(FP)
	MOVQ $0, hi+56(FP)
	MOVB $0, ok+64(FP)
	RET

fillgo:
	JMP ·fillRunMinMaxGo(SB)
