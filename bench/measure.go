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
}

// compare measures two operations alternately for some rounds and returns
// the median of each: alternating spreads the noise of a shared machine
// over both sides. In smoke mode each runs three times.
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
	for range rounds {
		o, err := bench(ours)
		if err != nil {
			return result{}, result{}, err
		}
		b, err := bench(base)
		if err != nil {
			return result{}, result{}, err
		}
		os, bs = append(os, o), append(bs, b)
	}
	return median(os), median(bs), nil
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
