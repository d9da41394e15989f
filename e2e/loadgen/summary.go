package main

import (
	"fmt"
	"io"
	"slices"
)

// median is the median of a server's runs at one number of clients.
type median struct {
	rate, p99, cpu float64 // signups/s, ms, ms per signup
	peak           float64 // MB, the highest of the runs
}

func medianOf(rs []result) median {
	var rate, p99, cpu []float64
	var m median
	for _, r := range rs {
		rate = append(rate, r.rate())
		p99 = append(p99, ms(r.p99))
		cpu = append(cpu, r.cpuPerSignup())
		m.peak = max(m.peak, float64(r.peak)/(1<<20))
	}
	m.rate, m.p99, m.cpu = mid(rate), mid(p99), mid(cpu)
	return m
}

func mid(v []float64) float64 {
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// printSummary prints the medians of each server at each number of
// clients, and, with both servers, Go's against TypeScript's.
func printSummary(out io.Writer, cfg config, all []result) {
	fmt.Fprintf(out, "\n# medians of %d runs, plan %s\n", cfg.Count, cfg.Plan)
	fmt.Fprintf(out, "%-3s %4s %10s %9s %11s %9s\n", "srv", "c", "signups/s", "p99 ms", "cpu ms/su", "peak MB")
	meds := map[string]map[int]median{}
	for _, s := range cfg.Servers {
		meds[s] = map[int]median{}
		for _, c := range cfg.Clients {
			var rs []result
			for _, r := range all {
				if r.server == s && r.clients == c {
					rs = append(rs, r)
				}
			}
			m := medianOf(rs)
			meds[s][c] = m
			fmt.Fprintf(out, "%-3s %4d %10.0f %9.2f %11.3f %9.1f\n", s, c, m.rate, m.p99, m.cpu, m.peak)
		}
	}
	if len(meds["go"]) == 0 || len(meds["ts"]) == 0 {
		return
	}
	fmt.Fprintf(out, "\n| clients | signups/s, Go ÷ TS | p99 per call, Go / TS | server CPU per signup, Go / TS | peak memory, Go / TS |\n")
	fmt.Fprintf(out, "|---|---|---|---|---|\n")
	for _, c := range cfg.Clients {
		g, t := meds["go"][c], meds["ts"][c]
		fmt.Fprintf(out, "| %d | %.2f (%.0f / %.0f) | %.1f / %.1f ms | %.2f / %.2f ms (%.2f×) | %.0f / %.0f MB |\n",
			c, g.rate/t.rate, g.rate, t.rate, g.p99, t.p99, g.cpu, t.cpu, g.cpu/t.cpu, g.peak, t.peak)
	}
}
