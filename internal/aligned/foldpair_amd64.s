#include "textflag.h"

// BIGTEST loads row BX's x (xs at R11) into X2, [x, y] (ys at R12)
// into X4 and [x², y²] into X1, and jumps to big when x² + y² is not
// below 2^1000 (X12): a value whose square is not summed (from 2^500),
// or a huge one (from 2^960, see hugeValue), which the Go code folds
// (pairBig, foldPairRow). One test for both columns, on the square the
// fold takes anyway. X5 is clobbered.
#define BIGTEST(big) \
	VMOVSD (R11)(BX*8), X2; \
	VMOVHPD (R12)(BX*8), X2, X4; \
	VMULPD X4, X4, X1; \
	VHADDPD X1, X1, X5; \
	VUCOMISD X5, X12; \
	JLS big

// FOLDROW folds row BX (x in X2, [x, y] in X4, x² in X1's low lane,
// from BIGTEST) into the record at DI:
//
//	r[off2:] += y (double-double, TwoSum)
//	r[ext] = min, r[ext+1] = max with x (NaN: none yet)
//	r[off:] += x, r[off+2:] += x² (double-double, the square's error by
//	FMA), or, jumping to mark, r[off+2], r[off+3] = +Inf, 0 when
//	r[off+2] is +Inf
//
// with off, ext and off2 (in words) in R8, R9 and R13, and X13 the
// largest float64. Each operation (each lane of one, for the two sums)
// is the one the Go loop's compiled code makes, with the same first
// operand, so the words are the same bits. X3-X7 are clobbered.
#define FOLDROW(mark) \
	/* The sums of x and of y, as two lanes [x, y] of one TwoSum each */ \
	/* op (each lane's op is the scalar one, bit for bit): s = b + a, */ \
	/* bb = s - a, e = (b - bb) + (a - (s - bb)), c = e + c. */ \
	VMOVSD (DI)(R8*8), X3; \
	VMOVHPD (DI)(R13*8), X3, X3; \
	VADDPD X3, X4, X7; \
	VSUBPD X3, X7, X5; \
	VSUBPD X5, X7, X6; \
	VSUBPD X6, X3, X3; \
	VSUBPD X5, X4, X4; \
	VADDPD X3, X4, X4; \
	VMOVSD 8(DI)(R8*8), X6; \
	VMOVHPD 8(DI)(R13*8), X6, X6; \
	VADDPD X6, X4, X4; \
	VMOVSD X7, (DI)(R8*8); \
	VMOVHPD X7, (DI)(R13*8); \
	VMOVSD X4, 8(DI)(R8*8); \
	VMOVHPD X4, 8(DI)(R13*8); \
	/* The extremes: the min is x when !(x >= min), the max x when */ \
	/* !(max >= x), each chosen by a compare's mask (predicate NGE_UQ: */ \
	/* true when unordered, as the Go loop's negated test) and stored */ \
	/* either way: no branch to mispredict on values in no order. */ \
	VMOVSD (DI)(R9*8), X3; \
	VCMPSD $0x19, X3, X2, X5; \
	VBLENDVPD X5, X2, X3, X3; \
	VMOVSD X3, (DI)(R9*8); \
	VMOVSD 8(DI)(R9*8), X3; \
	VCMPSD $0x19, X2, X3, X5; \
	VBLENDVPD X5, X2, X3, X3; \
	VMOVSD X3, 8(DI)(R9*8); \
	/* The squares: sq = x*x (below 2^1000: BIGTEST); marked when */ \
	/* q > max. */ \
	VMOVSD 16(DI)(R8*8), X3; \
	VUCOMISD X13, X3; \
	JHI mark; \
	/* s = q + sq, bb = s - q, e = (sq - bb) + (q - (s - bb)); */ \
	/* qc = ((x*x - sq) + e) + qc, the first term by FMA. */ \
	VADDSD X1, X3, X7; \
	VSUBSD X3, X7, X5; \
	VSUBSD X5, X7, X6; \
	VSUBSD X6, X3, X3; \
	VSUBSD X5, X1, X4; \
	VADDSD X3, X4, X4; \
	VMOVAPD X1, X6; \
	VFMSUB231SD X2, X2, X6; \
	VADDSD X4, X6, X6; \
	VADDSD 24(DI)(R8*8), X6, X6; \
	VMOVSD X7, 16(DI)(R8*8); \
	VMOVSD X6, 24(DI)(R8*8)

// CONSTS loads FOLDROW's constants, and +Inf in X14 for a mark.
#define CONSTS \
	MOVQ $0x7e70000000000000, BX; \
	VMOVQ BX, X12; \
	MOVQ $0x7fefffffffffffff, BX; \
	VMOVQ BX, X13; \
	MOVQ $0x7ff0000000000000, BX; \
	VMOVQ BX, X14

// COUNTARGS loads foldPairCount's and foldPairCountOnly's common
// arguments (AX base, DX size, SI parts, R11 xs, R12 ys, R8 off, R9 ext,
// R13 off2, R10 n) and the constants, and jumps to done without rows.
#define COUNTARGS(done) \
	MOVQ base+0(FP), AX; \
	MOVQ size+8(FP), DX; \
	MOVQ parts_base+24(FP), SI; \
	MOVQ xs_base+48(FP), R11; \
	MOVQ ys_base+72(FP), R12; \
	MOVQ off+96(FP), R8; \
	MOVQ ext+104(FP), R9; \
	MOVQ off2+112(FP), R13; \
	MOVQ n_base+120(FP), R10; \
	CONSTS; \
	XORQ BX, BX; \
	CMPQ BX, parts_len+32(FP); \
	JEQ done

// COUNTROW reads row BX's partition into DI and its count into R15, and
// jumps to done when the partition is not below nrec (a negative one
// neither) or its count is above limit (near saturation, or shut).
#define COUNTROW(done) \
	MOVLQSX (SI)(BX*4), DI; \
	CMPQ DI, nrec+16(FP); \
	JAE done; \
	MOVL (R10)(DI*4), R15; \
	CMPL R15, limit+144(FP); \
	JHI done

// NEXTROW moves to the next row, back to loop while there is one.
#define NEXTROW(loop) \
	INCQ BX; \
	CMPQ BX, parts_len+32(FP); \
	JLT loop

// func foldPair(base unsafe.Pointer, size uintptr, nrec uint, parts []int32, xs, ys []float64, off, ext, off2 int) int
//
// Row i, of partition q = parts[i], is folded into the record at
// base + q*size (FOLDROW), while q is below nrec and the row passes
// BIGTEST.
//
// AX base, DX size, R10 nrec, SI parts, CX rows, R11 xs, R12 ys, R8 off,
// R9 ext, R13 off2, BX row, DI record.
TEXT ·foldPair(SB), NOSPLIT, $0-128
	MOVQ base+0(FP), AX
	MOVQ size+8(FP), DX
	MOVQ nrec+16(FP), R10
	MOVQ parts_base+24(FP), SI
	MOVQ parts_len+32(FP), CX
	MOVQ xs_base+48(FP), R11
	MOVQ ys_base+72(FP), R12
	MOVQ off+96(FP), R8
	MOVQ ext+104(FP), R9
	MOVQ off2+112(FP), R13
	CONSTS
	XORQ BX, BX
	TESTQ CX, CX
	JEQ done

loop:
	MOVLQSX (SI)(BX*4), DI
	CMPQ DI, R10
	JAE done // past the records (a negative q too)
	IMULQ DX, DI
	ADDQ AX, DI
	BIGTEST(done)
	FOLDROW(mark)

next:
	INCQ BX
	CMPQ BX, CX
	JLT loop

done:
	MOVQ BX, ret+120(FP)
	RET

mark:
	VMOVSD X14, 16(DI)(R8*8)
	MOVQ $0, 24(DI)(R8*8)
	JMP next

// func foldPairCount(base unsafe.Pointer, size uintptr, nrec uint, parts []int32, xs, ys []float64, off, ext, off2 int, n []uint32, limit uint32, raw [][]uint64) int
//
// foldPair counting each row too: while the row passes BIGTEST (before
// it is counted), q is below nrec (which is not above len(n) and
// len(raw)), its count c = n[q] is not above limit and raw[q] has room
// for a value at c, x is written at raw[q][c], n[q] is c + 1, and the
// row is folded (FOLDROW).
//
// AX base, DX size, SI parts, R11 xs, R12 ys, R8 off, R9 ext, R13 off2,
// R10 n, R14 raw, BX row, DI partition then record, R15 its count, CX
// its raw values.
TEXT ·foldPairCount(SB), NOSPLIT, $0-184
	MOVQ raw_base+152(FP), R14
	COUNTARGS(cdone)

cloop:
	BIGTEST(cdone)
	COUNTROW(cdone)
	LEAQ (DI)(DI*2), CX
	CMPQ R15, 8(R14)(CX*8)
	JAE cdone // no room for its raw value
	MOVQ (R14)(CX*8), CX
	VMOVSD X2, (CX)(R15*8)
	INCL R15
	MOVL R15, (R10)(DI*4)
	IMULQ DX, DI
	ADDQ AX, DI
	FOLDROW(cmark)

cnext:
	NEXTROW(cloop)

cdone:
	MOVQ BX, ret+176(FP)
	RET

cmark:
	VMOVSD X14, 16(DI)(R8*8)
	MOVQ $0, 24(DI)(R8*8)
	JMP cnext

// func foldPairCountOnly(base unsafe.Pointer, size uintptr, nrec uint, parts []int32, xs, ys []float64, off, ext, off2 int, n []uint32, limit uint32) int
//
// foldPairCount without raw values: while the row passes BIGTEST, q is
// below nrec (which is not above len(n)) and its count c = n[q] is not
// above limit, n[q] is c + 1 and the row is folded (FOLDROW).
//
// AX base, DX size, SI parts, R11 xs, R12 ys, R8 off, R9 ext, R13 off2,
// R10 n, BX row, DI partition then record, R15 its count.
TEXT ·foldPairCountOnly(SB), NOSPLIT, $0-160
	COUNTARGS(odone)

oloop:
	BIGTEST(odone)
	COUNTROW(odone)
	INCL R15
	MOVL R15, (R10)(DI*4)
	IMULQ DX, DI
	ADDQ AX, DI
	FOLDROW(omark)

onext:
	NEXTROW(oloop)

odone:
	MOVQ BX, ret+152(FP)
	RET

omark:
	VMOVSD X14, 16(DI)(R8*8)
	MOVQ $0, 24(DI)(R8*8)
	JMP onext
