package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The accessibility gate: axe-core (interop/axe.mjs) judges every state
// a person can meet, in light and dark, at a phone's width, and a serious
// or critical violation fails the test. Screenshots of each state are
// kept under testdata/artifacts/a11y (ignored by git) under CI, or when
// -artifacts is set.

var artifacts = flag.Bool("artifacts", os.Getenv("CI") == "true", "keep screenshots of the accessibility gate's states under testdata/artifacts/a11y")

// axeTarget is one state for interop/axe.mjs to judge.
type axeTarget struct {
	Name    string            `json:"name"`
	URL     string            `json:"url"`
	Frame   string            `json:"frame,omitempty"`
	WaitFor string            `json:"waitFor,omitempty"`
	Post    map[string]string `json:"post,omitempty"`
}

// axeResult is what axe found in one state.
type axeResult struct {
	Name       string `json:"name"`
	Title      string `json:"title"`
	Violations []struct {
		ID     string   `json:"id"`
		Impact string   `json:"impact"`
		Help   string   `json:"help"`
		Nodes  []string `json:"nodes"`
	} `json:"violations"`
}

// runAxe judges targets in Chromium, in scheme ("light" or "dark"), and
// fails t for each serious or critical violation. It returns what axe
// found, for the test's own checks.
func runAxe(t *testing.T, scheme string, targets []axeTarget) []axeResult {
	t.Helper()
	job := map[string]any{"chromium": needChromium(t), "colorScheme": scheme, "targets": targets, "timeoutMs": 90000}
	if *artifacts {
		dir, err := filepath.Abs(filepath.Join("testdata", "artifacts", "a11y", scheme))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		job["screenshots"] = dir
	}
	in, err := json.Marshal(job)
	require.NoError(t, err)
	var report struct {
		Results []axeResult `json:"results"`
	}
	require.NoError(t, json.Unmarshal(runNode(t, "axe.mjs", in), &report))
	require.Len(t, report.Results, len(targets), "axe judged every state")
	for _, r := range report.Results {
		for _, v := range r.Violations {
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Errorf("%s (%s): %s %s: %s at %s", r.Name, scheme, v.Impact, v.ID, v.Help, strings.Join(v.Nodes, ", "))
			}
		}
	}
	return report.Results
}

// TestSecretPageAxe judges every state of the secret page: empty,
// with a problem, done, a used link reopened, a finished flow's link,
// refused, and a bad link.
func TestSecretPageAxe(t *testing.T) {
	needNode(t)
	fx := newSecretFixture(t, nil)
	refused := newSecretFixture(t, &SecretPageOptions{Authorize: func(*http.Request, string) error {
		return errors.New("not this person")
	}})
	link := func(fx *secretFixture) string {
		r, err := fx.flow.Next(context.Background(), secretCall("", nil))
		require.NoError(t, err)
		return pageLink(t, r)
	}
	// A link whose flow took the secret, sent from another browser.
	finished := func() string {
		r, err := fx.flow.Next(context.Background(), secretCall("", nil))
		require.NoError(t, err)
		l := pageLink(t, r)
		require.Equal(t, http.StatusOK, send(t, l, "correct horse battery"))
		done, err := fx.flow.Next(context.Background(), secretCall(r.Result.RequestState, alicesAnswer))
		require.NoError(t, err)
		require.Equal(t, FlowDone, done.Status)
		return l
	}
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			done := link(fx)
			results := runAxe(t, scheme, []axeTarget{
				{Name: "page-empty", URL: link(fx), WaitFor: "form"},
				{Name: "page-problem", URL: link(fx), Post: map[string]string{"password": "short"}},
				{Name: "page-done", URL: done, Post: map[string]string{"password": "correct horse battery"}},
				{Name: "page-used", URL: done},
				{Name: "page-finished", URL: finished()},
				{Name: "page-refused", URL: link(refused)},
				{Name: "page-bad-link", URL: fx.page.URL + "/secret?t=v1.bad.link"},
			})
			for _, r := range results {
				assert.NotEmpty(t, r.Title, "%s has a title", r.Name)
			}
		})
	}
}

// TestViewerOutcomeAxe judges the outcome a viewer shows for a final
// result that is no view (issue 35, item 2), done and not completed, in
// a language of the host's.
func TestViewerOutcomeAxe(t *testing.T) {
	needNode(t)
	text := func(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }
	done, _ := serveViewer(t, &mcp.CallToolResult{Content: text("Signup complete: created ada@example.com on the Pro plan.")}, false)
	notDone, _ := serveViewer(t, &mcp.CallToolResult{Content: text("Signup not completed: you declined. Nothing was created."),
		StructuredContent: map[string]any{"status": "declined"}}, false)
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			runAxe(t, scheme, []axeTarget{
				{Name: "viewer-outcome-done", URL: done.URL + "/", Frame: "#view", WaitFor: "." + prefab.OutcomePanelClass},
				{Name: "viewer-outcome-not-done", URL: notDone.URL + "/?locale=de-DE", Frame: "#view", WaitFor: "." + prefab.OutcomePanelClass},
			})
		})
	}
}
