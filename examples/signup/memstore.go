package main

import (
	"slices"
	"strings"
	"sync"
)

// memAccounts keeps accounts and password hashes in the process's memory,
// as the SQL tables do for replicas: the store without -db. Like the
// runs in memoryRuns, they are gone when the process ends.
type memAccounts struct {
	mu        sync.Mutex
	accounts  map[string]memAccount // by normalized email
	passwords map[string][2]string  // by normalized email: salt, hash
}

// memAccount is an account and the run that created it.
type memAccount struct {
	account
	run string
}

func newMemAccounts() *memAccounts {
	return &memAccounts{accounts: map[string]memAccount{}, passwords: map[string][2]string{}}
}

// create is store.createAccount: a retry of run finds its own account.
func (m *memAccounts) create(run string, a *account) bool {
	email := normalize(a.Email)
	m.mu.Lock()
	defer m.mu.Unlock()
	if held, ok := m.accounts[email]; ok {
		return held.run == run
	}
	kept := *a
	kept.Email = email
	m.accounts[email] = memAccount{kept, run}
	return true
}

// setPassword is store.setPassword.
func (m *memAccounts) setPassword(email, principal, salt, hash string) bool {
	email = normalize(email)
	m.mu.Lock()
	defer m.mu.Unlock()
	if a, ok := m.accounts[email]; !ok || a.Principal != principal {
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
	for _, a := range m.accounts {
		a.Principal = ""
		all = append(all, a.account)
	}
	slices.SortFunc(all, func(a, b account) int { return strings.Compare(a.Email, b.Email) })
	return all
}
