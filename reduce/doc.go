// Package reduce holds pond-go's reducers: their names ([Parse]), the kinds
// of column they read and write ([Reducer.Check], [Reducer.OutputKind]),
// and [Agg], one output column of an aggregation, which the live package's
// rolling, reduce and aggregate nodes take. The states that compute them
// (sliding windows, sets that accept removals in any order, fixed buckets)
// are the engines' business; this page gives their rules and costs.
//
// The reducers follow pond-ts's, with the numerical differences recorded
// in the repository's docs/differences.md (§1 to §4): compensated sums,
// the population standard deviation, non-finite values as missing and
// linearly interpolated percentiles.
//
// # Reducers
//
//	name          reads                          result                     empty
//	count         any value kind                 number of defined values   0
//	sum           number                         Σx                         0
//	avg, mean     number                         Σx / n                     missing
//	min, max      number                         smallest / largest         missing
//	first, last   any value kind                 earliest / latest arrived  missing
//	median        number                         p50                        missing
//	p<q>          number                         q-th percentile            missing
//	stdev         number                         population σ (1 value: 0)  missing
//	difference    number                         max − min (1 value: 0)     missing
//	keep          any value kind                 the value if all are equal missing
//	unique        number, string, boolean, array distinct scalars, sorted   []
//	top<N>        number, string, boolean, array N most frequent scalars    []
//	samples       number, string, boolean, array defined values, arrived    []
//
// Value kinds are number, string, boolean and array (of scalars); no reducer
// reads a time column. first, last and keep give a result of the source's
// kind, unique, top and samples an array, the others a number. An array
// counts once in count; unique, top and samples flatten arrays one level
// (samples of [3, –, ['a', 'b'], 1] is [3, 'a', 'b', 1]).
//
// Names are case-sensitive. "mean" is "avg" and "median" is "p50" under
// another name. In p<q>, q is a plain decimal number in [0, 100] ("p99.9",
// "p0", "p100"; not "p1e1", "p+5", "p.5", "p5." or "p101"); in top<N>, N is
// decimal digits with a value of at least 1 ("top0" is an error).
//
// # Missing values and NaN
//
// The zero [schema.Value] is missing. Reducers skip missing values, and a
// non-finite number (NaN, ±Inf, which only computed steps can produce) is
// missing too, as in pond-ts: the sum of [1, NaN, 2, Inf] is 3 and its count
// is 2. Numeric reducers also skip values that are not numbers. A numeric
// result that is not finite (a sum beyond the float64 range, or a
// difference: max − min of −1e308 and 1e308) is written as missing.
// Values from 2^960 (about 1e289) up are summed apart from the others, in
// units of 2^128, so that no sum of finite values overflows on the way:
// the sum of [1.7e308, 1.7e308, −1.7e308] is 1.7e308, the avg of [1e308,
// 1e308] is 1e308, and a window's sum is missing exactly while the values
// it holds sum beyond the range — a count-2 window over 1.7e308, 1.7e308,
// −1.7e308, 1, 1 gives 1.7e308, missing, 0, −1.7e308 and 2. A stdev is
// missing while the window holds a value whose square is beyond what its
// sums keep (|x| ≥ 2^500, about 3.3e150), even of that value alone, and
// comes back when it leaves. At the other end, the squares of values below
// 2^-511 (about 1.5e-154) in magnitude fall below float64's normal range:
// a stdev over such values loses precision, and reads 0 once their squares
// round to zero (below about 1e-162), as the stdev of [1e-300, 0] does;
// scale such data before aggregating it. From 2^-511 up a stdev keeps its
// precision.
//
// # Scalar order
//
// unique sorts, and top breaks ties in count, by pond-ts's scalar order:
// numbers ascending, then strings by their UTF-16 code units (JavaScript's
// order, which differs from Go's byte order only where a character above
// U+FFFF meets one in U+E000–U+FFFF), then false before true. So unique of
// ['b', 2, 'a', 1, true, false, 2] is [1, 2, 'a', 'b', false, true], and
// top2 of ['x', 'y', 'y', 'z', 'z', 'a'] is ['y', 'z']. top gives its
// values by count, the most frequent first (top3 of ['a', 'b', 'b', 'c',
// 'c', 'c'] is ['c', 'b', 'a']). Numbers compare by value, so 0 and −0 are
// one value. samples gives the values in the order their rows arrived,
// which under reorder ordering is not always their times' order.
//
// # keep
//
// keep compares numbers with == (0 equals −0), strings and booleans by
// value, and arrays element by element ([schema.Value.Equal]), as pond-rs
// does. pond-ts compares arrays by object identity, so over an array column
// its keep is missing as soon as two rows are in the window; pond-go gives
// the array when all arrays in the window are equal. A window's keep of
// zeros is 0, −0 alone too (pond-ts's rolling map does the same for 0 and
// −0); a bucket's is the first of them. Elsewhere which zero a result
// carries (a min, a max, a percentile that lands on a zero) is not
// promised: JSON writes both as 0.
//
// # Percentiles
//
// p<q> (and median, q = 50) of n sorted numbers s uses the linear rule:
// rank = q/100·(n−1), lo = ⌊rank⌋, hi = ⌈rank⌉, and the result is s[lo]
// when lo = hi, else s[lo] + (s[hi] − s[lo])·(rank − lo). So p95 of 1…10 is
// 9.549999999999999, p99.9 of 1…10 is 9.991000000000001, and the median of
// [4, 1, 3, 2] is 2.5. Where s[hi] − s[lo] is beyond the float64 range
// (−1e308 and 1e308) the result is s[lo]·(1 − f) + s[hi]·f, f = rank − lo,
// which is finite: the median of [−1e308, 1e308] is 0.
//
// # Numerics
//
// sum, avg and stdev keep compensated (double-double) running sums of x
// and x² (docs/differences.md §1): every addition's
// rounding error is kept, so adding and removing values does not drift.
// Add 1e16, add 1, remove 1e16 gives 1 (pond-ts gives 0), and the stdev of
// 5, 5, 5 left after other values were evicted is exactly 0 (pond-ts:
// 8.4e-8). Values are kept in magnitude bands, each reset to exactly zero
// when nothing but zeros is left in it, so an outlier's rounding residue
// leaves with the values of its magnitude (within 2^53 of it). sum is the
// double-double sum rounded once; avg divides that rounded sum by n (within
// an ulp of the exact mean, not always the nearest float64 to it), or
// divides in double-double when values of several bands are held. stdev
// is the population form √(Σ(x−mean)²/n), taken in float64
// when the variance is not small against the squared mean and finished in
// double-double otherwise. Results can differ from
// pond-ts's plain float sums in the last bits, and by more where pond-ts
// drifts.
//
// An update costs about as much as a plain floating-point add in a loop
// (3–4 ns on the machine of BENCH.md): the
// compensation is off the critical path.
//
// # Complexity
//
// Per Add or Remove in a window of n values: count, sum, avg and stdev O(1);
// min, max and difference amortised O(1) with monotone deques, O(log n)
// in a set state (a reduce over a reordering source); first, last and samples amortised
// O(1) (O(n) for an out-of-order removal); median and percentiles O(log n)
// (a sorted slice while n ≤ 512, an order-statistic tree past that, whose
// reads are O(log n) too); keep, unique and top
// one map update per scalar. Append is O(1) for the numeric reducers, first,
// last and keep; O(n) for samples; O(d log d) for unique and top over d
// distinct values. Steady-state windows do not allocate, except keep over
// arrays (one key string per update).
package reduce
