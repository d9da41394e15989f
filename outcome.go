package mcpform

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/mcpform/mcpform/internal/arena"
	"github.com/mcpform/mcpform/internal/catalog"
	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/mcpform/mcpform/internal/token"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/language"
)

// Outcomes keeps the first outcome of each run of a [Flow], so that what
// the run triggers happens once: set it as [FlowOptions].Outcomes and gate
// the side effect with [FlowRound.Once]. Replicas that share it share the
// guarantee. [SQLStore] is one on database/sql, for replicas, and
// [MemoryOutcomes] one in a process's memory. Both keep each outcome as
// the result's JSON, so that one store serves go-sdk's face and mcp-go's
// (the mcpgo package), each decoding its own result type, and through a
// flow that JSON is sealed with the flow's codec before SQLStore keeps
// it. Any other implementation serves mcp-go's face through go-sdk's
// result, into which the JSON of every SDK's tool result decodes, and
// keeps it unsealed.
//
// Implementations must be safe for concurrent use, by this process and by
// any other sharing the same storage, and must keep each outcome at least
// 24 hours after its claim: a flow lets a run last that long.
//
// Once is handed do's result as do made it, and recording it (encoding
// it, sealing it, writing it) is the store's work, after do returned: a
// result that cannot be recorded, for any reason, is not a do that
// failed. An implementation that cannot record a result do returned must
// not release the claim: it keeps the key claimed, with no outcome, and
// returns [ErrOutcomeUnknown], wrapping the cause, to that call; every
// later Once of the key returns ErrOutcomeUnknown and never calls do, and
// LookupOutcome reports the key found with no outcome, until the key
// expires. A result on mcp-go's face that does not convert to go-sdk's
// is handed over as one whose StructuredContent fails to marshal with
// the cause, so that the store meets it as it would a result it cannot
// encode.
type Outcomes interface {
	// Once returns the first outcome stored under key. When key has none,
	// Once claims it, calls do, stores do's result and returns it; a claim
	// held by another call, here or on a replica, is waited for, and its
	// outcome returned. do runs once while its claim holds, and its
	// context ends when the claim is lost. An error from do, a panic in
	// do or a nil result stores nothing and releases the claim: the next
	// Once calls do again. A result do returned that cannot be stored
	// (encoded or written) is reported as [ErrOutcomeUnknown], to this
	// call and to every later one, which never call do. Waiting ends with
	// ctx.
	Once(ctx context.Context, key string, do func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error)
	// LookupOutcome returns the outcome stored under key, and true; nil and true
	// while key is claimed and its outcome not stored, yet or ever (see
	// ErrOutcomeUnknown); nil and false when key was never claimed, or
	// its claim was released.
	LookupOutcome(ctx context.Context, key string) (first *mcp.CallToolResult, found bool, err error)
}

// ErrOutcomeUnknown reports a run whose side effect ran, or may have run,
// but whose outcome could not be stored: do's result could not be
// encoded or sealed, the store's writes failed, or the claim was taken
// over by another call that has not stored one either. The run is kept
// claimed until its record expires, so that no retry runs the side
// effect again; the tool should say that the action may have happened,
// and how to check. Where the store could record neither the outcome nor
// that it is unknown, the error that wraps ErrOutcomeUnknown says instead
// what a retry does (see [SQLStore.Once]); and a store whose database is
// lost loses the record, so that a retry then runs do again, with the
// same [IdempotencyKey].
var ErrOutcomeUnknown = errors.New("mcpform: the outcome of this run could not be stored; its side effect may have happened, and will not run again while the store keeps the run's record")

// outcomeSealLabel is the HKDF label of the keys that seal outcomes at
// rest, apart from the request state's and the secrets'.
const outcomeSealLabel = "mcpform outcome store v1"

// idempotencyKey is the context key of IdempotencyKey's value.
type idempotencyKey struct{}

// IdempotencyKey returns the idempotency key of the run whose side effect
// ctx is for: [FlowRound.Once] passes it in the context it gives do. It is
// the same on every replica and every retry of the run, including a retry
// that runs do again after a crash, and reveals nothing of the run's ID.
// Pass it to a payment or mail provider, so that the provider does the
// action once. IdempotencyKey returns "" for any other context.
func IdempotencyKey(ctx context.Context) string {
	k, _ := ctx.Value(idempotencyKey{}).(string)
	return k
}

// runIdempotencyKey derives the idempotency key of the run id.
func runIdempotencyKey(id string) string {
	sum := sha256.Sum256([]byte("mcpform idempotency key v1\x00" + id))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// checkStores refuses a store in opts that is a nil pointer, or other nil
// value, inside its interface, which would panic only when first used,
// and returns the sealer of outcomes for a store that keeps them at rest.
func checkStores(codec *RequestStateCodec, opts *FlowOptions) (*token.Sealer, error) {
	if opts == nil {
		return nil, nil
	}
	if opts.Outcomes != nil && nilInside(opts.Outcomes) {
		return nil, fmt.Errorf("mcpform: FlowOptions.Outcomes is a nil %T; make the store first, or leave Outcomes nil", opts.Outcomes)
	}
	if opts.Secrets != nil && opts.Secrets.Store != nil && nilInside(opts.Secrets.Store) {
		return nil, fmt.Errorf("mcpform: FlowOptions.Secrets.Store is a nil %T; make the store first", opts.Secrets.Store)
	}
	if o, ok := opts.Outcomes.(interface{ sealsOutcomes() bool }); ok && o.sealsOutcomes() {
		return token.NewSealer(codec.keys, outcomeSealLabel), nil
	}
	return nil, nil
}

// nilInside reports whether v, not nil itself, holds a nil value.
func nilInside(v any) bool {
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return r.IsNil()
	}
	return false
}

// errRunLost reports a replay of a finishing round whose first finish
// neither stored an outcome nor left the secrets to try again with.
var errRunLost = errors.New("mcpform: this run's finishing round failed after taking its secrets; start again")

// Once gates the side effect of a run on the first outcome of the run: it
// returns the outcome stored under the round's [FlowRound.ID] in the
// flow's [FlowOptions].Outcomes, and when the run has none, it calls do,
// stores do's result and returns it. A replay of the round, with the same
// answers or others, on any replica, gets that first outcome and calls
// nothing; a duplicate that arrives while do is still running waits for
// do's outcome. So a handler writes, for every status but [FlowAsk]:
//
//	return round.Once(ctx, func(ctx context.Context) (*mcp.CallToolResult, error) {
//		// create the account, send the mail, ... once,
//		// passing mcpform.IdempotencyKey(ctx) to the provider
//	})
//
// Storing the outcomes of declined, cancelled and invalid rounds too keeps
// a replay of the last round from turning a "declined" into a "created".
//
// do runs once per run, with these exceptions, which the store's Once
// documents (see [SQLStore.Once]): a do that fails, panics or returns nil
// stores nothing, so a retry calls do again; and a do cut short by a
// crash of its process, or by its replica losing the database for a
// whole lease, may have done its effect, and the retry after that lease
// runs do again, with the same [IdempotencyKey]. When do succeeds but its
// outcome cannot be stored (it cannot be encoded, as a NaN in
// StructuredContent cannot, or sealed, or written), Once and every retry
// fail with [ErrOutcomeUnknown] and none runs do again, while the store
// holds the run's record (see [SQLStore.Once] for a store that cannot
// write even that, or loses its database): do's result is
// handed to the store as do made it, and encoding it is part of
// recording it. do's context ends when its claim is lost to another
// caller.
//
// do must return a final result, not an input request. A flow with
// secrets closes their links before do runs, so that from then on the
// page says the request is finished and a stop changes nothing; a link
// stopped before that fails Once with [ErrSecretRefused], and do is not
// called. The secrets leave the [SecretStore] only once the outcome is
// stored, so a retry still has them; a FlowDone round that finds them
// already taken by another round of its run carries none in its Answers,
// and its Once never calls do: it waits for that round's outcome. On a
// [SQLStore], the outcome is sealed with keys derived from the flow's
// codec, bound to the run, so that the table holds no answer in the
// clear. A flow without Outcomes keeps its outcomes in this process's
// memory, for 24 hours: Once is once within the process, as on a
// [MemoryOutcomes], never across replicas or restarts. Once fails on a
// round of status FlowAsk, whose Result is the answer.
func (r *FlowRound) Once(ctx context.Context, do func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	d := &sdkDo{do: do}
	var run func(context.Context) (*rawOutcome, error)
	if do != nil {
		run = d.run
	}
	first, err := r.once(ctx, run)
	if err != nil {
		return nil, err
	}
	return d.result(first)
}

// A rawOutcome is do's result as do made it, not yet encoded: the store
// encodes it, and a flow seals it, as part of recording it, so that a
// result that cannot be recorded is never taken for a do that failed,
// whose claim is released and whose do runs again.
type rawOutcome struct {
	// sdk is do's result on go-sdk's face, handed as it is to an
	// Outcomes of the caller's own; nil on another face.
	sdk *mcp.CallToolResult
	// encode returns the outcome as the store keeps it: the result's
	// JSON, sealed when the flow seals outcomes.
	encode func() ([]byte, error)
}

// result returns o as go-sdk's result: do's own on go-sdk's face, and
// another face's decoded from its JSON. A result that cannot be encoded
// or decoded is one whose StructuredContent fails to marshal with the
// cause, so that a store of the caller's own meets it as it meets any
// result it cannot encode: as an outcome unknown, never as a failed do.
func (o *rawOutcome) result() *mcp.CallToolResult {
	if o.sdk != nil {
		return o.sdk
	}
	blob, err := o.encode()
	if err == nil {
		var res *mcp.CallToolResult
		if res, err = decodeOutcome(blob); err == nil {
			return res
		}
	}
	return &mcp.CallToolResult{StructuredContent: unencodable{err}}
}

// unencodable is a value whose JSON encoding fails with err.
type unencodable struct{ err error }

func (u unencodable) MarshalJSON() ([]byte, error) { return nil, u.err }

// record returns the outcome's encoding, a failure to encode being
// ErrOutcomeUnknown: do has returned, so its effect may have happened.
func (o *rawOutcome) record() ([]byte, error) {
	blob, err := o.encode()
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", ErrOutcomeUnknown, err)
	}
	return blob, nil
}

// once is [FlowRound.Once] on the outcome's JSON, for every SDK's face:
// each hands its own result for do, with its encoder, and decodes what
// once returns.
func (r *FlowRound) once(ctx context.Context, do func(context.Context) (*rawOutcome, error)) ([]byte, error) {
	switch {
	case r == nil || r.flow == nil:
		return nil, errors.New("mcpform: FlowRound.Once on a round Next did not return")
	case r.Status == FlowAsk:
		return nil, errors.New("mcpform: FlowRound.Once on a round that asks; return its Result")
	case do == nil:
		return nil, errors.New("mcpform: FlowRound.Once without a function")
	}
	if r.first != nil {
		return r.first, nil
	}
	seal := r.flow.outcomeSeal
	run := func(ctx context.Context) (*rawOutcome, error) {
		if r.replay {
			// The secrets are gone: this round can only wait for the
			// outcome of the round that took them.
			return nil, errRunLost
		}
		if err := r.take(ctx); err != nil {
			return nil, err
		}
		raw, err := do(context.WithValue(ctx, idempotencyKey{}, runIdempotencyKey(r.ID)))
		if err != nil || raw == nil || seal == nil {
			return raw, err
		}
		encode := raw.encode
		return &rawOutcome{sdk: raw.sdk, encode: func() ([]byte, error) {
			blob, err := encode()
			if err != nil {
				return nil, err
			}
			return seal.Seal(nil, blob, []byte(r.ID))
		}}, nil
	}
	first, err := outcomesJSON(r.flow.onceStore()).onceJSON(ctx, r.ID, run)
	if err == nil && seal != nil {
		first, err = openOutcome(seal, first, r.ID)
	}
	if err != nil {
		return nil, err
	}
	// The outcome is stored: the secrets it was decided with are spent.
	if err := r.flow.spend(ctx, r.taken); err != nil {
		return nil, err
	}
	return first, nil
}

// take takes the round's secrets, under the run's claim, before do uses
// them: from then on their page says the request is finished. A link
// the page or the flow closed first fails with ErrSecretRefused, and do
// is not called.
func (r *FlowRound) take(ctx context.Context) error {
	if len(r.taken) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	switch i, why, err := r.flow.take(ctx, r.taken, true); {
	case err != nil:
		return err
	case i >= 0:
		return fmt.Errorf("mcpform: the link of step %q was closed (%s) before the flow took its secret: %w", r.taken[i].Step, why, ErrSecretRefused)
	}
	return nil
}

// processOutcomes keeps the outcomes of the flows without Outcomes, for
// FlowRound.Once: one store for the process, so that a flow built per
// call dedupes its runs as one built at start-up does. Run IDs are
// random, so flows never share a key.
var processOutcomes = sync.OnceValue(func() *MemoryOutcomes { return NewMemoryOutcomes(0) })

// onceStore returns where Once keeps f's outcomes: f's Outcomes, or the
// process's.
func (f *Flow) onceStore() Outcomes {
	if f.outcomes != nil {
		return f.outcomes
	}
	return processOutcomes()
}

// openOutcome opens an outcome of run sealed by seal.
func openOutcome(seal *token.Sealer, sealed []byte, run string) ([]byte, error) {
	plain, err := seal.Open(nil, sealed, []byte(run))
	if err != nil {
		return nil, errors.New("mcpform: a stored outcome opens under none of the codec's keys")
	}
	return plain, nil
}

// finishing returns, for a round whose secrets are gone from the store,
// the round that waits for the outcome of the round that took them, or
// nil when the run has no outcome and no claim: its page was never sent.
func (r *round) finishing(ctx context.Context, valid Answers) (*FlowRound, error) {
	if r.flow.outcomes == nil {
		return nil, nil
	}
	first, found, err := outcomesJSON(r.flow.outcomes).lookupJSON(ctx, r.st.ID)
	if err != nil || !found {
		return nil, err
	}
	if first != nil && r.flow.outcomeSeal != nil {
		if first, err = openOutcome(r.flow.outcomeSeal, first, r.st.ID); err != nil {
			return nil, err
		}
	}
	return &FlowRound{Status: FlowDone, Answers: valid, ID: r.st.ID, first: first, replay: true}, nil
}

// outcomeJSON is [Outcomes] on the outcome's JSON, whichever SDK's result
// it is, so that one store serves every face: do hands its result
// unencoded, the store encodes it as part of recording it, and each face
// decodes its own result type. [SQLStore] is one; any other Outcomes is
// read through go-sdk's result (see sdkOutcomes).
type outcomeJSON interface {
	onceJSON(ctx context.Context, key string, do func(context.Context) (*rawOutcome, error)) ([]byte, error)
	lookupJSON(ctx context.Context, key string) ([]byte, bool, error)
}

var errOutcomeNil = errors.New("mcpform: Once's function returned neither a result nor an error")

func outcomesJSON(o Outcomes) outcomeJSON {
	if j, ok := o.(outcomeJSON); ok {
		return j
	}
	return sdkOutcomes{o}
}

// sdkOutcomes are Outcomes on go-sdk's result, read as JSON: the wire
// form of a tool result, which every SDK's result type decodes.
type sdkOutcomes struct{ Outcomes }

func (o sdkOutcomes) onceJSON(ctx context.Context, key string, do func(context.Context) (*rawOutcome, error)) ([]byte, error) {
	var raw *rawOutcome
	res, err := o.Once(ctx, key, func(ctx context.Context) (*mcp.CallToolResult, error) {
		r, err := do(ctx)
		if err != nil || r == nil {
			return nil, err
		}
		raw = r
		return r.result(), nil
	})
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errOutcomeNil
	}
	if raw != nil && res == raw.sdk { // do's own: its encoder knows it
		return raw.record()
	}
	blob, err := json.Marshal(res)
	if err != nil { // the store kept a result it could not have encoded
		return nil, fmt.Errorf("%w (%w)", ErrOutcomeUnknown, err)
	}
	return blob, nil
}

func (o sdkOutcomes) lookupJSON(ctx context.Context, key string) ([]byte, bool, error) {
	first, found, err := o.LookupOutcome(ctx, key)
	if err != nil || first == nil {
		return nil, found, err
	}
	blob, err := json.Marshal(first)
	return blob, err == nil, err
}

// sdkDo is a do of go-sdk's result run on the outcome's JSON. result
// returns do's own result when it is the outcome stored, so that the
// caller gets back what it made, and the stored outcome decoded otherwise.
type sdkDo struct {
	do   func(context.Context) (*mcp.CallToolResult, error)
	raw  rawOutcome
	blob []byte
}

// run runs do, and hands its result unencoded.
func (d *sdkDo) run(ctx context.Context) (*rawOutcome, error) {
	res, err := d.do(ctx)
	if err != nil || res == nil {
		return nil, err
	}
	d.raw = rawOutcome{sdk: res, encode: d.encode}
	return &d.raw, nil
}

// encode encodes do's result, when the store records it.
func (d *sdkDo) encode() ([]byte, error) {
	var blob []byte
	var err error
	if d.raw.sdk != nil {
		// What json.Marshal adds, a check and a compacted copy of the
		// method's output, is spent on encoding/json's own output.
		blob, err = d.raw.sdk.MarshalJSON()
	} else {
		blob, err = json.Marshal(d.raw.sdk)
	}
	if err != nil {
		return nil, err
	}
	d.blob = blob
	return blob, nil
}

func (d *sdkDo) result(first []byte) (*mcp.CallToolResult, error) {
	if d.blob != nil && bytes.Equal(first, d.blob) {
		return d.raw.sdk, nil
	}
	return decodeOutcome(first)
}

// onceDecoded is Outcomes.Once of go-sdk's result on s.
func onceDecoded(ctx context.Context, s outcomeJSON, key string, do func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	d := &sdkDo{do: do}
	first, err := s.onceJSON(ctx, key, d.run)
	if err != nil {
		return nil, err
	}
	return d.result(first)
}

// lookupDecoded is Outcomes.LookupOutcome of go-sdk's result on s.
func lookupDecoded(ctx context.Context, s outcomeJSON, key string) (*mcp.CallToolResult, bool, error) {
	blob, found, err := s.lookupJSON(ctx, key)
	if err != nil || blob == nil {
		return nil, found, err
	}
	first, err := decodeOutcome(blob)
	return first, err == nil, err
}

func decodeOutcome(blob []byte) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	if err := json.Unmarshal(blob, &res); err != nil {
		return nil, errors.New("mcpform: a stored outcome is not a tool result")
	}
	return &res, nil
}

// MemoryOutcomes is an [Outcomes] in one process's memory: the fast store
// for a server without replicas, and for tests. Its Once keeps
// [SQLStore.Once]'s promises within the process: a duplicate waits for
// the running do and gets its outcome; a do that fails, panics or returns
// nil releases the run, so the next call runs do again; a result do
// returned that cannot be encoded marks the run unrecorded, so that it
// and every later call get [ErrOutcomeUnknown] and none runs do again; an
// outcome is kept, and replays get it, for the store's keep. Nothing is leased, so
// no running do loses its claim; and what a process keeps in memory ends
// with it, so after a restart a replay runs do again: use [SQLStore] when
// that matters, or when replicas serve the same runs. Expired outcomes
// are dropped in small batches as the store is used, so memory is
// bounded by the outcomes a replay can still reach. Its zero value is not
// usable; make one with [NewMemoryOutcomes].
type MemoryOutcomes struct {
	keep time.Duration
	now  func() time.Time

	mu      sync.Mutex
	pending map[memKey]*memRun // claimed runs, undecided
	done    map[memKey]memDone // decided runs; their outcomes are in kept
	kept    arena.Arena        // the outcomes' JSON, which the collector never marks
	order   []memClaim         // claims, oldest first, from head
	head    int
}

// A memKey is a run's key as MemoryOutcomes keeps it: 128 bits of its
// SHA-256, fixed in size and held in place rather than as a string of its
// own. Two keys share a run only if SHA-256 collides on those bits.
type memKey [16]byte

func memKeyOf(key string) memKey {
	sum := sha256.Sum256([]byte(key))
	return memKey(sum[:16])
}

// A memRun is the claim of a run being decided. The channel a duplicate
// waits on is made only when a duplicate comes, and closed when the
// holder decides or releases the run.
type memRun struct {
	wait    chan struct{}
	expires int64
}

// memClaim is a claim in the order of expiry; expires is in Unix
// nanoseconds, the smallest form of the time.
type memClaim struct {
	key     memKey
	expires int64
}

// A memDone is a decided run: where its outcome's JSON, as do returned
// it, is kept, and when the run expires. It holds no pointer, so the
// collector marks neither it nor the outcome: under a memory budget, the
// collector runs often, and marking a string per kept outcome made a
// whole signup cost 10-30% more CPU at 200 clients (e2e/loadgen).
type memDone struct {
	outcome arena.Ref
	expires int64
	unknown bool // do returned, and its outcome could not be recorded
}

// memSweepBatch is how many expired outcomes a call drops at most.
const memSweepBatch = 64

// NewMemoryOutcomes returns an empty MemoryOutcomes that keeps each
// outcome for keep after its claim; zero or less means 24 hours. keep
// also bounds how long a run of a flow that keeps its outcomes here may
// last, from its first call: a state of an older run is refused as
// expired, so that no replay outlives the outcome it should get.
func NewMemoryOutcomes(keep time.Duration) *MemoryOutcomes {
	if keep <= 0 {
		keep = 24 * time.Hour
	}
	return &MemoryOutcomes{keep: keep, now: time.Now, pending: map[memKey]*memRun{}, done: map[memKey]memDone{}}
}

// Once implements [Outcomes].
func (m *MemoryOutcomes) Once(ctx context.Context, key string, do func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	if do == nil {
		return nil, errors.New("mcpform: MemoryOutcomes.Once without a function")
	}
	return onceDecoded(ctx, m, key, do)
}

// onceJSON is Once on the outcome's JSON.
func (m *MemoryOutcomes) onceJSON(ctx context.Context, s string, do func(context.Context) (*rawOutcome, error)) ([]byte, error) {
	key := memKeyOf(s)
	for {
		m.mu.Lock()
		m.sweep()
		if d, ok := m.done[key]; ok {
			if d.unknown {
				m.mu.Unlock()
				return nil, ErrOutcomeUnknown
			}
			blob := bytes.Clone(m.kept.Get(d.outcome))
			m.mu.Unlock()
			return blob, nil
		}
		r, ok := m.pending[key]
		if !ok {
			r = &memRun{expires: m.now().Add(m.keep).UnixNano()}
			m.pending[key] = r
			m.order = append(m.order, memClaim{key, r.expires})
			m.mu.Unlock()
			return m.decide(ctx, key, r, do)
		}
		if r.wait == nil {
			r.wait = make(chan struct{})
		}
		wait := r.wait
		m.mu.Unlock()
		select {
		case <-wait: // decided, or released: look again
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// decide calls do for the run r, which this call holds, and records its
// result, or releases r when there is none. Once do has returned, r is
// never released: a result that cannot be encoded, or an encoder that
// panics, marks the run unrecorded.
func (m *MemoryOutcomes) decide(ctx context.Context, key memKey, r *memRun, do func(context.Context) (*rawOutcome, error)) ([]byte, error) {
	returned, decided := false, false
	defer func() {
		switch {
		case !returned: // do panicked: as if it failed
			m.release(key, r)
		case !decided: // the encoder panicked: do's effect may have happened
			m.decided(key, r, memDone{expires: r.expires, unknown: true}, nil)
		}
	}()
	raw, err := do(ctx)
	returned = true
	if err == nil && raw == nil {
		err = errOutcomeNil
	}
	if err != nil {
		decided = true
		m.release(key, r)
		return nil, err
	}
	blob, err := raw.record()
	decided = true
	if err != nil {
		m.decided(key, r, memDone{expires: r.expires, unknown: true}, nil)
		return nil, err
	}
	m.decided(key, r, memDone{expires: r.expires}, blob)
	return blob, nil
}

// decided records d, and the outcome blob if any, as the run r on key,
// unless its claim expired while do ran, and wakes its duplicates.
func (m *MemoryOutcomes) decided(key memKey, r *memRun, d memDone, blob []byte) {
	m.mu.Lock()
	if m.pending[key] == r {
		delete(m.pending, key)
		if blob != nil {
			d.outcome = m.kept.Put(blob) // a copy: the caller gets blob back
		}
		m.done[key] = d
	}
	r.wake()
	m.mu.Unlock()
}

// release forgets the claim r on key, so that the next call claims it.
func (m *MemoryOutcomes) release(key memKey, r *memRun) {
	m.mu.Lock()
	if m.pending[key] == r {
		delete(m.pending, key)
	}
	r.wake()
	m.mu.Unlock()
}

// wake wakes the duplicates waiting for r, if any; m.mu is held.
func (r *memRun) wake() {
	if r.wait != nil {
		close(r.wait)
		r.wait = nil
	}
}

// sweep drops at most memSweepBatch claims and outcomes that have
// expired, oldest first; m.mu is held.
func (m *MemoryOutcomes) sweep() {
	now := m.now().UnixNano()
	for range memSweepBatch {
		if m.head == len(m.order) || now < m.order[m.head].expires {
			break
		}
		c := m.order[m.head]
		if d, ok := m.done[c.key]; ok && d.expires <= now {
			delete(m.done, c.key)
			if !d.unknown {
				m.kept.Free(d.outcome)
			}
		}
		if r, ok := m.pending[c.key]; ok && r.expires <= now {
			delete(m.pending, c.key)
		}
		m.head++
	}
	if m.head > 0 && m.head >= len(m.order)/2 {
		m.order = append(m.order[:0], m.order[m.head:]...)
		m.head = 0
	}
}

// LookupOutcome implements [Outcomes].
func (m *MemoryOutcomes) LookupOutcome(ctx context.Context, key string) (*mcp.CallToolResult, bool, error) {
	return lookupDecoded(ctx, m, key)
}

// lookupJSON is LookupOutcome of the outcome's JSON.
func (m *MemoryOutcomes) lookupJSON(_ context.Context, key string) ([]byte, bool, error) {
	k := memKeyOf(key)
	m.mu.Lock()
	d, ok := m.done[k]
	_, claimed := m.pending[k]
	var blob []byte
	if ok && !d.unknown {
		blob = bytes.Clone(m.kept.Get(d.outcome))
	}
	m.mu.Unlock()
	if !ok {
		return nil, claimed, nil
	}
	return blob, true, nil
}

// outcomeKeep is how long m keeps an outcome, which bounds how long a run
// of a flow that stores its outcomes in m may last.
func (m *MemoryOutcomes) outcomeKeep() time.Duration { return m.keep }

// An Outcome is how a run of a [Flow] ended, said twice: for the person, a
// heading and a short summary; for the model, a sentence. Build the
// tool's final result from it with [FlowRound.Outcome].
type Outcome struct {
	// Heading heads the outcome for the person, such as "Account
	// created". Empty means "Finished" for a run that completed, and "Not
	// completed" for any other, in the round's language.
	Heading string
	// Summary lists, one short item each, what the person should see at a
	// glance, such as "Email: ada@example.com" or "Plan: Team". Nil shows
	// none.
	Summary []string
	// Text is the sentence for the model, which a view keeps out of the
	// person's sight. Empty means none.
	Text string
	// Data is the result's structuredContent, whose members are kept in
	// their order, before the outcome's own; it must marshal to a JSON
	// object that says one thing: no key given twice, no invalid UTF-8,
	// no lone surrogate escape. Nil means none of the author's own.
	Data any
	// NotCompleted marks a run that finished ([FlowDone]) but did not do
	// what it was for, such as a signup whose email is already registered.
	// A run declined, cancelled or invalid never completed, whatever it
	// says. False, on FlowDone, means completed.
	NotCompleted bool
}

// Outcome returns the tool's final result for o, in the round's language,
// the same on every path: its first text block is for the person (the
// heading, then each summary item on a line of its own), its second, o.Text,
// for the model; its structuredContent is o.Data with the heading, the
// summary and whether the run completed, which a view's outcome shows; and
// it carries the round's contentLanguage. A declined, cancelled or invalid
// run is headed as not completed. Hand the result to [FlowRound.Once]. It
// returns an error when o is nil, and when o.Data does not marshal to a
// JSON object or says two things (see Outcome.Data).
func (r *FlowRound) Outcome(o *Outcome) (*mcp.CallToolResult, error) {
	if o == nil {
		return nil, errors.New("mcpform: FlowRound.Outcome of a nil Outcome")
	}
	status, lang := FlowDone, language.English
	if r != nil {
		status, lang = r.Status, r.Language
	}
	person, structured, err := outcomeParts(o, status, lang)
	if err != nil {
		return nil, err
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: person}}, StructuredContent: structured}
	if o.Text != "" {
		res.Content = append(res.Content, &mcp.TextContent{Text: o.Text})
	}
	ContentLanguage(res, lang)
	return res, nil
}

// outcomeParts returns o's text for the person and its structuredContent,
// for a round of status in lang: what every face's Outcome builds its
// result of.
func outcomeParts(o *Outcome, status FlowStatus, lang language.Tag) (string, json.RawMessage, error) {
	completed := status == FlowDone && !o.NotCompleted
	heading := o.Heading
	if heading == "" {
		l := catalog.Match(lang.String())
		heading = l.Text(catalog.ViewNotDone)
		if completed {
			heading = l.Text(catalog.ViewDone)
		}
	}
	var data json.RawMessage
	if o.Data != nil {
		b, err := json.Marshal(o.Data)
		if err != nil {
			return "", nil, fmt.Errorf("mcpform: Outcome.Data: %w", err)
		}
		data = b
	}
	structured, err := prefab.OutcomeData(data, heading, o.Summary, completed)
	if err != nil {
		return "", nil, fmt.Errorf("mcpform: Outcome.Data: %w", err)
	}
	person := heading
	if len(o.Summary) > 0 {
		person += "\n" + strings.Join(o.Summary, "\n")
	}
	return person, structured, nil
}
