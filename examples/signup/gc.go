package main

import (
	"os"
	"runtime/debug"
)

// defaultGCPercent is the example's GOGC unless the environment sets one.
//
// Under load the server's live heap is a few megabytes, but each request
// leaves far more garbage: go-sdk's JSON decoder allocates a 32 KiB buffer
// for every value it decodes, half a dozen per tools/call. At Go's default
// of 100 the collector then runs every few dozen requests and takes about
// half the CPU; at 400 a signup costs about half the CPU, for some tens of
// megabytes more at peak. GOMEMLIMIT still bounds the heap (see doc.go).
const defaultGCPercent = 400

func init() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
}
