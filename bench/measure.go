package main

import (
	"sort"
	"testing"
	"time"
)

// result is the cost of one operation.
type result struct {
	nsPerOp     float64
	allocsPerOp float64
	// paired is, on the first result compare returns, the median over
	// its rounds of ours/base measured side by side: the ratio the
	// benchmark reports (vs). A round's two figures share the machine's
	// state of that moment, so their ratio drifts less with the noise of
	// a shared machine than the ratio of two medians taken apart.
	paired float64
}

// vs is how much ours costs against base: the paired ratio when compare
// measured them, else the ratio of the two.
func vs(ours, base result) float64 {
	if ours.paired > 0 {
		return ours.paired
	}
	return ours.nsPerOp / base.nsPerOp
}

// compare measures two operations alternately for some rounds and returns
// the median of each, and on ours the median of the rounds' ratios
// (paired): alternating spreads the noise of a shared machine over both
// sides. In smoke mode each runs three times.
func compare(ours, base func() error, rounds int, smoke bool) (result, result, error) {
	if smoke {
		o, err := quick(ours)
		if err != nil {
			return o, o, err
		}
		b, err := quick(base)
		return o, b, err
	}
	var os, bs []result
	for round := range rounds {
		// Each goes first in every other round (ours, base, base, ours,
		// …): what the first of a pair leaves behind (a longer WAL, a
		// heap to collect) falls on each as often.
		first, second := ours, base
		if round%2 == 1 {
			first, second = base, ours
		}
		f, err := bench(first)
		if err != nil {
			return result{}, result{}, err
		}
		s, err := bench(second)
		if err != nil {
			return result{}, result{}, err
		}
		if round%2 == 1 {
			f, s = s, f
		}
		os, bs = append(os, f), append(bs, s)
	}
	ratios := make([]float64, len(os))
	for i := range os {
		ratios[i] = os[i].nsPerOp / bs[i].nsPerOp
	}
	sort.Float64s(ratios)
	o := median(os)
	o.paired = ratios[len(ratios)/2]
	return o, median(bs), nil
}

func bench(op func() error) (result, error) {
	var failure error
	r := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := op(); err != nil {
				failure = err
				b.SkipNow()
			}
		}
	})
	return result{nsPerOp: float64(r.NsPerOp()), allocsPerOp: float64(r.AllocsPerOp())}, failure
}

func quick(op func() error) (result, error) {
	start := time.Now()
	for range 3 {
		if err := op(); err != nil {
			return result{}, err
		}
	}
	return result{nsPerOp: float64(time.Since(start).Nanoseconds()) / 3}, nil
}

func median(rs []result) result {
	sort.Slice(rs, func(i, j int) bool { return rs[i].nsPerOp < rs[j].nsPerOp })
	return rs[len(rs)/2]
}
