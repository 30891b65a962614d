package column

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fill appends cells of every shape to a column of kind k: present ones
// and a missing one.
func fill(c *Col[int], k uint8, seed int) {
	for i := range 3 {
		x := seed*10 + i
		switch k {
		case Time:
			c.AppendTime(int64(x))
		case Number:
			c.AppendNum(float64(x))
		case String:
			c.AppendStr(string(rune('a' + x%26)))
		case Bool:
			c.AppendBool(x%2 == 0)
		case Array:
			c.AppendArray([]int{x, x + 1}[:i%3])
		}
		if i == 1 && k != Time {
			c.AppendMissing()
		}
	}
}

func TestAppendAllAndRangeAreAppendFromEveryCell(t *testing.T) {
	for _, k := range []uint8{Time, Number, String, Bool, Array} {
		a, b := Make[int](k), Make[int](k)
		fill(&a, k, 1)
		fill(&b, k, 2)
		bulk, one := Make[int](k), Make[int](k)
		fill(&bulk, k, 3)
		fill(&one, k, 3)
		bulk.AppendAll(&a)
		bulk.AppendRange(&b, 0, 2)
		bulk.AppendRange(&b, 2, 2)
		bulk.AppendRange(&b, 2, b.Len())
		for _, src := range []*Col[int]{&a, &b} {
			for i := range src.Len() {
				one.AppendFrom(src, i)
			}
		}
		if !assert.Equal(t, one.Len(), bulk.Len(), "kind %d", k) {
			continue
		}
		for i := range one.Len() {
			assert.Equal(t, one.IsMissing(i), bulk.IsMissing(i), "kind %d cell %d missing", k, i)
			switch k {
			case Time:
				assert.Equal(t, one.Time(i), bulk.Time(i))
			case Number:
				x, _ := one.Num(i)
				y, _ := bulk.Num(i)
				assert.Equal(t, math.Float64bits(x), math.Float64bits(y))
			case String:
				x, _ := one.Str(i)
				y, _ := bulk.Str(i)
				assert.Equal(t, x, y)
			case Bool:
				x, _ := one.Bool(i)
				y, _ := bulk.Bool(i)
				assert.Equal(t, x, y)
			case Array:
				x, _ := one.Array(i)
				y, _ := bulk.Array(i)
				assert.Equal(t, x, y, "kind %d cell %d", k, i)
			}
		}
	}
}

func TestGrowNumsAppendsCellsSetInPlace(t *testing.T) {
	c := Make[int](Number)
	c.AppendNum(1)
	xs := c.GrowNums(3)
	assert.Len(t, xs, 3)
	xs[0], xs[1], xs[2] = 2, math.NaN(), 4
	c.AppendNum(5)
	assert.Equal(t, 5, c.Len())
	for i, want := range []float64{1, 2, 0, 4, 5} {
		x, ok := c.Num(i)
		assert.Equal(t, i != 2, ok, "cell %d present", i)
		if ok {
			assert.Equal(t, want, x, "cell %d", i)
		}
	}
}
