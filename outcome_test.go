package mcpform

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFlowRoundOnce runs a flow's last round on two replicas that share a
// database: whatever the answers of a replay, and whichever replica it
// reaches, the first outcome is returned and nothing runs twice.
func TestFlowRoundOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		tables := d.tables(t)
		_, codec, _ := newFlowFixture(t)
		var replicas []*Flow
		for range 2 {
			s, _ := d.store(t, tables)
			f, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, Outcomes: s})
			require.NoError(t, err)
			replicas = append(replicas, f)
		}
		var created atomic.Int32
		create := func(r *FlowRound) func(context.Context) (*mcp.CallToolResult, error) {
			return func(context.Context) (*mcp.CallToolResult, error) {
				created.Add(1)
				return outcome("created " + r.Answers["email"].(string)), nil
			}
		}
		begin := func(t *testing.T, f *Flow) string {
			r, err := f.Next(context.Background(), call("signup", "", nil))
			require.NoError(t, err)
			require.Equal(t, "account", asked(t, r))
			return r.Result.RequestState
		}
		finish := func(t *testing.T, f *Flow, state string, answers map[string]any) (*FlowRound, string) {
			r, err := f.Next(context.Background(), call("signup", state, answers))
			require.NoError(t, err)
			require.NotEqual(t, FlowAsk, r.Status)
			res, err := r.Once(ctx, create(r))
			require.NoError(t, err)
			return r, textOf(res)
		}

		t.Run("a replay with other answers gets the first outcome", func(t *testing.T) {
			start := begin(t, replicas[0])
			first, text := finish(t, replicas[0], start, map[string]any{"account": map[string]any{"email": "ada@example.com", "plan": "pro"}})
			assert.Equal(t, "created ada@example.com", text)
			for i, f := range replicas {
				again, text := finish(t, f, start, map[string]any{"account": map[string]any{"email": "mallory@example.com", "plan": "pro"}})
				assert.Equal(t, first.ID, again.ID)
				assert.Equal(t, "mallory@example.com", again.Answers["email"], "the replay's own answers")
				assert.Equal(t, "created ada@example.com", text, "replica %d", i)
			}
			assert.EqualValues(t, 1, created.Load())
		})

		t.Run("a declined run stays declined", func(t *testing.T) {
			start := begin(t, replicas[1])
			r, err := replicas[1].Next(context.Background(), call("signup", start, map[string]any{"account": "decline"}))
			require.NoError(t, err)
			require.Equal(t, FlowDeclined, r.Status)
			res, err := r.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) { return outcome("declined"), nil })
			require.NoError(t, err)
			assert.Equal(t, "declined", textOf(res))
			_, text := finish(t, replicas[0], start, map[string]any{"account": map[string]any{"email": "eve@example.com", "plan": "pro"}})
			assert.Equal(t, "declined", text)
			assert.EqualValues(t, 1, created.Load(), "nothing more was created")
		})

		t.Run("misuse", func(t *testing.T) {
			ask, err := replicas[0].Next(context.Background(), call("signup", "", nil))
			require.NoError(t, err)
			_, err = ask.Once(ctx, create(ask))
			assert.ErrorContains(t, err, "return its Result")
			_, err = (*FlowRound)(nil).Once(ctx, create(ask))
			assert.Error(t, err)
			r, err := replicas[0].Next(context.Background(), call("signup", begin(t, replicas[0]), map[string]any{"account": "cancel"}))
			require.NoError(t, err)
			_, err = r.Once(ctx, nil)
			assert.ErrorContains(t, err, "without a function")
		})
	})
}

// TestFlowOnceSecretDuplicate sends set_password's finishing round twice
// at once, to two replicas, while the first is still at its slow side
// effect (hashing a password), and once more after it finished: every
// copy gets the first outcome, none is told the page is still waiting,
// and the side effect runs once, with the secret.
func TestFlowOnceSecretDuplicate(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		tables := d.tables(t)
		_, codec, _ := newFlowFixture(t)
		var handler http.Handler
		page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
		t.Cleanup(page.Close)
		var flows []*Flow
		var logs []*stmtLog
		for range 2 {
			s, log := d.store(t, tables)
			f, err := NewFlow(codec, []Step{passwordStep}, &FlowOptions{Principal: tokenUser, Outcomes: s,
				Secrets: &SecretOptions{PageURL: page.URL + "/secret", Store: SealSecrets(s, codec)}})
			require.NoError(t, err)
			flows, logs = append(flows, f), append(logs, log)
		}
		handler = anyonePage(t, flows[1])

		r, err := flows[0].Next(context.Background(), secretCall("", nil))
		require.NoError(t, err)
		status := send(t, pageLink(t, r), "correct horse battery")
		require.Equal(t, http.StatusOK, status)
		final := secretCall(r.Result.RequestState, map[string]any{
			"password": map[string]any{"email": "ada@example.com"}, "password.secret": "accept"})

		var hashed []string
		var mu sync.Mutex
		hash := func(wait func()) func(context.Context) (*mcp.CallToolResult, error) {
			return func(context.Context) (*mcp.CallToolResult, error) {
				wait()
				mu.Lock()
				defer mu.Unlock()
				hashed = append(hashed, "hashed")
				return outcome("updated"), nil
			}
		}
		handle := func(f *Flow, wait func()) (string, error) {
			r, err := f.Next(context.Background(), final)
			if err != nil {
				return "", err
			}
			if r.Status != FlowDone {
				return r.Status.String(), nil // the bug: "still waiting"
			}
			if r.Answers["password"] != "correct horse battery" && !r.replay {
				return "", errors.New("a finishing round without its secret")
			}
			res, err := r.Once(ctx, hash(wait))
			return textOf(res), err
		}

		polled := logs[1].count("SELECT outcomes")
		entered := make(chan struct{})
		var wg sync.WaitGroup
		results := make([]string, 2)
		wg.Go(func() {
			var err error
			results[0], err = handle(flows[0], func() {
				close(entered)
				// Still hashing until the duplicate waits on the claim.
				for deadline := time.Now().Add(10 * time.Second); logs[1].count("SELECT outcomes") == polled; {
					if time.Now().After(deadline) {
						t.Error("the duplicate never waited")
						return
					}
					time.Sleep(time.Millisecond)
				}
			})
			assert.NoError(t, err)
		})
		<-entered
		wg.Go(func() {
			var err error
			results[1], err = handle(flows[1], func() {})
			assert.NoError(t, err)
		})
		wg.Wait()
		after, err := handle(flows[1], func() {})
		require.NoError(t, err)
		assert.Equal(t, []string{"updated", "updated", "updated"}, append(results, after))
		assert.Equal(t, []string{"hashed"}, hashed, "the side effect ran once")

		link, ok := flows[0].links.open(linkToken(t, pageLink(t, r)))
		require.True(t, ok)
		_, held, err := flows[0].secrets.Store.GetSecret(ctx, link.key())
		require.NoError(t, err)
		assert.False(t, held, "the secret is deleted once the outcome is stored")
	})
}

// TestFlowOnceSecretRetry checks that a finishing round whose side effect
// fails keeps its secret in the store, so that the retry finishes.
func TestFlowOnceSecretRetry(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		_, codec, _ := newFlowFixture(t)
		s, _ := d.store(t, d.tables(t))
		var handler http.Handler
		page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
		t.Cleanup(page.Close)
		f, err := NewFlow(codec, []Step{passwordStep}, &FlowOptions{Principal: tokenUser, Outcomes: s,
			Secrets: &SecretOptions{PageURL: page.URL + "/secret", Store: SealSecrets(s, codec)}})
		require.NoError(t, err)
		handler = anyonePage(t, f)
		r, err := f.Next(context.Background(), secretCall("", nil))
		require.NoError(t, err)
		status := send(t, pageLink(t, r), "correct horse battery")
		require.Equal(t, http.StatusOK, status)
		final := secretCall(r.Result.RequestState, map[string]any{
			"password": map[string]any{"email": "ada@example.com"}, "password.secret": "accept"})

		boom := errors.New("the database is down")
		done, err := f.Next(context.Background(), final)
		require.NoError(t, err)
		_, err = done.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) { return nil, boom })
		require.ErrorIs(t, err, boom)

		retry, err := f.Next(context.Background(), final)
		require.NoError(t, err)
		require.Equal(t, FlowDone, retry.Status)
		assert.Equal(t, "correct horse battery", retry.Answers["password"])
		res, err := retry.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) { return outcome("updated"), nil })
		require.NoError(t, err)
		assert.Equal(t, "updated", textOf(res))
	})
}

// TestFlowFinishStatements counts what a finishing round of set_password
// sends to the database, with and without Outcomes: the claim adds one
// statement, and storing the outcome one more.
func TestFlowFinishStatements(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		_, codec, _ := newFlowFixture(t)
		s, log := d.store(t, d.tables(t))
		_, err := s.Once(ctx, "warm", func(context.Context) (*mcp.CallToolResult, error) { return outcome("warm"), nil })
		require.NoError(t, err)
		var handler http.Handler
		page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
		t.Cleanup(page.Close)
		for _, tt := range []struct {
			name     string
			outcomes Outcomes
			want     []string
		}{
			// The page's marker of a closed link, the secret, then the
			// marker that closes it as done and the secret's deletion;
			// with outcomes, the claim before the marker, which do must
			// not run without, and the outcome before the deletion.
			{"without outcomes", nil, []string{"SELECT secrets", "SELECT secrets", "INSERT secrets", "UPDATE secrets"}},
			{"with outcomes", s, []string{"SELECT secrets", "SELECT secrets", "INSERT outcomes", "INSERT secrets",
				"UPDATE outcomes", "UPDATE secrets"}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				f, err := NewFlow(codec, []Step{passwordStep}, &FlowOptions{Principal: tokenUser, Outcomes: tt.outcomes,
					Secrets: &SecretOptions{PageURL: page.URL + "/secret", Store: SealSecrets(s, codec)}})
				require.NoError(t, err)
				handler = anyonePage(t, f)
				r, err := f.Next(context.Background(), secretCall("", nil))
				require.NoError(t, err)
				status := send(t, pageLink(t, r), "correct horse battery")
				require.Equal(t, http.StatusOK, status)
				log.take()
				done, err := f.Next(context.Background(), secretCall(r.Result.RequestState, map[string]any{
					"password": map[string]any{"email": "ada@example.com"}, "password.secret": "accept"}))
				require.NoError(t, err)
				require.Equal(t, FlowDone, done.Status)
				if tt.outcomes != nil {
					_, err = done.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) { return outcome("updated"), nil })
					require.NoError(t, err)
				}
				assert.Equal(t, tt.want, log.take())
			})
		}
	})
}

// anyonePage returns f's secret page, for whoever holds a link.
func anyonePage(t *testing.T, f *Flow) http.Handler {
	h, err := f.SecretPage(&SecretPageOptions{AnyoneWithTheLink: true})
	require.NoError(t, err)
	return h
}

// mapOutcomes is an Outcomes of the caller's own, on go-sdk's result,
// without claims: enough to serve one process's rounds in turn.
type mapOutcomes struct {
	mu    sync.Mutex
	first map[string]*mcp.CallToolResult
}

func (m *mapOutcomes) Once(ctx context.Context, key string, do func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.first[key]; ok {
		return r, nil
	}
	r, err := do(ctx)
	if err != nil || r == nil {
		return nil, err
	}
	m.first[key] = r
	return r, nil
}

func (m *mapOutcomes) LookupOutcome(_ context.Context, key string) (*mcp.CallToolResult, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.first[key]
	return r, ok, nil
}

// TestOutcomesJSON: the store keeps JSON for every face. SQLStore keeps it
// as it is; an Outcomes of go-sdk's result is read as JSON through it; and
// go-sdk's Once gets back do's own result, not a copy, on either.
func TestOutcomesJSON(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	require.NoError(t, err)
	defer db.Close()
	db.SetMaxOpenConns(1)
	sqlStore, err := NewSQLStore(db, nil)
	require.NoError(t, err)
	for name, o := range map[string]Outcomes{"sql": sqlStore, "other": &mapOutcomes{first: map[string]*mcp.CallToolResult{}}} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := outcomesJSON(o)
			_, found, err := s.lookupJSON(ctx, "a")
			require.NoError(t, err)
			assert.False(t, found)

			calls := 0
			stored := []byte(`{"content":[{"type":"text","text":"first"}]}`)
			for _, blob := range [][]byte{stored, []byte(`{"content":[{"type":"text","text":"second"}]}`)} {
				first, err := s.onceJSON(ctx, "a", func(context.Context) (*rawOutcome, error) { calls++; return rawJSON(blob), nil })
				require.NoError(t, err)
				assert.JSONEq(t, string(stored), string(first))
			}
			assert.Equal(t, 1, calls)
			first, found, err := s.lookupJSON(ctx, "a")
			require.NoError(t, err)
			assert.True(t, found)
			assert.JSONEq(t, string(stored), string(first))

			_, err = s.onceJSON(ctx, "nil", func(context.Context) (*rawOutcome, error) { return nil, nil })
			assert.Error(t, err, "a nil outcome is no outcome")

			mine := outcome("mine")
			got, err := onceDecoded(ctx, s, "b", func(context.Context) (*mcp.CallToolResult, error) { return mine, nil })
			require.NoError(t, err)
			assert.Same(t, mine, got)
		})
	}
}

// rawJSON is an outcome already encoded, as blob, as a face other than
// go-sdk's hands it.
func rawJSON(blob []byte) *rawOutcome {
	return &rawOutcome{encode: func() ([]byte, error) { return blob, nil }}
}

// TestFlowRoundOnceSealed finishes a run through a flow on SQLStore: the
// outcome table holds the outcome sealed, never the answers in it, and a
// replay on another replica, sharing the codec's keys, opens it.
func TestFlowRoundOnceSealed(t *testing.T) {
	eachDB(t, func(t *testing.T, d testDB) {
		ctx := context.Background()
		tables := d.tables(t)
		_, codec, _ := newFlowFixture(t)
		var flows []*Flow
		for range 2 {
			s, _ := d.store(t, tables)
			f, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, Outcomes: s})
			require.NoError(t, err)
			flows = append(flows, f)
		}
		start, err := flows[0].Next(ctx, call("signup", "", nil))
		require.NoError(t, err)
		answers := map[string]any{"account": map[string]any{"email": "ada@example.com", "plan": "pro"}}
		var texts []string
		for _, f := range flows {
			r, err := f.Next(ctx, call("signup", start.Result.RequestState, answers))
			require.NoError(t, err)
			res, err := r.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) {
				return outcome("created " + r.Answers["email"].(string)), nil
			})
			require.NoError(t, err)
			texts = append(texts, textOf(res))
		}
		assert.Equal(t, []string{"created ada@example.com", "created ada@example.com"}, texts)
		var stored string
		require.NoError(t, flows[0].outcomes.(*SQLStore).db.QueryRow("SELECT result FROM "+tables.OutcomeTable).Scan(&stored))
		assert.NotContains(t, stored, "ada@example.com")
		assert.Regexp(t, `^s1\.[A-Za-z0-9_-]+$`, stored, "sealed text")
	})
}

// TestIdempotencyKey checks that do's context carries the run's key: the
// same for a retry of the run, another for another run, never the run ID,
// and "" elsewhere.
func TestIdempotencyKey(t *testing.T) {
	ctx := context.Background()
	_, codec, _ := newFlowFixture(t)
	f, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, Outcomes: NewMemoryOutcomes(0)})
	require.NoError(t, err)
	answers := map[string]any{"account": "decline"}
	var keys, ids []string
	// A run that fails once, then is retried; and another run.
	start := func() string {
		r, err := f.Next(ctx, call("signup", "", nil))
		require.NoError(t, err)
		return r.Result.RequestState
	}
	first, second := start(), start()
	for _, tt := range []struct {
		state string
		fail  bool
	}{{first, true}, {first, false}, {second, false}} {
		r, err := f.Next(ctx, call("signup", tt.state, answers))
		require.NoError(t, err)
		_, err = r.Once(ctx, func(ctx context.Context) (*mcp.CallToolResult, error) {
			keys, ids = append(keys, IdempotencyKey(ctx)), append(ids, r.ID)
			if tt.fail {
				return nil, errors.New("the provider is down")
			}
			return outcome("declined"), nil
		})
		if !tt.fail {
			require.NoError(t, err)
		}
	}
	require.Len(t, keys, 3)
	assert.NotEmpty(t, keys[0])
	assert.Equal(t, keys[0], keys[1], "a retry of the run")
	assert.NotEqual(t, keys[0], keys[2], "another run")
	for i, k := range keys {
		assert.NotContains(t, k, ids[i], "the run ID stays hidden")
	}
	assert.Empty(t, IdempotencyKey(ctx))
}

// TestNewFlowNilStores checks that NewFlow refuses a store option that
// holds a nil pointer, naming the option, rather than failing at Once.
func TestNewFlowNilStores(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	for _, tt := range []struct {
		name string
		opts FlowOptions
		want string
	}{
		{"nil *SQLStore", FlowOptions{Outcomes: (*SQLStore)(nil)}, "FlowOptions.Outcomes is a nil *mcpform.SQLStore"},
		{"nil *MemoryOutcomes", FlowOptions{Outcomes: (*MemoryOutcomes)(nil)}, "FlowOptions.Outcomes is a nil *mcpform.MemoryOutcomes"},
		{"nil secret store", FlowOptions{Secrets: &SecretOptions{PageURL: "https://example.com/s", Store: (*MemorySecretStore)(nil)}},
			"FlowOptions.Secrets.Store is a nil *mcpform.MemorySecretStore"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Principal = tokenUser
			f, err := NewFlow(codec, []Step{accountStep}, &tt.opts)
			assert.Nil(t, f)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// TestRunLastsAsLongAsItsOutcome: a state sent back unanswered is minted
// again, with a fresh expiry, for the same run; so a run could be kept
// going past the time its outcome is kept, then finished a second time.
// A run lasts no longer than its flow's Outcomes keep an outcome: after
// that every state of it is refused as expired, and do runs once.
func TestRunLastsAsLongAsItsOutcome(t *testing.T) {
	const keep = 15 * time.Minute // longer than the codec's 10-minute TTL
	stores := map[string]func(t *testing.T, clock *flowClock) Outcomes{
		"memory": func(t *testing.T, clock *flowClock) Outcomes {
			m := NewMemoryOutcomes(keep)
			m.now = clock.now
			return m
		},
	}
	for _, d := range testDBs(t) {
		stores[d.name] = func(t *testing.T, clock *flowClock) Outcomes {
			if d.name == "postgres" {
				d.dsn = testenv.Postgres(t)
			}
			tables := d.tables(t)
			tables.Keep = keep
			s, _ := d.store(t, tables)
			s.now = clock.now
			return s
		}
	}
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			_, codec, clock := newFlowFixture(t)
			f, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, Outcomes: newStore(t, clock)})
			require.NoError(t, err)
			ran := 0
			do := func(context.Context) (*mcp.CallToolResult, error) { ran++; return outcome("created"), nil }
			account := map[string]any{"account": map[string]any{"email": "ada@example.com", "plan": "pro"}}

			r, err := f.Next(ctx, call("signup", "", nil))
			require.NoError(t, err)
			state := r.Result.RequestState
			done, err := f.Next(ctx, call("signup", state, account))
			require.NoError(t, err)
			require.Equal(t, FlowDone, done.Status)
			_, err = done.Once(ctx, do)
			require.NoError(t, err)

			clock.t = clock.t.Add(9 * time.Minute)
			again, err := f.Next(ctx, call("signup", state, nil))
			require.NoError(t, err, "within the keep, a state is minted again")
			require.Equal(t, FlowAsk, again.Status)
			require.Equal(t, r.ID, again.ID)
			state = again.Result.RequestState

			clock.t = clock.t.Add(9 * time.Minute) // the run is 18 minutes old; state is valid for one more
			for _, answers := range []map[string]any{nil, account} {
				_, err = f.Next(ctx, call("signup", state, answers))
				var rpc *jsonrpc.Error
				require.ErrorAs(t, err, &rpc, "a state of a run older than the keep")
				assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpc.Code)
			}
			assert.Equal(t, 1, ran, "Once is once per run")
		})
	}
}

// TestRunID: a run ID carries its start, to the second, and 96 random
// bits; an ID that does not is refused by a flow with Outcomes.
func TestRunID(t *testing.T) {
	now := time.Date(2026, 12, 4, 13, 0, 0, 500, time.UTC)
	a, err := newRunID(now)
	require.NoError(t, err)
	b, err := newRunID(now)
	require.NoError(t, err)
	assert.Len(t, a, 24)
	assert.NotEqual(t, a, b)
	start, ok := runStart(a)
	require.True(t, ok)
	assert.Equal(t, now.Truncate(time.Second), start.UTC())
	for _, bad := range []string{"", "AAAAAAAAAAAAAAAAAAAAAA", a[:23], a + "A", strings.Repeat("*", 24)} {
		_, ok := runStart(bad)
		assert.False(t, ok, "%q", bad)
	}
	_, codec, clock := newFlowFixture(t)
	f, err := NewFlow(codec, []Step{accountStep}, &FlowOptions{Principal: tokenUser, Outcomes: NewMemoryOutcomes(time.Hour)})
	require.NoError(t, err)
	live, _ := newRunID(clock.now())
	assert.True(t, f.runLive(live))
	assert.False(t, f.runLive("AAAAAAAAAAAAAAAAAAAAAA"), "an ID of before IDs carried their start")
	clock.t = clock.t.Add(time.Hour)
	assert.False(t, f.runLive(live))
}

// TestMemoryOutcomesOnce checks MemoryOutcomes against what SQLStore.Once
// documents, within one process: replays get the first outcome; a
// duplicate during a slow finish waits for it; a do that fails, returns
// nil or panics releases the run for the next call; waiting ends with
// the context.
func TestMemoryOutcomesOnce(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryOutcomes(0)

	t.Run("replays get the first outcome", func(t *testing.T) {
		var calls atomic.Int32
		first := outcome("first")
		got, err := m.Once(ctx, "run-1", func(context.Context) (*mcp.CallToolResult, error) { calls.Add(1); return first, nil })
		require.NoError(t, err)
		assert.Same(t, first, got)
		for range 3 {
			again, err := m.Once(ctx, "run-1", counted(&calls, "replay"))
			require.NoError(t, err)
			assert.Equal(t, first, again)
		}
		assert.EqualValues(t, 1, calls.Load())
		found, ok, err := m.LookupOutcome(ctx, "run-1")
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, "first", textOf(found))
	})

	t.Run("duplicates during a slow finish wait for its outcome", func(t *testing.T) {
		var calls atomic.Int32
		const dups = 8
		entered, release := make(chan struct{}), make(chan struct{})
		results := make([]string, dups)
		var wg sync.WaitGroup
		wg.Go(func() {
			got, err := m.Once(ctx, "run-2", func(context.Context) (*mcp.CallToolResult, error) {
				calls.Add(1)
				close(entered)
				<-release
				return outcome("slow first"), nil
			})
			assert.NoError(t, err)
			assert.Equal(t, "slow first", textOf(got))
		})
		<-entered
		for i := range dups {
			wg.Go(func() {
				got, err := m.Once(ctx, "run-2", counted(&calls, "duplicate"))
				assert.NoError(t, err)
				results[i] = textOf(got)
			})
		}
		first, found, err := m.LookupOutcome(ctx, "run-2")
		require.NoError(t, err)
		assert.True(t, found, "claimed")
		assert.Nil(t, first, "not decided")
		close(release)
		wg.Wait()
		for i, r := range results {
			assert.Equal(t, "slow first", r, "duplicate %d", i)
		}
		assert.EqualValues(t, 1, calls.Load(), "side effects run")
	})

	for name, do := range map[string]func(context.Context) (*mcp.CallToolResult, error){
		"fails":      func(context.Context) (*mcp.CallToolResult, error) { return nil, errors.New("boom") },
		"is nil":     func(context.Context) (*mcp.CallToolResult, error) { return nil, nil },
		"panics":     func(context.Context) (*mcp.CallToolResult, error) { panic("boom") },
		"ends early": func(context.Context) (*mcp.CallToolResult, error) { return nil, context.Canceled },
	} {
		t.Run("a do that "+name+" releases the run", func(t *testing.T) {
			key := "released-" + name
			entered, waiting := make(chan struct{}), make(chan struct{})
			var dup string
			var wg sync.WaitGroup
			wg.Go(func() {
				<-entered
				close(waiting)
				got, err := m.Once(ctx, key, func(context.Context) (*mcp.CallToolResult, error) { return outcome("duplicate ran"), nil })
				assert.NoError(t, err)
				dup = textOf(got)
			})
			func() {
				defer func() { recover() }()
				_, err := m.Once(ctx, key, func(c context.Context) (*mcp.CallToolResult, error) {
					close(entered)
					<-waiting
					return do(c)
				})
				assert.Error(t, err)
			}()
			wg.Wait()
			assert.Equal(t, "duplicate ran", dup, "the next call runs its do")
		})
	}

	t.Run("waiting ends with the context", func(t *testing.T) {
		entered, release := make(chan struct{}), make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			m.Once(ctx, "run-3", func(context.Context) (*mcp.CallToolResult, error) {
				close(entered)
				<-release
				return outcome("late"), nil
			})
		})
		<-entered
		short, cancel := context.WithCancel(ctx)
		cancel()
		var calls atomic.Int32
		_, err := m.Once(short, "run-3", counted(&calls, "never"))
		assert.ErrorIs(t, err, context.Canceled)
		close(release)
		wg.Wait()
		assert.Zero(t, calls.Load())
	})
}

// TestMemoryOutcomesSweep checks that outcomes are dropped once kept for
// keep, at most a batch per call, so that the store holds only what a
// replay can still reach and no call pays for all of it.
func TestMemoryOutcomesSweep(t *testing.T) {
	ctx := context.Background()
	clock := &flowClock{t: time.Unix(1_800_000_000, 0)}
	m := NewMemoryOutcomes(time.Hour)
	m.now = clock.now
	const n = 3*memSweepBatch + 5
	for i := range n {
		_, err := m.Once(ctx, fmt.Sprint("run-", i), counted(new(atomic.Int32), "old"))
		require.NoError(t, err)
	}
	clock.t = clock.t.Add(time.Hour + time.Second)
	size := func() int { m.mu.Lock(); defer m.mu.Unlock(); return len(m.done) + len(m.pending) }
	var sizes []int
	for i := range 4 {
		_, err := m.Once(ctx, fmt.Sprint("new-", i), counted(new(atomic.Int32), "new"))
		require.NoError(t, err)
		sizes = append(sizes, size())
	}
	assert.Equal(t, []int{n - memSweepBatch + 1, n - 2*memSweepBatch + 2, n - 3*memSweepBatch + 3, 4}, sizes)
	var calls atomic.Int32
	got, err := m.Once(ctx, "run-0", counted(&calls, "after keep"))
	require.NoError(t, err)
	assert.Equal(t, "after keep", textOf(got), "an outcome past keep is gone")
	m.mu.Lock()
	assert.LessOrEqual(t, len(m.order)-m.head, 5, "the queue of claims shrinks too")
	kept := []memKey{}
	for k := range m.done {
		kept = append(kept, k)
	}
	want := []memKey{memKeyOf("new-0"), memKeyOf("new-1"), memKeyOf("new-2"), memKeyOf("new-3"), memKeyOf("run-0")}
	assert.ElementsMatch(t, want, kept, "the memory of expired outcomes is freed")
	m.mu.Unlock()
}

// BenchmarkMemoryOutcomesOnce measures a first finish on MemoryOutcomes,
// beside BenchmarkSQLStoreOnce, and the bytes it keeps for it: a
// signup's outcome, with its key.
func BenchmarkMemoryOutcomesOnce(b *testing.B) {
	m := NewMemoryOutcomes(0)
	ctx := context.Background()
	dos := signupDos(1000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := 0
	for ; b.Loop(); n++ {
		if _, err := m.Once(ctx, runIdempotencyKey(fmt.Sprint(n)), dos[n%len(dos)]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(n), "kept-B/op")
	runtime.KeepAlive(m)
}

// signupDos returns n dos, each of a signup of its own person.
func signupDos(n int) []func(context.Context) (*mcp.CallToolResult, error) {
	dos := make([]func(context.Context) (*mcp.CallToolResult, error), n)
	for i := range dos {
		var res mcp.CallToolResult
		if err := json.Unmarshal(signupOutcome(fmt.Sprint("Person ", i), fmt.Sprintf("person-%d@example.com", i)), &res); err != nil {
			panic(err)
		}
		dos[i] = func(context.Context) (*mcp.CallToolResult, error) { return &res, nil }
	}
	return dos
}

// signupOutcome is the JSON of a signup's outcome for email, as a tool
// returns it.
func signupOutcome(name, email string) []byte {
	return fmt.Appendf(nil, `{"content":[{"type":"text","text":"Signup complete: created %s <%s> on the Pro plan."}],`+
		`"structuredContent":{"status":"created","account":{"email":%q,"full_name":%q,"plan":"pro"}}}`, name, email, email, name)
}

// TestMemoryOutcomesKeptSize: what MemoryOutcomes holds for a finished
// run, its outcome and its key included, stays small, since a server
// keeps one for every run its state may still replay: at most 400 bytes
// for a signup's outcome of about 220, kept as it is.
//
// The figure is the live heap's growth over many runs, divided by their
// number, with a collection before each reading. It is robust: the dos,
// keys and results are made before the first reading and are the
// caller's, so only what the store keeps remains; the runs are many, so
// the growth of the map's table and of the queue of claims, which double
// as they fill, is spread over them. Both are in the figure, at their
// worst just after doubling, as they would be in a server.
func TestMemoryOutcomesKeptSize(t *testing.T) {
	const runs = 20000
	dos := signupDos(runs)
	keys := make([]string, runs)
	for i := range keys {
		keys[i] = runIdempotencyKey(fmt.Sprint(i))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := NewMemoryOutcomes(0)
	for i, k := range keys {
		_, err := m.Once(context.Background(), k, dos[i])
		require.NoError(t, err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perRun := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / runs
	outcomeBytes := 0
	m.mu.Lock()
	for _, d := range m.done {
		outcomeBytes += len(m.kept.Get(d.outcome))
	}
	m.mu.Unlock()
	t.Logf("%.0f bytes kept a run, with its key and outcome of %.0f bytes on average", perRun, float64(outcomeBytes)/runs)
	assert.LessOrEqual(t, perRun, 400.0, "bytes kept a run")
	runtime.KeepAlive(m)
	runtime.KeepAlive(dos)
	runtime.KeepAlive(keys)
}

// unencodable returns a do that counts its calls and returns a result
// that cannot be encoded: JSON has no NaN, and 0/0 in a map of
// StructuredContent is one.
func unencodableDo(calls *atomic.Int32) func(context.Context) (*mcp.CallToolResult, error) {
	return func(context.Context) (*mcp.CallToolResult, error) {
		calls.Add(1)
		zero := 0.0
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "charged"}},
			StructuredContent: map[string]any{"ratio": zero / zero}}, nil
	}
}

// anOutcomes is a store the exactly-once tests run on. failWrites, when
// not nil, makes the store's writes of outcomes fail from then on.
type anOutcomes struct {
	name       string
	store      Outcomes
	failWrites func(t *testing.T)
}

// eachOutcomes runs f on MemoryOutcomes and on SQLStore on each database,
// each a new store.
func eachOutcomes(t *testing.T, f func(t *testing.T, o anOutcomes)) {
	t.Run("memory", func(t *testing.T) { f(t, anOutcomes{name: "memory", store: NewMemoryOutcomes(0)}) })
	eachDB(t, func(t *testing.T, d testDB) {
		s, log := d.store(t, d.tables(t))
		f(t, anOutcomes{name: d.name, store: s, failWrites: func(t *testing.T) { log.failing(t, "SET result") }})
	})
}

// finishRound returns a fresh finishing round of the run that started
// with state on f: a retry of the tool call.
func finishRound(t *testing.T, f *Flow, state string) *FlowRound {
	t.Helper()
	r, err := f.Next(context.Background(), call("signup", state, map[string]any{"account": map[string]any{"email": "ada@example.com", "plan": "pro"}}))
	require.NoError(t, err)
	require.Equal(t, FlowDone, r.Status)
	return r
}

// TestOnceUnencodable returns, from a do that succeeded, a result that
// cannot be encoded (a NaN in StructuredContent), on every store, through
// the store's Once and through a flow's, and on an Outcomes of the
// caller's own: the call and three retries get ErrOutcomeUnknown, and the
// side effect runs once. Before the store encoded the result itself, the
// failed encoding was taken for a failed do, and each retry ran it again.
func TestOnceUnencodable(t *testing.T) {
	ctx := context.Background()
	eachOutcomes(t, func(t *testing.T, o anOutcomes) {
		t.Run("store", func(t *testing.T) {
			var calls atomic.Int32
			for i := range 4 {
				res, err := o.store.Once(ctx, "nan", unencodableDo(&calls))
				assert.ErrorIs(t, err, ErrOutcomeUnknown, "call %d", i)
				assert.Nil(t, res)
			}
			assert.EqualValues(t, 1, calls.Load(), "side effects run")
			first, found, err := o.store.LookupOutcome(ctx, "nan")
			require.NoError(t, err)
			assert.True(t, found, "the run stays claimed")
			assert.Nil(t, first)
		})
	})
	eachFlowStore(t, func(t *testing.T, store Outcomes) {
		_, codec, _ := newFlowFixture(t)
		f, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, Outcomes: store})
		require.NoError(t, err)
		start, err := f.Next(ctx, call("signup", "", nil))
		require.NoError(t, err)
		var calls atomic.Int32
		for i := range 4 {
			res, err := finishRound(t, f, start.Result.RequestState).Once(ctx, unencodableDo(&calls))
			assert.ErrorIs(t, err, ErrOutcomeUnknown, "call %d", i)
			assert.Nil(t, res)
		}
		assert.EqualValues(t, 1, calls.Load(), "side effects run")
	})
}

// eachFlowStore runs f, as subtests, on every Outcomes a flow may have:
// MemoryOutcomes, SQLStore on each database, and one of the caller's own.
func eachFlowStore(t *testing.T, f func(t *testing.T, store Outcomes)) {
	t.Run("flow", func(t *testing.T) {
		eachOutcomes(t, func(t *testing.T, o anOutcomes) { f(t, o.store) })
		t.Run("own", func(t *testing.T) { f(t, &mapOutcomes{first: map[string]*mcp.CallToolResult{}}) })
	})
}

// TestOnceRecordingFails fails the recording of an outcome after do
// returned it, on every store: its encoding or sealing fails, or, on
// SQLStore, every write of it. The call and three retries get
// ErrOutcomeUnknown, the first wrapping the cause, and the side effect
// runs once.
func TestOnceRecordingFails(t *testing.T) {
	ctx := context.Background()
	sealFails := errors.New("sealing failed")
	eachOutcomes(t, func(t *testing.T, o anOutcomes) {
		t.Run("seal", func(t *testing.T) {
			s := outcomesJSON(o.store)
			var calls atomic.Int32
			for i := range 4 {
				_, err := s.onceJSON(ctx, "seal", func(context.Context) (*rawOutcome, error) {
					calls.Add(1)
					return &rawOutcome{encode: func() ([]byte, error) { return nil, sealFails }}, nil
				})
				assert.ErrorIs(t, err, ErrOutcomeUnknown, "call %d", i)
				if i == 0 {
					assert.ErrorIs(t, err, sealFails, "the cause")
				}
			}
			assert.EqualValues(t, 1, calls.Load(), "side effects run")
		})
		t.Run("encoder panics", func(t *testing.T) {
			s := outcomesJSON(o.store)
			var calls atomic.Int32
			func() {
				defer func() { assert.Equal(t, "boom", recover()) }()
				s.onceJSON(ctx, "panic", func(context.Context) (*rawOutcome, error) {
					calls.Add(1)
					return &rawOutcome{encode: func() ([]byte, error) { panic("boom") }}, nil
				})
			}()
			for i := range 3 {
				_, err := o.store.Once(ctx, "panic", counted(&calls, "retry"))
				assert.ErrorIs(t, err, ErrOutcomeUnknown, "retry %d", i)
			}
			assert.EqualValues(t, 1, calls.Load(), "side effects run")
		})
		if o.failWrites == nil {
			return
		}
		t.Run("write", func(t *testing.T) {
			_, codec, _ := newFlowFixture(t)
			f, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser, Outcomes: o.store})
			require.NoError(t, err)
			start, err := f.Next(ctx, call("signup", "", nil))
			require.NoError(t, err)
			o.failWrites(t)
			var calls atomic.Int32
			for i := range 4 {
				_, err := finishRound(t, f, start.Result.RequestState).Once(ctx, counted(&calls, "created"))
				assert.ErrorIs(t, err, ErrOutcomeUnknown, "call %d", i)
			}
			assert.EqualValues(t, 1, calls.Load(), "side effects run")
		})
	})
}

// TestFlowRoundOnceWithoutOutcomes (issue 32, finding 13): a flow without
// Outcomes used to fail Once after the person had answered everything. It
// keeps its outcomes in the process's memory: do runs once for a run,
// however often its last round is replayed, on this flow and on another
// flow of the same steps built per call, and runs again for another run.
func TestFlowRoundOnceWithoutOutcomes(t *testing.T) {
	ctx := context.Background()
	flow, codec, _ := newFlowFixture(t)
	perCall := func() *Flow {
		f, err := NewFlow(codec, []Step{accountStep, teamStep}, &FlowOptions{Principal: tokenUser})
		require.NoError(t, err)
		return f
	}
	var created atomic.Int32
	finish := func(t *testing.T, f *Flow, state, email string) string {
		r, err := f.Next(ctx, call("signup", state, map[string]any{"account": map[string]any{"email": email, "plan": "pro"}}))
		require.NoError(t, err)
		require.Equal(t, FlowDone, r.Status)
		res, err := r.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) {
			created.Add(1)
			return outcome("created " + email), nil
		})
		require.NoError(t, err)
		return textOf(res)
	}
	start := func(f *Flow) string {
		r, err := f.Next(ctx, call("signup", "", nil))
		require.NoError(t, err)
		return r.Result.RequestState
	}
	state := start(flow)
	assert.Equal(t, "created ada@example.com", finish(t, flow, state, "ada@example.com"))
	assert.Equal(t, "created ada@example.com", finish(t, flow, state, "eve@example.com"), "a replay gets the first outcome")
	assert.Equal(t, "created ada@example.com", finish(t, perCall(), state, "eve@example.com"), "so does a flow built per call")
	assert.EqualValues(t, 1, created.Load())
	assert.Equal(t, "created bob@example.com", finish(t, perCall(), start(perCall()), "bob@example.com"), "another run runs do")
	assert.EqualValues(t, 2, created.Load())
}
