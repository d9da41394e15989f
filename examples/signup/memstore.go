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
// A server taking a thousand signups a second keeps a thousand accounts
// more every second, so each costs what it must: its fields, but its
// email, are packed back to back in large chunks, and the map from the
// email holds where. A struct of strings would be an object or more an
// account, each marked by the collector at every cycle, and twice the
// bytes.
type memAccounts struct {
	mu        sync.Mutex
	accounts  map[string]uint64 // by normalized email: where packAccount put it
	chunks    [][]byte          // the packed accounts
	passwords map[string][2]string
}

// accountChunk is the size of a chunk of memAccounts, some hundreds of
// accounts.
const accountChunk = 64 << 10

func newMemAccounts() *memAccounts {
	return &memAccounts{accounts: map[string]uint64{}, passwords: map[string][2]string{}}
}

// create is store.createAccount: a retry of run finds its own account.
func (m *memAccounts) create(run string, a *account) bool {
	email := normalize(a.Email)
	m.mu.Lock()
	defer m.mu.Unlock()
	if at, ok := m.accounts[email]; ok {
		held, _ := nextField(m.packed(at))
		return string(held) == run
	}
	m.accounts[email] = m.packAccount(run, a)
	return true
}

// setPassword is store.setPassword.
func (m *memAccounts) setPassword(email, principal, salt, hash string) bool {
	email = normalize(email)
	m.mu.Lock()
	defer m.mu.Unlock()
	if at, ok := m.accounts[email]; !ok || m.account(email, at).Principal != principal {
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
	for email, at := range m.accounts {
		a := m.account(email, at)
		a.Principal = ""
		all = append(all, a)
	}
	slices.SortFunc(all, func(a, b account) int { return strings.Compare(a.Email, b.Email) })
	return all
}

// packAccount appends the run that created a and a's fields but its
// email, each prefixed with its length, to the last chunk, and returns
// where: the chunk's index in the high 32 bits, the offset in the low.
func (m *memAccounts) packAccount(run string, a *account) uint64 {
	fields := [...]string{run, a.Principal, a.FullName, a.Plan, a.TeamName, strconv.Itoa(a.Seats)}
	n := 0
	for _, f := range fields {
		n += binary.MaxVarintLen64 + len(f)
	}
	last := len(m.chunks) - 1
	if last < 0 || len(m.chunks[last])+n > cap(m.chunks[last]) {
		m.chunks = append(m.chunks, make([]byte, 0, max(accountChunk, n)))
		last++
	}
	c := m.chunks[last]
	at := uint64(last)<<32 | uint64(len(c))
	for _, f := range fields {
		c = binary.AppendUvarint(c, uint64(len(f)))
		c = append(c, f...)
	}
	m.chunks[last] = c
	return at
}

// packed returns the chunk from where packAccount put an account.
func (m *memAccounts) packed(at uint64) []byte { return m.chunks[at>>32][uint32(at):] }

// account returns the account email that packAccount put at at.
func (m *memAccounts) account(email string, at uint64) account {
	b := m.packed(at)
	var f [6][]byte
	for i := range f {
		f[i], b = nextField(b)
	}
	seats, _ := strconv.Atoi(string(f[5]))
	return account{Email: email, Principal: string(f[1]), FullName: string(f[2]), Plan: string(f[3]),
		TeamName: string(f[4]), Seats: seats}
}

// nextField splits the first field off b, as packAccount wrote it.
func nextField(b []byte) (field, rest []byte) {
	n, w := binary.Uvarint(b)
	return b[w : w+int(n)], b[w+int(n):]
}
