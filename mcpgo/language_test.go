package mcpgo_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
)

// TestContentLanguage: ContentLanguage marks a result as mcpform's go-sdk
// face marks one, copying its _meta, and leaves alone what needs no mark.
func TestContentLanguage(t *testing.T) {
	const key = "io.modelcontextprotocol/contentLanguage"
	for _, tt := range []struct {
		name string
		meta *mcp.Meta
		lang language.Tag
		want *mcp.Meta
	}{
		{"Spanish", nil, language.Spanish, &mcp.Meta{AdditionalFields: map[string]any{key: "es"}}},
		{"beside other _meta", &mcp.Meta{ProgressToken: "p", AdditionalFields: map[string]any{"x": 1}}, language.Japanese,
			&mcp.Meta{ProgressToken: "p", AdditionalFields: map[string]any{"x": 1, key: "ja"}}},
		{"English is assumed", nil, language.BritishEnglish, nil},
		{"the zero Tag", nil, language.Tag{}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := &mcp.CallToolResult{Result: mcp.Result{Meta: tt.meta}}
			var before map[string]any
			if tt.meta != nil {
				before = map[string]any{}
				for k, v := range tt.meta.AdditionalFields {
					before[k] = v
				}
			}
			mcpgo.ContentLanguage(res, tt.lang)
			assert.Equal(t, tt.want, res.Meta)
			if tt.meta != nil {
				assert.Equal(t, before, tt.meta.AdditionalFields, "the result's own _meta map is not edited")
			}
		})
	}
	mcpgo.ContentLanguage(nil, language.Spanish) // no panic
}

// TestFlowRoundLanguage: a round says the language its flow speaks, as
// go-sdk's face does, pinned from the first call.
func TestFlowRoundLanguage(t *testing.T) {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{{Key: "plan", Fields: []mcpform.AutoFormField{{Name: "plan", Required: true}}}},
		&mcpform.FlowOptions{ContextPrincipal: func(context.Context) string { return "alice" }})
	require.NoError(t, err)
	ctx := context.Background()
	first := modernCall("", "", nil)
	first.Params.Meta.AdditionalFields["io.modelcontextprotocol/acceptLanguage"] = "fr-CA, en;q=0.5"
	r, err := mcpgo.Next(ctx, flow, first)
	require.NoError(t, err)
	assert.Equal(t, language.French, r.Language)
	r, err = mcpgo.Next(ctx, flow, modernCall(r.Result.RequestState, "plan", map[string]any{"plan": "pro"}))
	require.NoError(t, err)
	require.Equal(t, mcpform.FlowDone, r.Status)
	assert.Equal(t, language.French, r.Language, "pinned in the state")
}

// TestSecretReaskNotes: a secret's URL-mode request asked again, while
// its page waits, notes the waiting field for machines, as go-sdk's face
// does.
func TestSecretReaskNotes(t *testing.T) {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{{Key: "password", Fields: []mcpform.AutoFormField{
		{Name: "email", Type: mcpform.TypeEmail, Required: true},
		{Name: "password", Label: "New password", Type: mcpform.TypePassword, Required: true},
	}}}, &mcpform.FlowOptions{
		ContextPrincipal: func(context.Context) string { return "alice" },
		Secrets:          &mcpform.SecretOptions{PageURL: "https://example.com/secret", Store: mcpform.NewMemorySecretStore()},
	})
	require.NoError(t, err)
	caps := map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}}
	callWith := func(state string, responses mcp.InputResponses) mcp.CallToolRequest {
		var req mcp.CallToolRequest
		req.Params.Name, req.Params.RequestState, req.Params.InputResponses = "set_password", state, responses
		req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: caps}}
		req.Header = http.Header{}
		return req
	}
	ctx := context.Background()
	r, err := mcpgo.Next(ctx, flow, callWith("", nil))
	require.NoError(t, err)
	assert.Nil(t, r.Result.InputRequests["password.secret"].Elicitation.Meta, "a first ask names no problem")
	accept := func(content map[string]any) mcp.InputResponse {
		return mcp.NewElicitationInputResponse(mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
			Action: mcp.ElicitationResponseActionAccept, Content: content}})
	}
	r, err = mcpgo.Next(ctx, flow, callWith(r.Result.RequestState, mcp.InputResponses{
		"password": accept(map[string]any{"email": "ada@example.com"}), "password.secret": accept(nil)}))
	require.NoError(t, err)
	require.Equal(t, mcpform.FlowAsk, r.Status)
	meta := r.Result.InputRequests["password.secret"].Elicitation.Meta
	require.NotNil(t, meta, "the waiting page is noted")
	wire, err := json.Marshal(meta.AdditionalFields["io.github.mcpform/problems"])
	require.NoError(t, err)
	var notes []struct{ Field string }
	require.NoError(t, json.Unmarshal(wire, &notes), "%s", wire)
	require.Len(t, notes, 1, "%s", wire)
	assert.Equal(t, "password", notes[0].Field)
}

// TestAuthorLanguage: on mcp-go's face too, a flow whose author writes in
// German (FlowOptions.Language) marks the words Translate left as they
// are German in a view in English, the submit that commits among them,
// and marks nothing in a view in German.
func TestAuthorLanguage(t *testing.T) {
	require.NoError(t, mcpgo.AddViewer(server.NewMCPServer("v", "v0"), nil))
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{{Key: "account", Message: "Konto anlegen", Fields: []mcpform.AutoFormField{
		{Name: "email", Label: "E-Mail", Type: mcpform.TypeEmail, Required: true},
		{Name: "full_name", Label: "Name", Description: "Wie wir Sie begrüßen."},
	}}}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true, Language: language.German, Commit: "Anlegen",
		Translate: func(lang language.Tag, s string) string {
			return map[string]string{"E-Mail": "Email"}[s] // English only; never asked for German
		}})
	require.NoError(t, err)
	for _, tt := range []struct {
		accept string
		want   []string
	}{
		{"", []string{`"cssClass":"mcpform-part-in-de","content":"Konto anlegen"`, `"label":"Email"`,
			`"cssClass":"mcpform-part-label-0-4-de"`, `"cssClass":"mcpform-part-in-de","content":"Wie wir Sie begrüßen."`,
			`{"type":"Button","cssClass":"mcpform-part-in-de","label":"Anlegen","size":"default","submit":true}`}},
		{"de-DE", []string{`"content":"Konto anlegen"`, `"label":"E-Mail"`, `"content":"Wie wir Sie begrüßen."`,
			`{"type":"Button","label":"Anlegen","size":"default","submit":true}`}},
	} {
		t.Run(tt.accept, func(t *testing.T) {
			var req mcp.CallToolRequest
			req.Params.Name = "signup"
			req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{
				"extensions": map[string]any{mcpform.AppsExtension: map[string]any{"mimeTypes": []any{mcpform.AppMIMEType}}}}}}
			if tt.accept != "" {
				req.Params.Meta.AdditionalFields["io.modelcontextprotocol/acceptLanguage"] = tt.accept
			}
			r, err := mcpgo.Next(context.Background(), flow, req)
			require.NoError(t, err)
			require.Equal(t, mcpform.FlowAsk, r.Status)
			b, err := json.Marshal(r.Result.StructuredContent)
			require.NoError(t, err)
			for _, w := range tt.want {
				assert.Contains(t, string(b), w)
			}
			if tt.accept != "" {
				assert.NotContains(t, string(b), "mcpform-part-", "German is the author's language")
			}
		})
	}
}
