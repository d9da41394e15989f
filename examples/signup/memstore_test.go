package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMemAccounts: without -db, accounts keep the promises of the SQL
// tables: one account per email whatever its case, a retry of the run that
// created it finds it, and only the principal who signed up sets its
// password.
func TestMemAccounts(t *testing.T) {
	m := newMemAccounts()
	ada := &account{Email: " Ada@Example.com", Plan: "pro", Principal: "alice"}
	for _, tt := range []struct {
		name string
		do   func() bool
		want bool
	}{
		{"created", func() bool { return m.create("run-1", ada) }, true},
		{"the same run again", func() bool { return m.create("run-1", ada) }, true},
		{"another run, the email in another case", func() bool {
			return m.create("run-2", &account{Email: "ada@example.COM", Plan: "team", Principal: "mallory"})
		}, false},
		{"a password from another principal", func() bool { return m.setPassword("ada@example.com", "mallory", "s", "h") }, false},
		{"a password for no account", func() bool { return m.setPassword("bob@example.com", "alice", "s", "h") }, false},
		{"a password from its principal", func() bool { return m.setPassword("ADA@example.com", "alice", "s", "h") }, true},
		{"a second account", func() bool { return m.create("run-3", &account{Email: "bob@example.com", Plan: "pro"}) }, true},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.do()) })
	}
	assert.Equal(t, []account{{Email: "ada@example.com", Plan: "pro"}, {Email: "bob@example.com", Plan: "pro"}}, m.list(),
		"the first run's account, by email, principals left out")
	assert.Equal(t, [2]string{"s", "h"}, m.passwords["ada@example.com"])
}
