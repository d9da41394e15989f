package mcpform

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// The benchmarks of building what a person reads, in English and in
// Spanish: the secret page, a re-ask that names problems, and a view
// that does. They use nothing newer than the catalogs, so the same file
// runs against a build from before them, where "es" is English: compare
// the two in one interleaved run (see the report of issue 23's item 4).

// benchLangs are the Accept-Language values of the sub-benchmarks.
var benchLangs = []struct{ name, accept string }{{"en", ""}, {"es", "es-ES,es;q=0.9"}}

// withLang is meta with the acceptLanguage _meta of SEP-2792.
func withLang(meta mcp.Meta, accept string) mcp.Meta {
	meta = maps.Clone(meta)
	if accept != "" {
		meta["io.modelcontextprotocol/acceptLanguage"] = accept
	}
	return meta
}

// BenchmarkLanguagePage builds the secret page's form, as a browser
// opening the link is shown it.
func BenchmarkLanguagePage(b *testing.B) {
	for _, bl := range benchLangs {
		b.Run(bl.name, func(b *testing.B) {
			_, codec, _ := newFlowFixture(b)
			flow, err := NewFlow(codec, []Step{passwordStep}, &FlowOptions{Principal: tokenUser,
				Secrets: &SecretOptions{PageURL: "https://example.com/secret", Store: NewMemorySecretStore()}})
			require.NoError(b, err)
			r, err := flow.Next(context.Background(), secretCall("", nil))
			require.NoError(b, err)
			link := r.Result.InputRequests["password.secret"].(*mcp.ElicitParams).URL
			page, err := flow.SecretPage(&SecretPageOptions{AnyoneWithTheLink: true})
			require.NoError(b, err)
			req := httptest.NewRequest(http.MethodGet, link, nil)
			if bl.accept != "" {
				req.Header.Set("Accept-Language", bl.accept)
			}
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				page.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatal(w.Code)
				}
			}
		})
	}
}

// BenchmarkLanguageReask is a round that asks a step again, naming its
// problems, natively: the language was pinned by the first round.
func BenchmarkLanguageReask(b *testing.B) {
	for _, bl := range benchLangs {
		b.Run(bl.name, func(b *testing.B) {
			flow, _, _ := newFlowFixture(b)
			first := call("signup", "", nil)
			first.Params.Meta = withLang(first.Params.Meta, bl.accept)
			r, err := flow.Next(context.Background(), first)
			require.NoError(b, err)
			req := call("signup", r.Result.RequestState, map[string]any{
				"account": map[string]any{"email": "nope", "plan": "gold"}})
			b.ReportAllocs()
			for b.Loop() {
				r, err := flow.Next(context.Background(), req)
				if err != nil || r.Status != FlowAsk || len(r.Problems) != 2 {
					b.Fatal(err, r.Status)
				}
			}
		})
	}
}

// BenchmarkLanguageView is a round that asks a step again in an MCP Apps
// view, naming its problems.
func BenchmarkLanguageView(b *testing.B) {
	for _, bl := range benchLangs {
		b.Run(bl.name, func(b *testing.B) {
			flow, _, _ := newFlowFixture(b)
			r, err := flow.Next(context.Background(), argsCall(b, withLang(appsMeta(), bl.accept), "alice", "signup", nil))
			require.NoError(b, err)
			req := argsCall(b, appsMeta(), "alice", "signup", map[string]any{StateArgument: carried(b, r),
				"email": "nope", "plan": "gold"})
			b.ReportAllocs()
			for b.Loop() {
				r, err := flow.Next(context.Background(), req)
				if err != nil || r.Status != FlowAsk || len(r.Problems) == 0 {
					b.Fatal(err, r.Status)
				}
			}
		})
	}
}
