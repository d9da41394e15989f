package mcpform

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mcpform/mcpform/internal/token"
)

// Errors of the secret page and its store.
var (
	// ErrSecretUsed reports a second use of a secret page's link: a
	// [SecretStore] stores under each key once, ever. A flow without
	// [FlowOptions].Outcomes also names a step's secret fields with it,
	// ending with [FlowInvalid], when a call repeats the round that already
	// took the secret: nothing kept that round's outcome, and the secret
	// is spent.
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
	// PutSecret stores value under key until expires. A key is stored once,
	// ever: PutSecret fails with ErrSecretUsed when key was stored before, even
	// if it was deleted or has expired since.
	PutSecret(ctx context.Context, key, value string, expires time.Time) error
	// GetSecret returns the value under key, and false when there is none or it
	// has expired.
	GetSecret(ctx context.Context, key string) (value string, ok bool, err error)
	// DeleteSecret removes the value under key, but not the record that key was
	// used. Deleting a missing key is not an error.
	DeleteSecret(ctx context.Context, key string) error
}

// MemorySecretStore is a [SecretStore] in one process's memory: for a
// server without replicas, and for tests. Expired values are dropped as the
// store is used; the record that a key was used is kept for a day after its
// value expires, longer than any link stays valid. Each PutSecret drops a small
// batch of what has expired, soonest first, so that no call pays for the
// whole store. Its zero value is not usable; make one with
// [NewMemorySecretStore].
type MemorySecretStore struct {
	now     func() time.Time
	mu      sync.Mutex
	entries map[string]*secretEntry
	held    secretHeap     // entries that may still hold a value, soonest expiry first
	used    []*secretEntry // entries whose value expired, in expiry order, from usedAt
	usedAt  int
}

type secretEntry struct {
	key     string
	value   string
	held    bool // value is there to Get
	expires time.Time
}

// usedFor is how long a used key is remembered after its value expires.
const usedFor = 24 * time.Hour

// memSecretBatch is how many expired entries a PutSecret handles at most, in
// each of its two steps.
const memSecretBatch = 64

// NewMemorySecretStore returns an empty MemorySecretStore.
func NewMemorySecretStore() *MemorySecretStore {
	return &MemorySecretStore{now: time.Now, entries: map[string]*secretEntry{}}
}

// PutSecret implements [SecretStore].
func (s *MemorySecretStore) PutSecret(_ context.Context, key, value string, expires time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	if _, used := s.entries[key]; used {
		return ErrSecretUsed
	}
	e := &secretEntry{key: key, value: value, held: true, expires: expires}
	s.entries[key] = e
	heap.Push(&s.held, e)
	return nil
}

// Get implements [SecretStore].
func (s *MemorySecretStore) GetSecret(_ context.Context, key string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[key]
	if !ok || !e.held || !s.now().Before(e.expires) {
		return "", false, nil
	}
	return e.value, true, nil
}

// DeleteSecret implements [SecretStore].
func (s *MemorySecretStore) DeleteSecret(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.entries[key]; ok {
		e.value, e.held = "", false
	}
	return nil
}

// sweep forgets at most a batch of values that have expired, soonest
// first, and at most a batch of used keys remembered for usedFor. Since
// usedFor is the same for every key, the order values expire in is the
// order their keys are forgotten in: a queue, behind the heap.
func (s *MemorySecretStore) sweep() {
	now := s.now()
	for range memSecretBatch {
		if len(s.held) == 0 || now.Before(s.held[0].expires) {
			break
		}
		e := heap.Pop(&s.held).(*secretEntry)
		e.value, e.held = "", false
		s.used = append(s.used, e)
	}
	for range memSecretBatch {
		if s.usedAt == len(s.used) || !now.After(s.used[s.usedAt].expires.Add(usedFor)) {
			break
		}
		delete(s.entries, s.used[s.usedAt].key)
		s.used[s.usedAt] = nil
		s.usedAt++
	}
	if s.usedAt > 0 && s.usedAt >= len(s.used)/2 {
		s.used = append(s.used[:0], s.used[s.usedAt:]...)
		s.usedAt = 0
	}
}

// A secretHeap orders entries by expiry, soonest first (container/heap).
type secretHeap []*secretEntry

func (h secretHeap) Len() int           { return len(h) }
func (h secretHeap) Less(i, j int) bool { return h[i].expires.Before(h[j].expires) }
func (h secretHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *secretHeap) Push(x any)        { *h = append(*h, x.(*secretEntry)) }
func (h *secretHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
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

// errUnsealed reports a stored value that opens under none of the codec's
// keys: written by another deployment, or damaged.
var errUnsealed = errors.New("mcpform: a sealed secret opens under none of the codec's keys")

// secretSealLabel is the HKDF label of the secret store's keys, which
// differ from the request state's: neither opens what the other sealed.
const secretSealLabel = "mcpform secret store v1"

// SealSecrets returns a [SecretStore] that keeps its values in store sealed
// with AES-256-GCM, so that a database holding them, its logs and its
// backups hold ciphertext only. The keys are derived from codec's: the
// first seals and every key, VerifyKeys too, opens, so rotating the
// codec's keys rotates these too (see [RequestStateOptions].VerifyKeys),
// and replicas that share the codec's keys open each other's values. Each value is bound to its store key, so a sealed value copied
// under another key does not open.
//
// Get reports a value that opens under no key as an error rather than as
// missing: it was sealed by a deployment with other keys, or damaged.
// SealSecrets panics on a nil store or an unusable codec.
func SealSecrets(store SecretStore, codec *RequestStateCodec) SecretStore {
	if store == nil || codec == nil || len(codec.keys) == 0 {
		panic("mcpform: SealSecrets needs a store and a codec")
	}
	return &sealedStore{store: store, sealer: token.NewSealer(codec.keys, secretSealLabel)}
}

type sealedStore struct {
	store  SecretStore
	sealer *token.Sealer
}

// PutSecret seals value and stores it under key.
func (s *sealedStore) PutSecret(ctx context.Context, key, value string, expires time.Time) error {
	sealed, err := s.sealer.Seal(nil, []byte(value), []byte(key))
	if err != nil {
		return err
	}
	return s.store.PutSecret(ctx, key, string(sealed), expires)
}

// GetSecret returns the value under key, opened.
func (s *sealedStore) GetSecret(ctx context.Context, key string) (string, bool, error) {
	v, ok, err := s.store.GetSecret(ctx, key)
	if err != nil || !ok {
		return "", ok, err
	}
	plain, err := s.sealer.Open(nil, []byte(v), []byte(key))
	if err != nil {
		return "", false, errUnsealed
	}
	return string(plain), true, nil
}

// DeleteSecret removes the value under key.
func (s *sealedStore) DeleteSecret(ctx context.Context, key string) error {
	return s.store.DeleteSecret(ctx, key)
}
