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

func TestCopy(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     string // "": not a call to copy for
	}{
		{"answers", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book","inputResponses":` + answers + ` }}`, kept(answers)},
		{"answers after _meta", `{"method":"tools/call","params":{"_meta":{"a":1,"` + MetaKey + `":"x"},"inputResponses":{}},"id":7}`, kept(`{}`)},
		{"escaped method and key", `{"method":"tools\/call","params":{"input\u0052esponses":{"k":1}}}`, kept(`{"k":1}`)},
		{"no answers: the mark alone", `{"method":"tools/call","params":{"_meta":{"io.mcpform\/inputResponses":"x"}}}`, mark},
		{"answers twice: the mark alone", `{"method":"tools/call","params":{"inputResponses":{},"inputResponses":{}}}`, mark},
		{"params not an object", `{"method":"tools/call","params":["inputResponses"]}`, mark},
		{"another method", `{"method":"tools/list","params":{"inputResponses":{}}}`, ""},
		{"method twice", `{"method":"tools/call","method":"tools/list","params":{"inputResponses":{}}}`, ""},
		{"not JSON", `{"method":"tools/call","params":{"inputResponses":{}}`, ""},
		{"a batch", `[{"method":"tools/call","params":{"inputResponses":{}}}]`, ""},
		{"nothing to read", `{"method":"tools/call","params":{"name":"a"}}`, ""},
		{"beyond the bound", `{"method":"tools/call","params":{"inputResponses":{},"pad":"` + strings.Repeat("x", MaxMessage) + `"}}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Copy([]byte(tt.in))
			assert.Equal(t, tt.want != "", ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParams(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"answers, no _meta",
			`{"name":"book","inputResponses":` + answers + ` }`,
			`{"name":"book","inputResponses":` + answers + ` ,"_meta":{"` + MetaKey + `":"` + kept(answers) + `"}}`},
		{"answers and _meta, forged removed",
			`{"_meta":{"a":1,"` + MetaKey + `":"x","b":[2]},"inputResponses":{}}`,
			`{"_meta":{"a":1,"b":[2],"` + MetaKey + `":"` + kept(`{}`) + `"},"inputResponses":{}}`},
		{"forged, escaped, no answers",
			`{"_meta":{"io.mcpform\/input\u0052esponses":"x"}}`,
			`{"_meta":{}}`},
		{"two _meta: the last carries the copy",
			`{"_meta":{"` + MetaKey + `":"x"},"inputResponses":{"k":1},"_meta":null}`,
			`{"_meta":{},"inputResponses":{"k":1},"_meta":{"` + MetaKey + `":"` + kept(`{"k":1}`) + `"}}`},
		{"answers twice: not copied", `{"inputResponses":{},"inputResponses":{}}`, ""},
		{"_meta not an object", `{"inputResponses":{},"_meta":[]}`, ""},
		{"not JSON", `{"inputResponses":{}`, ""},
		{"nothing to do", `{"name":"a\"b"}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want == "" {
				want = tt.in
			}
			in := []byte(tt.in)
			got := Params(in)
			assert.Equal(t, want, string(got))
			if tt.want == "" {
				assert.Same(t, &in[0], &got[0], "unchanged, not copied")
			}
		})
	}
	t.Run("beyond the bound", func(t *testing.T) {
		big := []byte(`{"inputResponses":{},"pad":"` + strings.Repeat("x", MaxMessage) + `"}`)
		assert.True(t, bytes.Equal(big, Params(big)))
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

// FuzzMessage: for any message, Copy's copy is the bytes of its input
// responses as sent, and each answer read from it says what
// encoding/json decodes, as go-sdk does; its params rewritten by Params
// decode, with encoding/json, to the params sent, but for the one _meta
// member, which holds the same copy; and neither ever panics.
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
		copied, ok := Copy(msg)
		require.True(t, bytes.Equal(in, msg), "msg changed in place")
		if !ok {
			return
		}
		var sent map[string]any
		require.NoError(t, json.Unmarshal(msg, &sent), "only JSON is copied")
		require.Equal(t, "tools/call", sent["method"])
		sentParams, _ := sent["params"].(map[string]any)
		checkCopy(t, copied, sentParams, msg)

		var envelope struct{ Params json.RawMessage }
		require.NoError(t, json.Unmarshal(msg, &envelope))
		params := envelope.Params
		out := Params(params)
		if bytes.Equal(out, params) || sentParams == nil {
			return
		}
		var got map[string]any
		require.NoError(t, json.Unmarshal(out, &got), "%s", out)
		meta, ok := got["_meta"].(map[string]any)
		require.True(t, ok, "%s", out)
		if inMeta, ok := meta[MetaKey]; ok {
			assert.Equal(t, copied, inMeta, "the same copy in _meta as in the header")
		}
		delete(meta, MetaKey)
		if sentMeta, ok := sentParams["_meta"].(map[string]any); ok {
			delete(sentMeta, MetaKey)
		} else if len(meta) == 0 {
			got["_meta"] = sentParams["_meta"] // null, or none
			if _, ok := sentParams["_meta"]; !ok {
				delete(got, "_meta")
			}
		}
		assert.True(t, reflect.DeepEqual(sentParams, got), "sent %s\ngot  %s", params, out)
	})
}

// checkCopy checks copied, a copy of the input responses of sentParams
// as msg sent them: the mark alone, or the mark and their very bytes,
// from which each answer Lookup reads says what encoding/json decodes.
func checkCopy(t *testing.T, copied string, sentParams map[string]any, msg []byte) {
	enc, ok := strings.CutPrefix(copied, mark)
	require.True(t, ok, "the copy carries the mark")
	if enc == "" {
		return
	}
	raw, err := base64.StdEncoding.DecodeString(enc)
	require.NoError(t, err)
	var answers any
	require.NoError(t, json.Unmarshal(raw, &answers))
	assert.True(t, reflect.DeepEqual(sentParams["inputResponses"], answers), "the copy decodes to the answers")
	assert.True(t, bytes.Contains(msg, raw), "the copy is the bytes sent")
	var decoded map[string]json.RawMessage
	if json.Unmarshal(raw, &decoded) != nil {
		return
	}
	for key, v := range decoded {
		var result struct {
			Action  string         `json:"action"`
			Content map[string]any `json:"content"`
		}
		r, found := Lookup(copied, key)
		if !found {
			// A key of invalid UTF-8 decodes to another key, which the
			// copy does not hold: the core reads go-sdk's value.
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

// BenchmarkCopy copies the answers of a typical retried call, and passes
// another message.
func BenchmarkCopy(b *testing.B) {
	call := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"signup","arguments":{},` +
		`"requestState":"` + strings.Repeat("A", 320) + `",` +
		`"inputResponses":{"account":{"action":"accept","content":{"email":"ada@example.com","plan":"pro","seats":3}}},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"host","version":"v1"}}}}`)
	list := []byte(`{"jsonrpc":"2.0","id":13,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	b.Run("call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Copy(call)
		}
	})
	b.Run("other", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Copy(list)
		}
	})
}
