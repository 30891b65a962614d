#include "textflag.h"

// TWOSUM adds b to the double-double a + c, lane by lane: t = a + b;
// d = t - a; c += (a - (t - d)) + (b - d); a = t. X7-X9 are clobbered.
#define TWOSUM(a, b, c) \
	VADDPD b, a, X7; \
	VSUBPD a, X7, X8; \
	VSUBPD X8, X7, X9; \
	VSUBPD X9, a, X9; \
	VSUBPD X8, b, X8; \
	VADDPD X8, X9, X9; \
	VADDPD X9, c, c; \
	VMOVAPD X7, a

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// FOLD folds the four lanes of the double-double sum + comp (sx and cx
// name the same registers' low halves) into lane 0 of sx + cx: lanes 0
// and 2 with 1 and 3, then the two left. X5-X9 are clobbered.
#define FOLD(sum, comp, sx, cx) \
	VEXTRACTF128 $1, sum, X5; \
	VEXTRACTF128 $1, comp, X6; \
	VADDPD X6, cx, cx; \
	TWOSUM(sx, X5, cx); \
	VPERMILPD $1, sx, X5; \
	VPERMILPD $1, cx, X6; \
	VADDPD X6, cx, cx; \
	TWOSUM(sx, X5, cx)

// func run(p *uint64, groups, strideBytes int, sq bool, lo, hi uint64, l *Sum) bool
//
// Y0 the four values; Y1 S, Y2 C, Y3 Q, Y4 QC; Y5-Y9 temporaries;
// Y10 lo, Y11 hi, Y12 the exponents found outside, Y13 the exponent mask.
TEXT ·run(SB), NOSPLIT, $0-57
	MOVQ p+0(FP), AX
	MOVQ groups+8(FP), CX
	MOVQ strideBytes+16(FP), DX
	MOVBLZX sq+24(FP), BX
	LEAQ (DX)(DX*1), R8
	LEAQ (R8)(DX*1), R9
	VPBROADCASTQ lo+32(FP), Y10
	VPBROADCASTQ hi+40(FP), Y11
	MOVQ $0x7ff, R10
	// VEX-encoded: a legacy SSE instruction here, after the 256-bit
	// broadcasts above, pays the SSE/AVX transition, measured at about
	// 200 ns a call on an Intel Xeon (BenchmarkRun/rows=20).
	VMOVQ R10, X13
	VPBROADCASTQ X13, Y13
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VPXOR Y12, Y12, Y12

loop:
	// Four values, one per row.
	VMOVSD (AX), X0
	VMOVHPD (AX)(DX*1), X0, X0
	VMOVSD (AX)(R8*1), X5
	VMOVHPD (AX)(R9*1), X5, X5
	VINSERTF128 $1, X5, Y0, Y0

	// Biased exponents outside [lo, hi].
	VPSRLQ $52, Y0, Y6
	VPAND Y13, Y6, Y6
	VPCMPGTQ Y11, Y6, Y7
	VPOR Y7, Y12, Y12
	VPCMPGTQ Y6, Y10, Y7
	VPOR Y7, Y12, Y12

	// TwoSum: t = s + x; d = t - s; c += (s - (t - d)) + (x - d); s = t.
	VADDPD Y0, Y1, Y5
	VSUBPD Y1, Y5, Y6
	VSUBPD Y6, Y5, Y7
	VSUBPD Y7, Y1, Y7
	VSUBPD Y6, Y0, Y8
	VADDPD Y8, Y7, Y7
	VADDPD Y7, Y2, Y2
	VMOVAPD Y5, Y1

	TESTQ BX, BX
	JZ next

	// Squares: p = x*x; e = fma(x, x, -p); u = q + p; d = u - q;
	// qc += (q - (u - d)) + (p - d) + e; q = u.
	VMULPD Y0, Y0, Y5
	VMOVAPD Y5, Y6
	VFMSUB231PD Y0, Y0, Y6
	VADDPD Y5, Y3, Y7
	VSUBPD Y3, Y7, Y8
	VSUBPD Y8, Y7, Y9
	VSUBPD Y9, Y3, Y9
	VSUBPD Y8, Y5, Y8
	VADDPD Y8, Y9, Y9
	VADDPD Y6, Y9, Y9
	VADDPD Y9, Y4, Y4
	VMOVAPD Y7, Y3

next:
	LEAQ (AX)(DX*4), AX
	DECQ CX
	JNZ loop

	// Fold the four lanes into one, as TwoSums: lanes 0 and 2 with 1 and
	// 3, then the two that are left.
	FOLD(Y1, Y2, X1, X2)
	FOLD(Y3, Y4, X3, X4)

	MOVQ l+48(FP), DI
	VMOVSD X1, 0(DI)
	VMOVSD X2, 8(DI)
	VMOVSD X3, 16(DI)
	VMOVSD X4, 24(DI)
	VPTEST Y12, Y12
	SETNE ret+56(FP)
	VZEROUPPER
	RET
