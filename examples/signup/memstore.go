package main

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// memAccounts keeps accounts and password hashes in the process's memory,
// as the SQL tables do for replicas: the store without -db. Like the
// runs in memoryRuns, they are gone when the process ends.
//
// An account is kept as one string behind its email: a server taking
// thousands of signups a second keeps every one of them, and a struct of
// seven strings, each with its header and allocation, costs twice the
// bytes.
type memAccounts struct {
	mu        sync.Mutex
	accounts  map[string]string    // by normalized email: packAccount's
	passwords map[string][2]string // by normalized email: salt, hash
}

func newMemAccounts() *memAccounts {
	return &memAccounts{accounts: map[string]string{}, passwords: map[string][2]string{}}
}

// create is store.createAccount: a retry of run finds its own account.
func (m *memAccounts) create(run string, a *account) bool {
	email := normalize(a.Email)
	m.mu.Lock()
	defer m.mu.Unlock()
	if held, ok := m.accounts[email]; ok {
		return accountRun(held) == run
	}
	m.accounts[email] = packAccount(run, a)
	return true
}

// setPassword is store.setPassword.
func (m *memAccounts) setPassword(email, principal, salt, hash string) bool {
	email = normalize(email)
	m.mu.Lock()
	defer m.mu.Unlock()
	if held, ok := m.accounts[email]; !ok || unpackAccount(email, held).Principal != principal {
		return false
	}
	m.passwords[email] = [2]string{salt, hash}
	return true
}

// list returns the accounts by email, without their principals.
func (m *memAccounts) list() []account {
	m.mu.Lock()
	defer m.mu.Unlock()
	var all []account
	for email, held := range m.accounts {
		a := unpackAccount(email, held)
		a.Principal = ""
		all = append(all, a)
	}
	slices.SortFunc(all, func(a, b account) int { return strings.Compare(a.Email, b.Email) })
	return all
}

// packAccount returns a's fields but its email, and the run that created
// it, in one string: each prefixed with its length, the run first.
func packAccount(run string, a *account) string {
	fields := [...]string{run, a.Principal, a.FullName, a.Plan, a.TeamName, strconv.Itoa(a.Seats)}
	n := 0
	for _, f := range fields {
		n += binary.MaxVarintLen64 + len(f)
	}
	b := make([]byte, 0, n)
	for _, f := range fields {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	return string(b) // one allocation, of its own length
}

// accountRun returns the run that created the packed account s.
func accountRun(s string) string {
	run, _ := nextField(s)
	return run
}

// unpackAccount returns the account email packed as s by packAccount.
func unpackAccount(email, s string) account {
	var f [6]string
	for i := range f {
		f[i], s = nextField(s)
	}
	seats, _ := strconv.Atoi(f[5])
	return account{Email: email, Principal: f[1], FullName: f[2], Plan: f[3], TeamName: f[4], Seats: seats}
}

// nextField splits the first field off s, as packAccount wrote it.
func nextField(s string) (field, rest string) {
	n, w := binary.Uvarint([]byte(s[:min(len(s), binary.MaxVarintLen64)]))
	return s[w : w+int(n)], s[w+int(n):]
}
