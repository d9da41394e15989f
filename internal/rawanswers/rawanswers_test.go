package rawanswers

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const answers = `{"booking":{"action":"accept","content":{"seats":1.9999999999999999,"seats":3,"note":"Ada` + "\xff" + `"}}}`

// kept is raw as a wrapper of this process copies it.
func kept(raw string) string { return mark + base64.StdEncoding.EncodeToString([]byte(raw)) }

func TestMessage(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"answers, no _meta",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book","inputResponses":` + answers + ` }}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book","inputResponses":` + answers + ` ,"_meta":{"` + MetaKey + `":"` + kept(answers) + `"}}}`},
		{"answers and _meta, forged removed",
			`{"method":"tools/call","params":{"_meta":{"a":1,"` + MetaKey + `":"x","b":[2]},"inputResponses":{}},"id":7,"jsonrpc":"2.0"}`,
			`{"method":"tools/call","params":{"_meta":{"a":1,"b":[2],"` + MetaKey + `":"` + kept(`{}`) + `"},"inputResponses":{}},"id":7,"jsonrpc":"2.0"}`},
		{"forged, escaped, no answers",
			`{"method":"tools/call","params":{"_meta":{"io.mcpform\/input\u0052esponses":"x"}}}`,
			`{"method":"tools/call","params":{"_meta":{}}}`},
		{"two _meta: the last carries the copy",
			`{"method":"tools/call","params":{"_meta":{"` + MetaKey + `":"x"},"inputResponses":{"k":1},"_meta":null}}`,
			`{"method":"tools/call","params":{"_meta":{},"inputResponses":{"k":1},"_meta":{"` + MetaKey + `":"` + kept(`{"k":1}`) + `"}}}`},
		{"escaped method", `{"method":"tools\/call","params":{"inputResponses":{}}}`,
			`{"method":"tools\/call","params":{"inputResponses":{},"_meta":{"` + MetaKey + `":"` + kept(`{}`) + `"}}}`},
		{"answers twice: not copied", `{"method":"tools/call","params":{"inputResponses":{},"inputResponses":{}}}`, ""},
		{"another method", `{"method":"tools/list","params":{"inputResponses":{}}}`, ""},
		{"method twice", `{"method":"tools/call","method":"tools/list","params":{"inputResponses":{}}}`, ""},
		{"_meta not an object", `{"method":"tools/call","params":{"inputResponses":{},"_meta":[]}}`, ""},
		{"not JSON", `{"method":"tools/call","params":{"inputResponses":{}}`, ""},
		{"a batch", `[{"method":"tools/call","params":{"inputResponses":{}}}]`, ""},
		{"nothing to do", `{"method":"tools/call","params":{"name":"a\"b"}}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want == "" {
				want = tt.in
			}
			in := []byte(tt.in)
			got := Message(in)
			assert.Equal(t, want, string(got))
			if tt.want == "" {
				assert.Same(t, &in[0], &got[0], "unchanged, not copied")
			}
		})
	}
	t.Run("beyond the bound", func(t *testing.T) {
		big := []byte(`{"method":"tools/call","params":{"inputResponses":{},"pad":"` + strings.Repeat("x", MaxMessage) + `"}}`)
		assert.True(t, bytes.Equal(big, Message(big)))
	})
}

func TestLookup(t *testing.T) {
	for _, tt := range []struct {
		name, responses, key string
		want                 Response
		found                bool
	}{
		{"as sent", answers, "booking",
			Response{Action: "accept", Content: json.RawMessage(`{"seats":1.9999999999999999,"seats":3,"note":"Ada` + "\xff" + `"}`)}, true},
		{"names without regard to case", `{"k":{"Action":"decline","CONTENT":null}}`, "k", Response{Action: "decline"}, true},
		{"key twice", `{"k":{"action":"accept"},"k":{"action":"accept"}}`, "k", Response{}, true},
		{"action twice", `{"k":{"action":"decline","action":"accept"}}`, "k", Response{}, true},
		{"content twice", `{"k":{"action":"accept","content":{},"Content":{}}}`, "k", Response{Content: json.RawMessage(`{}`)}, true},
		{"action not a string", `{"k":{"action":1}}`, "k", Response{}, true},
		{"not an object", `{"k":[]}`, "k", Response{}, true},
		{"no answer", `{"k":{}}`, "other", Response{}, false},
		{"not JSON", `{"k":`, "k", Response{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, found := Lookup(kept(tt.responses), tt.key)
			require.Equal(t, tt.found, found)
			got.Raw = nil
			assert.Equal(t, tt.want, got)
		})
	}
	for name, forged := range map[string]string{
		"not base64":       mark + "%%%",
		"no mark":          base64.StdEncoding.EncodeToString([]byte(`{"k":{"action":"accept"}}`)),
		"another mark":     "AAAAAAAAAAAAAAAAAAAAAAAAAA." + base64.StdEncoding.EncodeToString([]byte(`{"k":{"action":"accept"}}`)),
		"the mark, cut":    mark[:len(mark)-2],
		"the mark, no dot": mark[:len(mark)-1] + base64.StdEncoding.EncodeToString([]byte(`{"k":{"action":"accept"}}`)),
	} {
		_, found := Lookup(forged, "k")
		assert.False(t, found, name)
	}
}

// FuzzMessage: a message rewritten decodes, with encoding/json, to the
// message sent, but for the one _meta member, which holds the bytes of
// its input responses exactly; and Message never panics.
func FuzzMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book","inputResponses":` + answers + `}}`,
		`{"method":"tools/call","params":{"_meta":{"a":1,"` + MetaKey + `":"x"},"inputResponses":{}}}`,
		`{"method":"tools/call","params":{"_meta":{"io.mcpform\/input\u0052esponses":"x"}}}`,
		`{"method":"tools/call","params":{"_meta":{},"inputResponses":{"k":1},"_meta":null}}`,
		`{"method":"tools\/call","params":{"inputResponses":{"k":{"action":"accept","content":{"a":"\ud800"}}}}}`,
		`{"method":"tools/call","params":{"inputResponses":1,"_meta":"x"}}`,
		`{"method":"tools/call","params":[]}`,
		`[{"method":"tools/call","params":{"inputResponses":{}}}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		in := bytes.Clone(msg)
		out := Message(msg)
		require.True(t, bytes.Equal(in, msg), "msg changed in place")
		if bytes.Equal(out, msg) {
			return
		}
		var sent, got map[string]any
		require.NoError(t, json.Unmarshal(msg, &sent), "only JSON is rewritten")
		require.NoError(t, json.Unmarshal(out, &got), "%s", out)
		require.Equal(t, "tools/call", sent["method"])
		sentParams := sent["params"].(map[string]any)
		gotParams := got["params"].(map[string]any)
		meta, ok := gotParams["_meta"].(map[string]any)
		require.True(t, ok, "%s", out)
		if copied, ok := meta[MetaKey]; ok {
			enc, ok := strings.CutPrefix(copied.(string), mark)
			require.True(t, ok, "the copy carries the mark")
			raw, err := base64.StdEncoding.DecodeString(enc)
			require.NoError(t, err)
			var answers any
			require.NoError(t, json.Unmarshal(raw, &answers))
			assert.True(t, reflect.DeepEqual(sentParams["inputResponses"], answers), "the copy decodes to the answers")
			assert.True(t, bytes.Contains(msg, raw), "the copy is the bytes sent")
			// Each answer read from the copy says what encoding/json
			// decodes, as go-sdk does: the core reads the copy unchecked.
			var decoded map[string]json.RawMessage
			if json.Unmarshal(raw, &decoded) == nil {
				for key, v := range decoded {
					var result struct {
						Action  string         `json:"action"`
						Content map[string]any `json:"content"`
					}
					r, found := Lookup(copied.(string), key)
					if !found {
						// A key of invalid UTF-8 decodes to another key,
						// which the copy does not hold: the core reads
						// go-sdk's value.
						assert.False(t, utf8.ValidString(key) && !strings.Contains(key, "\ufffd"), "%q not found", key)
						continue
					}
					if json.Unmarshal(v, &result) != nil || r.Action == "" {
						continue // go-sdk refuses it, or the core asks again
					}
					assert.Equal(t, result.Action, r.Action, key)
					var content map[string]any
					if r.Content != nil {
						require.NoError(t, json.Unmarshal(r.Content, &content), key)
					}
					assert.True(t, reflect.DeepEqual(result.Content, content), "%s: %v, read %v", key, result.Content, content)
				}
			}
		}
		delete(meta, MetaKey)
		if sentMeta, ok := sentParams["_meta"].(map[string]any); ok {
			delete(sentMeta, MetaKey)
		} else if len(meta) == 0 {
			gotParams["_meta"] = sentParams["_meta"] // null, or none
			if _, ok := sentParams["_meta"]; !ok {
				delete(gotParams, "_meta")
			}
		}
		assert.True(t, reflect.DeepEqual(sent, got), "sent %s\ngot  %s", msg, out)
	})
}

// BenchmarkMessage rewrites a typical retried call, and passes another
// message.
func BenchmarkMessage(b *testing.B) {
	call := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"signup","arguments":{},` +
		`"requestState":"` + strings.Repeat("A", 320) + `",` +
		`"inputResponses":{"account":{"action":"accept","content":{"email":"ada@example.com","plan":"pro","seats":3}}},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"host","version":"v1"}}}}`)
	list := []byte(`{"jsonrpc":"2.0","id":13,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	b.Run("call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Message(call)
		}
	})
	b.Run("other", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Message(list)
		}
	})
}
