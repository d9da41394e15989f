package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
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
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// A metric is one row of the table for each number of clients.
type metric struct {
	name   string
	format string
	of     func(median) float64
}

var metrics = []metric{
	{"signups/s", "%.0f", func(m median) float64 { return m.rate }},
	{"CPU ms per signup", "%.3f", func(m median) float64 { return m.cpu }},
	{"p99 ms per call", "%.1f", func(m median) float64 { return m.p99 }},
	{"peak MB", "%.1f", func(m median) float64 { return m.peak }},
}

// printSummary prints, for each setting, the medians of each server at
// each number of clients, and a markdown table of them with mcpform's
// ratios to the floor and to TypeScript.
func printSummary(out io.Writer, cfg config, all []result) {
	for _, set := range cfg.Settings {
		meds := map[string]map[int]median{}
		for _, s := range cfg.Servers {
			meds[s] = map[int]median{}
			for _, c := range cfg.Clients {
				var rs []result
				for _, r := range all {
					if r.setting == set.name && r.server == s && r.clients == c {
						rs = append(rs, r)
					}
				}
				if len(rs) > 0 {
					meds[s][c] = medianOf(rs)
				}
			}
		}
		fmt.Fprintf(out, "\n#### %s; plan %s, %v per run, medians of %d runs (peak: the highest)\n\n",
			describe(set, cfg.GoEnv), cfg.Plan, cfg.Duration, cfg.Count)
		fmt.Fprintf(out, "| c | | mcpform | floor | TS | mcpform ÷ floor | mcpform ÷ TS |\n")
		fmt.Fprintf(out, "|---|---|---|---|---|---|---|\n")
		for _, c := range cfg.Clients {
			for _, m := range metrics {
				cell := func(s string) string {
					md, ok := meds[s][c]
					if !ok {
						return "–"
					}
					return fmt.Sprintf(m.format, m.of(md))
				}
				ratio := func(s string) string {
					g, ok1 := meds["mcpform"][c]
					o, ok2 := meds[s][c]
					if !ok1 || !ok2 || m.of(o) == 0 {
						return "–"
					}
					return fmt.Sprintf("%.2f×", m.of(g)/m.of(o))
				}
				fmt.Fprintf(out, "| %d | %s | %s | %s | %s | %s | %s |\n",
					c, m.name, cell("mcpform"), cell("floor"), cell("ts"), ratio("floor"), ratio("ts"))
			}
		}
	}
}

// describe says what set and the -go-env goEnv run both Go servers with.
func describe(set setting, goEnv []string) string {
	d := "An equal memory budget for both Go servers: " + strings.Join(set.env, " ")
	if set.name == "defaults" {
		d = "The example's defaults: both Go servers as shipped"
	}
	if len(goEnv) > 0 {
		d += ", plus " + strings.Join(goEnv, " ") + " for both"
	}
	return d
}
