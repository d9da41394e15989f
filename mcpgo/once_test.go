package mcpgo_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/mcpform/mcpform/mcpgo"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"modernc.org/sqlite"
)

// onceServer serves "signup" on mcpgo.Next, creating each run's account
// in FlowRound.Once on a store of its own *sql.DB handle: a replica.
// created counts the accounts of every replica; last keeps the final
// round's request.
type onceServer struct {
	*server.MCPServer
	last mcp.CallToolRequest
}

func newOnceServer(t *testing.T, db *sql.DB, tables *mcpform.SQLStoreOptions, created *atomic.Int32) *onceServer {
	store, err := mcpform.NewSQLStore(db, tables)
	require.NoError(t, err)
	flow := signupFlowWith(t, nil, store)
	s := &onceServer{MCPServer: server.NewMCPServer("signup", "v0", server.WithToolCapabilities(false))}
	s.AddTool(mcp.NewTool("signup"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		round, err := mcpgo.Next(context.WithValue(ctx, principalKey{}, "alice"), flow, req)
		if err != nil {
			return nil, err
		}
		if round.Status == mcpform.FlowAsk {
			return round.Result, nil
		}
		s.last = req
		return round.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) {
			n := created.Add(1)
			return mcp.NewToolResultText(fmt.Sprintf("%s %v seats=%v #%d", round.Status, round.Answers["email"], round.Answers["seats"], n)), nil
		})
	})
	return s
}

// TestFlowOnce: a replayed final round on mcp-go, with the same answers
// or others, on the same replica or on one with a second *sql.DB handle,
// on SQLite and PostgreSQL, triggers nothing twice and returns the first
// outcome, as mcp-go's result.
func TestFlowOnce(t *testing.T) {
	for _, db := range []struct {
		name   string
		driver driver.Driver
		dsn    func(t *testing.T) string
	}{
		{"sqlite", &sqlite.Driver{}, func(t *testing.T) string {
			return "file:" + filepath.Join(t.TempDir(), "once.db") + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
		}},
		{"postgres", stdlib.GetDefaultDriver(), func(t *testing.T) string { return testenv.Postgres(t) }},
	} {
		t.Run(db.name, func(t *testing.T) {
			dsn := db.dsn(t)
			open := func() *sql.DB {
				h := sql.OpenDB(connector{dsn, db.driver})
				t.Cleanup(func() { h.Close() })
				require.NoError(t, h.Ping())
				return h
			}
			for _, proto := range protocols {
				t.Run(proto.name, func(t *testing.T) {
					tables := ownTables(t, open())
					var created atomic.Int32
					one := newOnceServer(t, open(), tables, &created)
					two := newOnceServer(t, open(), tables, &created)
					p := &person{answers: []*mcp.ElicitationResult{
						accept(map[string]any{"email": "ada@example.com", "plan": "team"}),
						accept(map[string]any{"seats": 5}),
					}}
					res, err := callTool(t, connect(t, one.MCPServer, p, proto.opts...), "signup")
					require.NoError(t, err)
					want := text(t, res)
					require.Equal(t, "done ada@example.com seats=5 #1", want)

					state := one.last.Params.RequestState
					require.NotEmpty(t, state)
					other := mcp.InputResponses{"team": mcp.NewElicitationInputResponse(*accept(map[string]any{"seats": 9}))}
					for _, s := range []*onceServer{one, two} {
						c := connect(t, s.MCPServer, &person{}, proto.opts...)
						for _, responses := range []mcp.InputResponses{one.last.Params.InputResponses, other} {
							assert.Equal(t, want, rawText(t, sendRaw(t, c, "signup", state, responses)))
						}
					}
					assert.Equal(t, int32(1), created.Load(), "a replay triggered the side effect again")
				})
			}
		})
	}
}

// TestOnceMisuse: Once on a round that asks, and on no round, refuses
// rather than calls do.
func TestOnceMisuse(t *testing.T) {
	var req mcp.CallToolRequest
	req.Params.Name = "signup"
	ctx := context.WithValue(context.Background(), principalKey{}, "alice")
	asks, err := mcpgo.Next(ctx, signupFlow(t), req)
	require.NoError(t, err)
	require.Equal(t, mcpform.FlowAsk, asks.Status)
	called := false
	do := func(context.Context) (*mcp.CallToolResult, error) {
		called = true
		return mcp.NewToolResultText("x"), nil
	}
	_, err = asks.Once(ctx, do)
	assert.ErrorContains(t, err, "return its Result")
	_, err = (*mcpgo.FlowRound)(nil).Once(ctx, do)
	assert.Error(t, err)
	assert.False(t, called)
}

// ownTables names outcome and secret tables of the test's own, dropped
// when it ends.
func ownTables(t *testing.T, admin *sql.DB) *mcpform.SQLStoreOptions {
	var b [6]byte
	rand.Read(b[:])
	suffix := hex.EncodeToString(b[:])
	opts := &mcpform.SQLStoreOptions{OutcomeTable: "outcomes_" + suffix, SecretTable: "secrets_" + suffix}
	t.Cleanup(func() {
		for _, table := range []string{opts.OutcomeTable, opts.SecretTable} {
			admin.Exec("DROP TABLE IF EXISTS " + table)
		}
	})
	return opts
}

// connector opens dsn with driver: a handle of its own per sql.OpenDB.
type connector struct {
	dsn    string
	driver driver.Driver
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.driver.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.driver }

// jsonOutcomes is an Outcomes of the caller's own that keeps the contract
// mcpform.Outcomes documents: it encodes do's result as part of recording
// it, and a result it cannot encode leaves the key claimed, with no
// outcome, every later Once reporting ErrOutcomeUnknown without calling
// do.
type jsonOutcomes struct {
	mu    sync.Mutex
	first map[string][]byte // nil: do returned, and nothing could be kept
}

func (s *jsonOutcomes) Once(ctx context.Context, key string, do func(context.Context) (*gosdk.CallToolResult, error)) (*gosdk.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	blob, ok := s.first[key]
	if !ok {
		res, err := do(ctx)
		if err != nil || res == nil {
			return nil, err
		}
		blob, err = json.Marshal(res)
		s.first[key] = blob
		if err != nil {
			return nil, fmt.Errorf("%w (%w)", mcpform.ErrOutcomeUnknown, err)
		}
	}
	if blob == nil {
		return nil, mcpform.ErrOutcomeUnknown
	}
	var res gosdk.CallToolResult
	return &res, json.Unmarshal(blob, &res)
}

func (s *jsonOutcomes) LookupOutcome(ctx context.Context, key string) (*gosdk.CallToolResult, bool, error) {
	s.mu.Lock()
	blob, ok := s.first[key]
	s.mu.Unlock()
	if blob == nil {
		return nil, ok, nil
	}
	var res gosdk.CallToolResult
	return &res, true, json.Unmarshal(blob, &res)
}

// TestOnceUnrecordable finishes a run on mcp-go whose outcome cannot be
// recorded after do returned: its result holds a NaN, which JSON cannot
// say, or, on SQLite, every write of the outcome fails. On every store,
// the final round and three replays of it fail with ErrOutcomeUnknown,
// and the side effect runs once.
func TestOnceUnrecordable(t *testing.T) {
	nan := func(n int32) *mcp.CallToolResult {
		zero := 0.0
		res := mcp.NewToolResultText(fmt.Sprint("charged #", n))
		res.StructuredContent = map[string]any{"ratio": zero / zero}
		return res
	}
	created := func(n int32) *mcp.CallToolResult { return mcp.NewToolResultText(fmt.Sprint("created #", n)) }
	sqliteStore := func(t *testing.T, failWrites bool) mcpform.Outcomes {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "once.db")+"?_pragma=busy_timeout(10000)")
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		store, err := mcpform.NewSQLStore(db, nil)
		require.NoError(t, err)
		if failWrites {
			require.NoError(t, store.Create(context.Background()))
			_, err := db.Exec(`CREATE TRIGGER fail_record BEFORE UPDATE OF result ON mcpform_outcomes
				WHEN NEW.result IS NOT NULL BEGIN SELECT RAISE(ABORT, 'injected failure'); END`)
			require.NoError(t, err)
		}
		return store
	}
	for _, tt := range []struct {
		name   string
		store  func(t *testing.T) mcpform.Outcomes
		result func(n int32) *mcp.CallToolResult
	}{
		{"NaN/memory", func(*testing.T) mcpform.Outcomes { return mcpform.NewMemoryOutcomes(0) }, nan},
		{"NaN/sqlite", func(t *testing.T) mcpform.Outcomes { return sqliteStore(t, false) }, nan},
		{"NaN/own store", func(*testing.T) mcpform.Outcomes { return &jsonOutcomes{first: map[string][]byte{}} }, nan},
		{"failed write/sqlite", func(t *testing.T) mcpform.Outcomes { return sqliteStore(t, true) }, created},
	} {
		t.Run(tt.name, func(t *testing.T) {
			flow := signupFlowWith(t, nil, tt.store(t))
			var calls atomic.Int32
			var last mcp.CallToolRequest
			var errs []error
			srv := server.NewMCPServer("signup", "v0", server.WithToolCapabilities(false))
			srv.AddTool(mcp.NewTool("signup"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				round, err := mcpgo.Next(context.WithValue(ctx, principalKey{}, "alice"), flow, req)
				if err != nil {
					return nil, err
				}
				if round.Status == mcpform.FlowAsk {
					return round.Result, nil
				}
				last = req
				res, err := round.Once(ctx, func(context.Context) (*mcp.CallToolResult, error) {
					return tt.result(calls.Add(1)), nil
				})
				errs = append(errs, err)
				if err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
				return res, nil
			})
			p := &person{answers: []*mcp.ElicitationResult{accept(map[string]any{"email": "ada@example.com", "plan": "pro"})}}
			c := connect(t, srv, p)
			_, err := callTool(t, c, "signup")
			require.NoError(t, err)
			for range 3 {
				sendRaw(t, c, "signup", last.Params.RequestState, last.Params.InputResponses)
			}
			require.Len(t, errs, 4)
			for i, err := range errs {
				assert.ErrorIs(t, err, mcpform.ErrOutcomeUnknown, "call %d", i)
			}
			assert.EqualValues(t, 1, calls.Load(), "side effects run")
		})
	}
}
