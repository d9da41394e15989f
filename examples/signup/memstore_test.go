package main

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemAccounts: without -db, one account per email in any case, found
// again by its run's retry, whose password only its principal sets.
func TestMemAccounts(t *testing.T) {
	m := newMemAccounts()
	assert.True(t, m.create("run-1", &account{Email: " Ada@Example.com", Plan: "pro", Principal: "alice"}))
	assert.True(t, m.create("run-1", &account{Email: "ada@example.com"}), "a retry of the run")
	assert.False(t, m.create("run-2", &account{Email: "ADA@example.com", Principal: "mallory"}), "another run")
	assert.False(t, m.setPassword("ada@example.com", "mallory", "s", "h"), "another principal")
	assert.False(t, m.setPassword("bob@example.com", "alice", "s", "h"), "no account")
	assert.True(t, m.setPassword("ADA@example.com", "alice", "s", "h"))
	team := account{Email: "bob@example.com", FullName: "Bob\x00", Plan: "team", TeamName: "Ops", Seats: 12, Principal: "bob"}
	assert.True(t, m.create("run-3", &team))
	team.Principal = ""
	assert.Equal(t, []account{{Email: "ada@example.com", Plan: "pro"}, team}, m.list(), "the first run's account, without its principal")
	assert.Equal(t, [2]string{"s", "h"}, m.passwords["ada@example.com"])
}

// TestMemAccountsKeptSize: an account costs little beside its email, and
// no object of its own, since the server keeps every one.
func TestMemAccountsKeptSize(t *testing.T) {
	const n = 20000
	emails := make([]string, n)
	for i := range emails {
		emails[i] = fmt.Sprintf("person-%d@example.com", i)
	}
	// Servers of earlier tests may still free memory while this one
	// measures, which can make the heap shrink across the fill: measure
	// again then, rather than read an unsigned difference that wrapped.
	for attempt := 1; ; attempt++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m := newMemAccounts()
		for i, e := range emails {
			m.create(fmt.Sprintf("run-%018d", i), &account{Email: e, FullName: "Ada Lovelace", Plan: "pro", Principal: localPrincipal})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(m)
		bytes := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		objects := int64(after.HeapObjects) - int64(before.HeapObjects)
		if (bytes < 0 || objects < 0) && attempt < 5 {
			continue
		}
		require.True(t, bytes >= 0 && objects >= 0, "the heap shrank while it was measured, %d times", attempt)
		assert.Less(t, float64(bytes)/n, 120.0, "bytes an account")
		assert.Less(t, float64(objects)/n, 0.1, "objects an account")
		break
	}
	runtime.KeepAlive(emails)
}
