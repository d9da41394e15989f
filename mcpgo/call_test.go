package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/canonjson"
	"github.com/mcpform/mcpform/mcpgo"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzMcpgoRead: inputResponses as mcp-go's transport hands them over,
// as JSON, read through the mcp-go face: never a panic, and when they hold
// an elicitation result whose content is an object, exactly what
// Form.Read makes of the same answer on go-sdk's face, unless the bytes
// say something go-sdk's decoding loses: mcp-go's face reads them as
// written (issue 32), so a value that says two things is asked again,
// and a number float64 rounds is judged as sent.
func FuzzMcpgoRead(f *testing.F) {
	form := bookingForm(f)
	for _, seed := range []string{
		`{"booking":{"action":"accept","content":{"day":"2026-08-03","seats":3,"room":"a","note":"x"}}}`,
		`{"booking":{"action":"accept","content":{"day":"2026-02-30","seats":3.5,"room":"c"}}}`,
		`{"booking":{"action":"decline"}}`,
		`{"booking":{"action":"maybe","content":{}}}`,
		`{"booking":{"action":"accept","content":[1,2]}}`,
		`{"booking":{"action":"accept","content":"x"}}`,
		`{"booking":"junk","other":{"action":"accept"}}`,
		`{"booking":{"action":"accept","content":{"seats":1e400}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var responses mcp.InputResponses
		if json.Unmarshal(data, &responses) != nil {
			return
		}
		var req mcp.CallToolRequest
		req.Params.InputResponses = responses
		got := mcpgo.Read(form, req)

		// go-sdk's transport decodes the same bytes into its own type.
		var raw map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(data, &raw))
		var r gosdk.ElicitResult
		if json.Unmarshal(raw["booking"], &r) != nil {
			return // go-sdk would refuse the request before the handler
		}
		want := form.Read(gosdk.InputResponseMap{"booking": &r})
		if raw["booking"] == nil {
			want = mcpform.Reply[booking]{}
		}
		if !decodedAsWritten(raw["booking"]) {
			if got.Status == mcpform.ReplyAccepted {
				require.True(t, decodedAsWritten(mustJSON(t, got.Answers)), "accepted %v from %q", got.Answers, data)
			}
			return
		}
		assert.Equal(t, want.Status, got.Status)
		assert.Equal(t, want.Answers, got.Answers)
		assert.Equal(t, want.Value, got.Value)
		assert.Equal(t, len(want.Problems), len(got.Problems))
	})
}

// TestModes: where the face reads the client's elicitation modes.
func TestModes(t *testing.T) {
	form := bookingForm(t)
	for _, tt := range []struct {
		name string
		meta *mcp.Meta
		ok   bool
	}{
		{"form", &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}}, true},
		{"modeless elicitation means form", &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}}}}, true},
		{"url only", &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}}}, false},
		{"none", &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{"sampling": map[string]any{}}}}, false},
		{"typed", func() *mcp.Meta {
			m := &mcp.Meta{}
			m.SetClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}}})
			return m
		}(), true},
		{"legacy: no _meta, so the bridge decides", nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var req mcp.CallToolRequest
			req.Params.Meta = tt.meta
			_, err := mcpgo.Ask(context.Background(), form, req, "")
			assert.Equal(t, tt.ok, err == nil, "%v", err)
		})
	}
}

// TestArgumentsBound: a state minted for some arguments is refused with
// others, whether mcp-go kept the raw bytes or only the decoded map.
func TestArgumentsBound(t *testing.T) {
	flow := signupFlow(t)
	ctx := context.WithValue(context.Background(), principalKey{}, "alice")
	req := mcpgoCall("", nil)
	req.Params.Arguments = map[string]any{"team": "a", "n": 1.0}
	r, err := mcpgo.Next(ctx, flow, req)
	require.NoError(t, err)
	for _, tt := range []struct {
		name string
		raw  string
		args any
		ok   bool
	}{
		{"same, decoded", "", map[string]any{"n": 1.0, "team": "a"}, true},
		{"same, raw, spelled otherwise", `{"n": 1.0, "team": "a"}`, nil, true},
		{"other", "", map[string]any{"team": "b", "n": 1.0}, false},
		{"other, raw", `{"team":"b"}`, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			next := mcpgoCall(r.Result.RequestState, nil)
			next.Params.Arguments, next.Params.RawArguments = tt.args, json.RawMessage(tt.raw)
			_, err := mcpgo.Next(ctx, flow, next)
			assert.Equal(t, tt.ok, err == nil, "%v", err)
			if !tt.ok {
				assert.ErrorIs(t, err, mcp.ErrInvalidParams)
			}
		})
	}
}

// TestArgumentsSayTwoThings (issue 32, item 7): on mcp-go's face too,
// arguments that a first-wins reader reads differently from encoding/json
// are never bound: a state bound to {"amount":10} does not verify on
// {"amount":1000000,"amount":10}, and the call fails with -32602, on the
// wire as in a handler.
func TestArgumentsSayTwoThings(t *testing.T) {
	flow := signupFlow(t)
	ctx := context.WithValue(context.Background(), principalKey{}, "alice")
	first := mcpgoCall("", nil)
	first.Params.RawArguments = json.RawMessage(`{"amount":10}`)
	r, err := mcpgo.Next(ctx, flow, first)
	require.NoError(t, err)
	for _, tt := range []struct {
		raw   string
		cause error
	}{
		{`{"amount":1000000,"amount":10}`, canonjson.ErrDuplicateKey},
		{`{"amount":10,"\u0061mount":10}`, canonjson.ErrDuplicateKey},
		{`{"amount":10,"memo":"\ud800"}`, canonjson.ErrLoneSurrogate},
		{"{\"amount\":10,\"memo\":\"\xff\"}", canonjson.ErrInvalidUTF8},
	} {
		t.Run(tt.raw, func(t *testing.T) {
			for _, state := range []string{"", r.Result.RequestState} {
				next := mcpgoCall(state, nil)
				next.Params.RawArguments = json.RawMessage(tt.raw)
				_, err := mcpgo.Next(ctx, flow, next)
				assert.ErrorIs(t, err, mcp.ErrInvalidParams)
				assert.ErrorIs(t, err, tt.cause)
			}
		})
	}
	t.Run("wire", func(t *testing.T) {
		c := connect(t, newSignupServer(t, flow).MCPServer, &person{})
		resp, err := c.GetTransport().SendRequest(context.Background(), transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(9)), Method: string(mcp.MethodToolsCall),
			Params: map[string]any{"name": "signup", "arguments": json.RawMessage(`{"amount":1000000,"amount":10}`)}})
		require.NoError(t, err)
		require.NotNil(t, resp.Error)
		assert.Equal(t, mcp.INVALID_PARAMS, resp.Error.Code)
		assert.Contains(t, resp.Error.Message, canonjson.ErrDuplicateKey.Error())
	})
}

// wireResponses are input responses as mcp-go's transport hands them
// over: decoded from the bytes data, which it keeps.
func wireResponses(t *testing.T, data string) mcp.InputResponses {
	t.Helper()
	var responses mcp.InputResponses
	require.NoError(t, json.Unmarshal([]byte(data), &responses))
	return responses
}

// TestNativeAnswerAsWritten (issues 32, items 1 and 7): mcp-go keeps a
// native answer's bytes, and the face reads them as written: a number
// float64 would round is judged as sent, not as the number it rounds to,
// and a value with invalid UTF-8, a lone surrogate escape or a key given
// twice is asked again, naming its field, never kept with U+FFFD or the
// last of two values.
func TestNativeAnswerAsWritten(t *testing.T) {
	form := bookingForm(t)
	const unreadable, twice = "characters that could not be read", "given more than once"
	answer := func(content string) string {
		return `{"booking":{"action":"accept","content":{"day":"2026-08-03","room":"a",` + content + `}}}`
	}
	for _, tt := range []struct {
		name, data, field, reason string
	}{
		{"rounds to a whole number", answer(`"seats":1.9999999999999999`), "seats", ""},
		{"rounds into the bounds", answer(`"seats":8.0000000000000001`), "seats", ""},
		{"invalid UTF-8", answer("\"seats\":3,\"note\":\"Ada\xf0\x9f\x98Lovelace\""), "note", unreadable},
		{"raw 0xFF", answer("\"seats\":3,\"note\":\"\xff\""), "note", unreadable},
		{"lone surrogate", answer(`"seats":3,"note":"\udbff"`), "note", unreadable},
		{"key twice", answer(`"seats":3,"seats":5`), "seats", twice},
		{"U+FFFD, as go-sdk's face sees the bytes above", answer(`"seats":3,"note":"Ada \ufffd"`), "note", unreadable},
		{"action twice", `{"booking":{"action":"decline","action":"accept","content":{"day":"2026-08-03","room":"a","seats":3}}}`, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var req mcp.CallToolRequest
			req.Params.InputResponses = wireResponses(t, tt.data)
			r := mcpgo.Read(form, req)
			require.Equal(t, mcpform.ReplyInvalid, r.Status, "%+v", r)
			require.Len(t, r.Problems, 1)
			assert.Equal(t, tt.field, r.Problems[0].Field)
			assert.ErrorIs(t, r.Problems[0], mcpform.ErrInvalidValue)
			assert.Contains(t, r.Problems[0].Error(), tt.reason)
		})
	}
	t.Run("as written, accepted", func(t *testing.T) {
		var req mcp.CallToolRequest
		req.Params.InputResponses = wireResponses(t, answer(`"seats":3.0,"note":"Ada \u00e9\ud83d\ude00"`))
		r := mcpgo.Read(form, req)
		require.Equal(t, mcpform.ReplyAccepted, r.Status, "%+v", r.Problems)
		assert.Equal(t, 3, r.Value.Seats)
		assert.Equal(t, "Ada é😀", *r.Value.Note)
	})
	t.Run("flow", func(t *testing.T) {
		flow := signupFlow(t)
		ctx := context.WithValue(context.Background(), principalKey{}, "alice")
		r, err := mcpgo.Next(ctx, flow, mcpgoCall("", nil))
		require.NoError(t, err)
		next := mcpgoCall(r.Result.RequestState, wireResponses(t, "{\"account\":{\"action\":\"accept\",\"content\":{\"email\":\"ada\xff@example.com\",\"plan\":\"pro\"}}}"))
		r, err = mcpgo.Next(ctx, flow, next)
		require.NoError(t, err)
		require.Equal(t, mcpform.FlowAsk, r.Status)
		require.Len(t, r.Problems, 1)
		assert.Equal(t, "email", r.Problems[0].Field)
		assert.Contains(t, r.Problems[0].Error(), unreadable)
	})
}

// decodedAsWritten reports whether encoding/json's decoding of raw keeps
// all it says: no key twice, no text that is not Unicode (see
// canonjson.Check), and every number one float64 holds exactly.
func decodedAsWritten(raw []byte) bool {
	if canonjson.Check(raw) != nil {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return true
		}
		if n, ok := tok.(json.Number); ok {
			f, err := strconv.ParseFloat(string(n), 64)
			if err != nil || canonjson.Number(string(n)) != canonjson.Number(strconv.FormatFloat(f, 'g', -1, 64)) {
				return false
			}
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
