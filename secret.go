package mcpform

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Errors of the secret page and its store.
var (
	// ErrSecretUsed reports a second use of a secret page's link: a
	// [SecretStore] stores under each key once, ever.
	ErrSecretUsed = errors.New("this link was already used")
	// ErrSecretWaiting reports that the person has not yet sent the
	// secret on the page the flow linked to; the flow asks again, and its
	// message says so.
	ErrSecretWaiting = errors.New("the page for it is still waiting")
	// ErrSecretRefused reports that a secret page refused its link: a
	// browser other than the first to post on it posted, or the page
	// refused a post (see [Flow.SecretPage]). The flow takes nothing from
	// that link, even a secret sent before, and ends with [FlowInvalid],
	// naming the step's secret fields with this error; the tool changes
	// nothing and says so. Calling the tool again makes a new link.
	ErrSecretRefused = errors.New("its link was used in another browser, so the page refused it")
)

// A SecretStore keeps the secrets a person sends on a [Flow.SecretPage]
// until the flow takes them, each under a key derived from the flow's run,
// step, tool and principal. Replicas that share a store and the codec's keys
// finish each other's flows: the page can be sent to one and the flow
// finished on another.
//
// Implementations must be safe for concurrent use. [NewMemorySecretStore]
// is one for a single process.
type SecretStore interface {
	// Put stores value under key until expires. A key is stored once,
	// ever: Put fails with ErrSecretUsed when key was stored before, even
	// if it was deleted or has expired since.
	Put(ctx context.Context, key, value string, expires time.Time) error
	// Get returns the value under key, and false when there is none or it
	// has expired.
	Get(ctx context.Context, key string) (value string, ok bool, err error)
	// Delete removes the value under key, but not the record that key was
	// used. Deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
}

// MemorySecretStore is a [SecretStore] in one process's memory: for a
// server without replicas, and for tests. Expired values are dropped as the
// store is used; the record that a key was used is kept for a day after its
// value expires, longer than any link stays valid. Its zero value is not
// usable; make one with [NewMemorySecretStore].
type MemorySecretStore struct {
	now     func() time.Time
	mu      sync.Mutex
	entries map[string]*secretEntry
}

type secretEntry struct {
	value   string
	held    bool // value is there to Get
	expires time.Time
}

// usedFor is how long a used key is remembered after its value expires.
const usedFor = 24 * time.Hour

// NewMemorySecretStore returns an empty MemorySecretStore.
func NewMemorySecretStore() *MemorySecretStore {
	return &MemorySecretStore{now: time.Now, entries: map[string]*secretEntry{}}
}

// Put implements [SecretStore].
func (s *MemorySecretStore) Put(_ context.Context, key, value string, expires time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	if _, used := s.entries[key]; used {
		return ErrSecretUsed
	}
	s.entries[key] = &secretEntry{value: value, held: true, expires: expires}
	return nil
}

// Get implements [SecretStore].
func (s *MemorySecretStore) Get(_ context.Context, key string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[key]
	if !ok || !e.held || !s.now().Before(e.expires) {
		return "", false, nil
	}
	return e.value, true, nil
}

// Delete implements [SecretStore].
func (s *MemorySecretStore) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.entries[key]; ok {
		e.value, e.held = "", false
	}
	return nil
}

// sweep forgets values that have expired, and used keys once they have
// been remembered for usedFor. Its cost is spread over Puts, which are
// rarer than Gets.
func (s *MemorySecretStore) sweep() {
	now := s.now()
	for k, e := range s.entries {
		if !now.Before(e.expires) {
			e.value, e.held = "", false
			if now.After(e.expires.Add(usedFor)) {
				delete(s.entries, k)
			}
		}
	}
}

// SecretOptions configures how a [Flow] asks for secret fields: through
// URL mode, on the page of [Flow.SecretPage]. A flow with a secret field
// and nil SecretOptions is refused by [NewFlow].
type SecretOptions struct {
	// PageURL is the absolute URL where the server serves
	// [Flow.SecretPage], such as "https://example.com/mcp/secret". The
	// flow adds the link's token as its "t" query parameter. It must not
	// be empty.
	PageURL string
	// Store keeps what the page receives until the flow takes it. It must
	// not be nil.
	Store SecretStore
}
