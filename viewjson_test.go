package mcpform

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
)

// viewJSONSeen counts the views the package's tests built, each held to
// encoding/json by TestMain's check; viewJSONBad keeps the first that was
// not the same.
var (
	viewJSONSeen atomic.Int64
	viewJSONMu   sync.Mutex
	viewJSONBad  string
)

// TestMain holds every view any test of the package builds to
// encoding/json: appendViewWire must write exactly json.Marshal's bytes.
func TestMain(m *testing.M) {
	flag.Parse()
	if flag.Lookup("test.bench").Value.String() == "" { // benchmarks measure views unchecked
		viewJSONCheck = checkViewJSON
	}
	code := m.Run()
	if viewJSONBad != "" {
		fmt.Fprintln(os.Stderr, "a view's JSON is not encoding/json's:", viewJSONBad)
		code = 1
	}
	os.Exit(code)
}

// checkViewJSON compares a view's bytes with json.Marshal's.
func checkViewJSON(w *viewWire, got []byte, err error) {
	viewJSONSeen.Add(1)
	want, wantErr := json.Marshal(w)
	if (err == nil) == (wantErr == nil) && bytes.Equal(got, want) {
		return
	}
	viewJSONMu.Lock()
	defer viewJSONMu.Unlock()
	if viewJSONBad == "" {
		viewJSONBad = fmt.Sprintf("appendViewWire:\n%s (%v)\njson.Marshal:\n%s (%v)", got, err, want, wantErr)
	}
}

// TestViewJSON builds views of every kind (a step plain and with
// problems, pre-filled, in French, a secret step, an outcome) and checks
// that TestMain's check saw them, so that a view no test builds is no
// silent gap.
func TestViewJSON(t *testing.T) {
	if viewJSONCheck == nil { // a run with -bench
		viewJSONCheck = checkViewJSON
		defer func() { viewJSONCheck = nil }()
	}
	before := viewJSONSeen.Load()
	TestFlowView(t)
	TestFlowViewInLanguage(t)
	if n := viewJSONSeen.Load() - before; n < 3 {
		t.Fatalf("only %d views built", n)
	}
	viewJSONMu.Lock()
	defer viewJSONMu.Unlock()
	if viewJSONBad != "" {
		t.Fatal(viewJSONBad)
	}
}
