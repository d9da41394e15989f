package mcpform

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// displayOpts sets every option, so the goldens and the TypeScript
// cross-check cover each one.
func displayOpts(name string) *DisplayFormOptions {
	return &DisplayFormOptions{
		Title: "Tell us about " + name, Subtitle: "It takes a minute.", SubmitLabel: "Send",
		SuccessMessage: "Thanks!", ErrorMessage: "That did not work.",
	}
}

// wireOf returns a UI result's structured content, after checking that the
// text block carries the same JSON.
func wireOf(t *testing.T, res *mcp.CallToolResult) json.RawMessage {
	t.Helper()
	require.Len(t, res.Content, 1)
	text, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "Content[0] is %T, want *mcp.TextContent", res.Content[0])
	raw, ok := res.StructuredContent.(json.RawMessage)
	require.True(t, ok, "StructuredContent is %T", res.StructuredContent)
	assert.JSONEq(t, string(raw), text.Text, "the text block and the structured content differ")
	return raw
}

func TestDisplayFormGolden(t *testing.T) {
	for name, fields := range loadForms(t) {
		t.Run(name, func(t *testing.T) {
			res, err := DisplayForm(fields, name, displayOpts(name))
			require.NoError(t, err)
			checkGolden(t, filepath.Join("testdata", "forms", name+".display.golden"), marshalIndent(t, wireOf(t, res)))

			opts := displayOpts(name)
			opts.Elicit = &InputRequestOptions{RequestState: "opaque-state"}
			res, err = DisplayForm(fields, name, opts)
			require.NoError(t, err)
			checkGolden(t, filepath.Join("testdata", "forms", name+".elicit.golden"), marshalIndent(t, res))
		})
	}
}

// findNode returns the first node of type typ in a decoded component tree.
func findNode(tree any, typ string) map[string]any {
	n, ok := tree.(map[string]any)
	if !ok {
		return nil
	}
	if n["type"] == typ {
		return n
	}
	children, _ := n["children"].([]any)
	for _, c := range children {
		if found := findNode(c, typ); found != nil {
			return found
		}
	}
	if v, ok := n["view"]; ok {
		return findNode(v, typ)
	}
	return nil
}

func isBooleanField(f AutoFormField) bool {
	return (f.Type == "checkbox" || f.Type == "boolean") && len(f.Options) == 0
}

// TestDisplayFormMatchesTypeScript renders every golden field list with the
// pinned TypeScript display_form and compares the results, key for key.
//
// The UI path is compared after undoing exactly the three documented
// differences, each checked against what it should be before it is undone:
// the submit action's arguments, the Checkbox of a boolean field, and the
// label of an unlabeled field. The native path is compared exactly, after
// removing what is not the helpers' to decide (resultType, which go-sdk
// writes as it sends a result, and the null content go-sdk marshals) and
// the documented default key; non-ASCII unlabeled titles differ as they do
// in TestFormSchemaMatchesTypeScript.
func TestDisplayFormMatchesTypeScript(t *testing.T) {
	forms := loadForms(t)
	names := slices.Sorted(maps.Keys(forms))
	tsOpts := func(name string) map[string]any {
		o := displayOpts(name)
		return map[string]any{"title": o.Title, "subtitle": o.Subtitle, "submitLabel": o.SubmitLabel,
			"successMessage": o.SuccessMessage, "errorMessage": o.ErrorMessage}
	}
	type variant struct {
		name string
		ts   func(name string) map[string]any
		opts func(name string) *DisplayFormOptions
	}
	variants := []variant{
		{"ui", tsOpts, displayOpts},
		{"ui-defaults", func(string) map[string]any { return map[string]any{} }, func(string) *DisplayFormOptions { return nil }},
		{"elicit-defaults",
			func(name string) map[string]any {
				return map[string]any{"title": "Ask " + name, "elicit": map[string]any{"requestState": "s"}}
			},
			func(name string) *DisplayFormOptions {
				return &DisplayFormOptions{Title: "Ask " + name, Elicit: &InputRequestOptions{RequestState: "s"}}
			}},
		{"elicit-explicit",
			func(name string) map[string]any {
				return map[string]any{"title": "Ask", "elicit": map[string]any{"key": "k", "message": "M", "requestState": "s"}}
			},
			func(name string) *DisplayFormOptions {
				return &DisplayFormOptions{Title: "Ask", Elicit: &InputRequestOptions{Key: "k", Message: "M", RequestState: "s"}}
			}},
	}
	var calls []map[string]any
	for _, name := range names {
		for _, v := range variants {
			calls = append(calls, map[string]any{"fn": "display_form", "args": []any{forms[name], name, v.ts(name)}})
		}
	}
	ts := callPrefab(t, calls)
	for i, name := range names {
		fields := forms[name]
		schema, err := FormSchema(fields)
		require.NoError(t, err)
		for j, v := range variants {
			t.Run(name+"/"+v.name, func(t *testing.T) {
				tsRes := ts[i*len(variants)+j]
				require.Empty(t, tsRes.Error)
				res, err := DisplayForm(fields, name, v.opts(name))
				require.NoError(t, err)
				var want, got map[string]any
				require.NoError(t, json.Unmarshal(tsRes.Result, &want))
				require.NoError(t, json.Unmarshal(marshalIndent(t, res), &got))
				if strings.HasPrefix(v.name, "elicit") {
					undoElicitDifferences(t, want, got, fields, name, v.name == "elicit-defaults")
				} else {
					// Each side's text block is its structured content;
					// then compare the structured content.
					for _, r := range []map[string]any{want, got} {
						var text any
						require.NoError(t, json.Unmarshal([]byte(r["content"].([]any)[0].(map[string]any)["text"].(string)), &text))
						assert.Equal(t, r["structuredContent"], text)
						r["content"] = nil
					}
					undoUIDifferences(t, want, got, fields, schema.Properties)
				}
				assert.Equal(t, want, got)
			})
		}
	}
}

// undoElicitDifferences removes from the TypeScript result want, and from
// ours, got, what the native path documents as different.
func undoElicitDifferences(t *testing.T, want, got map[string]any, fields []AutoFormField, submitTool string, defaultKey bool) {
	t.Helper()
	assert.Equal(t, "input_required", want["resultType"])
	delete(want, "resultType")
	require.Contains(t, got, "content")
	assert.Nil(t, got["content"])
	delete(got, "content")
	reqs := got["inputRequests"].(map[string]any)
	if defaultKey {
		// The deliberate difference: our key defaults to the submit
		// tool, TypeScript's to "form".
		require.Contains(t, reqs, submitTool)
		require.Contains(t, want["inputRequests"], "form")
		reqs["form"] = reqs[submitTool]
		delete(reqs, submitTool)
	}
	for _, f := range fields {
		if f.Label != "" || isASCII(f.Name) {
			continue
		}
		for key, r := range want["inputRequests"].(map[string]any) {
			prop := func(m map[string]any) map[string]any {
				return m["params"].(map[string]any)["requestedSchema"].(map[string]any)["properties"].(map[string]any)[f.Name].(map[string]any)
			}
			prop(r.(map[string]any))["title"] = prop(reqs[key].(map[string]any))["title"]
		}
	}
}

// undoUIDifferences turns our tree, got, into what TypeScript emits, want,
// by undoing the three documented differences, each checked first.
func undoUIDifferences(t *testing.T, want, got map[string]any, fields []AutoFormField, props map[string]*jsonschema.Schema) {
	t.Helper()
	wantForm, gotForm := findNode(want["structuredContent"], "Form"), findNode(got["structuredContent"], "Form")
	require.NotNil(t, wantForm)
	require.NotNil(t, gotForm)

	// 1. The submit action carries one template per field.
	onSubmit := gotForm["onSubmit"].(map[string]any)
	wantArgs := map[string]any{}
	for _, f := range fields {
		wantArgs[f.Name] = "{{ " + f.Name + " }}"
		if isBooleanField(f) {
			wantArgs[f.Name] = "{{ 'on' == " + f.Name + " }}"
		}
	}
	assert.Equal(t, wantArgs, onSubmit["arguments"])
	assert.NotContains(t, wantForm["onSubmit"], "arguments", "TypeScript now sends arguments; revisit difference 1")
	delete(onSubmit, "arguments")

	wantControls := findNode(wantForm, "Column")["children"].([]any)
	gotControls := findNode(gotForm, "Column")["children"].([]any)
	require.Len(t, wantControls, len(fields)+1)
	require.Len(t, gotControls, len(fields)+1)
	for i, f := range fields {
		w, g := wantControls[i].(map[string]any), gotControls[i].(map[string]any)
		title := props[f.Name].Title
		// 3. An unlabeled field is labelled with its schema title.
		assert.Equal(t, title, g["label"], "label of %q", f.Name)
		if f.Label == "" {
			if w["label"] != title {
				t.Logf("%s: TypeScript label %q, ours %q", f.Name, w["label"], title)
			}
			w["label"] = title
		}
		// 2. A boolean field is a Checkbox, where TypeScript has an
		// Input of type checkbox.
		if isBooleanField(f) {
			assert.Equal(t, "Input", w["type"])
			assert.Equal(t, string(f.Type), w["inputType"])
			wantCheckbox := map[string]any{"type": "Checkbox", "name": f.Name, "label": title}
			if f.Required {
				wantCheckbox["required"] = true
			}
			if b, ok := f.Default.(bool); ok {
				wantCheckbox["checked"] = b
			}
			assert.Equal(t, wantCheckbox, g, "control of %q", f.Name)
			gotControls[i] = w
		}
	}
}

func TestDisplayFormDefaults(t *testing.T) {
	fields := []AutoFormField{{Name: "email", Type: TypeEmail}, {Name: "agree", Type: TypeCheckbox, Required: true, Default: true}}
	for _, opts := range []*DisplayFormOptions{nil, {}} {
		res, err := DisplayForm(fields, "signup", opts)
		require.NoError(t, err)
		assert.Empty(t, res.InputRequests)
		assert.False(t, res.IsError)
		var wire map[string]any
		require.NoError(t, json.Unmarshal(wireOf(t, res), &wire))
		assert.Equal(t, map[string]any{"version": "0.3"}, wire["$prefab"])
		assert.Nil(t, findNode(wire, "Heading"), "no title, no heading")
		assert.Nil(t, findNode(wire, "Muted"), "no subtitle, no line under it")
		assert.Equal(t, map[string]any{
			"action": "toolCall", "tool": "signup",
			"arguments": map[string]any{"email": "{{ email }}", "agree": "{{ 'on' == agree }}"},
			"onSuccess": map[string]any{"action": "showToast", "message": "Success!", "variant": "success"},
			"onError":   map[string]any{"action": "showToast", "message": "Something went wrong", "variant": "error"},
		}, findNode(wire, "Form")["onSubmit"])
		assert.Equal(t, "Submit", findNode(wire, "Button")["label"])
		assert.Equal(t, map[string]any{"type": "Checkbox", "name": "agree", "label": "Agree", "required": true, "checked": true},
			findNode(wire, "Checkbox"))
	}

	// The text block keeps "<" and "&" as JSON.stringify does.
	res, err := DisplayForm([]AutoFormField{{Name: "q", Label: "Tom & <Jerry>"}}, "t", nil)
	require.NoError(t, err)
	assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, `"label":"Tom & <Jerry>"`)
}

func TestDisplayFormElicit(t *testing.T) {
	fields := []AutoFormField{{Name: "email", Type: TypeEmail, Required: true}}
	tests := []struct {
		name             string
		submitTool       string
		opts             *DisplayFormOptions
		wantKey, wantMsg string
	}{
		{"key is the tool, message the title", "signup", &DisplayFormOptions{Title: "Sign up", Elicit: &InputRequestOptions{}}, "signup", "Sign up"},
		{"no title", "signup", &DisplayFormOptions{Elicit: &InputRequestOptions{}}, "signup", DefaultInputMessage},
		{"explicit key and message win", "signup", &DisplayFormOptions{Title: "T", Elicit: &InputRequestOptions{Key: "k", Message: "M"}}, "k", "M"},
		{"no tool", "", &DisplayFormOptions{Elicit: &InputRequestOptions{}}, DefaultInputKey, DefaultInputMessage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := DisplayForm(fields, tt.submitTool, tt.opts)
			require.NoError(t, err)
			assert.Empty(t, res.Content)
			assert.Nil(t, res.StructuredContent)
			require.Len(t, res.InputRequests, 1)
			p, ok := res.InputRequests[tt.wantKey].(*mcp.ElicitParams)
			require.True(t, ok, "no request under %q: %#v", tt.wantKey, res.InputRequests)
			assert.Equal(t, tt.wantMsg, p.Message)
			// The answer is read under the key DisplayForm chose.
			responses := mcp.InputResponseMap{tt.wantKey: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"email": "ada@example.com"}}}
			answers, ok := AcceptedFormInput(responses, tt.wantKey, fields)
			require.True(t, ok)
			assert.Equal(t, Answers{"email": "ada@example.com"}, answers)
		})
	}
	// The caller's options are not modified.
	opts := &DisplayFormOptions{Title: "T", Elicit: &InputRequestOptions{}}
	_, err := DisplayForm(fields, "signup", opts)
	require.NoError(t, err)
	assert.Equal(t, InputRequestOptions{}, *opts.Elicit)
}

// TestDisplayFormRefusesAsFormSchema checks that both paths refuse empty
// and broken lists with exactly FormSchema's error.
func TestDisplayFormRefusesAsFormSchema(t *testing.T) {
	broken := map[string][]AutoFormField{
		"nil":          nil,
		"empty":        {},
		"empty name":   {{Name: ""}},
		"duplicate":    {{Name: "a"}, {Name: "a"}},
		"bounds":       {{Name: "n", Type: TypeNumber, Min: Bound(2), Max: Bound(1)}},
		"options":      {{Name: "o", Options: []Option{{Value: "x"}, {Value: "x"}}}},
		"default":      {{Name: "n", Type: TypeInteger, Max: Bound(3), Default: 9}},
		"invalid utf8": {{Name: "\xff"}},
	}
	for name, fields := range broken {
		t.Run(name, func(t *testing.T) {
			_, want := FormSchema(fields)
			require.Error(t, want)
			for _, opts := range []*DisplayFormOptions{nil, {Elicit: &InputRequestOptions{}}} {
				res, err := DisplayForm(fields, "t", opts)
				assert.Nil(t, res)
				assert.Equal(t, want, err)
			}
		})
	}
	_, err := DisplayForm([]AutoFormField{{Name: "a"}}, "", nil)
	assert.ErrorContains(t, err, "submit tool")

	// A default JSON cannot hold fails on the UI path, which must carry it.
	_, err = DisplayForm([]AutoFormField{{Name: "a", Default: make(chan int)}}, "t", nil)
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "a", fe.Field)
	assert.ErrorIs(t, err, ErrDefault)
}

// TestDisplayFormNames checks which names the UI path carries. The refused
// ones were seen to fail in Chromium with prefab 0.3.13 (for example "a - b"
// arrives as null, "true" as true, " sp" and "m|n" not at all, "p.q" is lost
// beside "p", and an absent "constructor" makes the view's postMessage fail),
// and every name in the carried list was seen to arrive intact.
func TestDisplayFormNames(t *testing.T) {
	carried := []string{
		"a", "first_name", "__private", "trailing_", "user-id", "snake__and--kebab", "already Spaced words",
		"o'neil.name", "a'b'c", `q"r`, "a=b", "a:b", "(paren)", "a+b", "x-y", "1e5", `a\b`, "a&b",
		"line\u2028sep", "名前", "émileZola", "a.b.c", "isFoo", "__proto",
	}
	for _, name := range carried {
		t.Run("carried/"+name, func(t *testing.T) {
			for _, typ := range []FieldType{TypeText, TypeCheckbox} {
				_, err := DisplayForm([]AutoFormField{{Name: name, Type: typ}}, "t", nil)
				assert.NoError(t, err)
			}
		})
	}
	refused := [][]string{
		{" sp"}, {"sp "}, {"\u00a0x"}, {"x\ufeff"}, {"tab\there"}, {"new\nline"},
		{"{{x}}"}, {"a}}"}, {"m|n"}, {"x?y"}, {"a<b"}, {"a>b"}, {"a&&b"}, {"a==b"}, {"a!=b"},
		{"a + b"}, {"a - b"}, {"a * b"}, {"a / b"}, {"a % b"},
		{"$"}, {"$x"}, {"!x"}, {"true"}, {"false"}, {"null"}, {"undefined"}, {"42"}, {"-1.5"}, {"'q'"}, {`"q"`},
		{"constructor"}, {"toString"}, {"__proto__"}, {"a.constructor"}, {"prototype.x"},
		{"p", "p.q"}, {"p.q", "p"}, {"a.b", "a.b.c"},
		{"full_name", "fullName"}, {"fullName", "full_name"}, {"a_b", "a__b", "aB"}, {"a_bC", "aB_c"},
	}
	for _, names := range refused {
		t.Run("refused/"+strings.Join(names, ","), func(t *testing.T) {
			var fields []AutoFormField
			for _, n := range names {
				fields = append(fields, AutoFormField{Name: n})
			}
			_, err := DisplayForm(fields, "t", nil)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.ErrorIs(t, err, ErrName)
			assert.Contains(t, names, fe.Field)
			// The native path carries every name.
			_, err = DisplayForm(fields, "t", &DisplayFormOptions{Elicit: &InputRequestOptions{}})
			assert.NoError(t, err)
		})
	}
}

func TestDisplayFormRendererKey(t *testing.T) {
	// Expected keys as the renderer's normalizeAction computes them, with
	// key.replace(/_([a-z])/g, ...).
	tests := map[string]string{
		"a": "a", "full_name": "fullName", "first_name_x": "firstNameX", "__private": "_Private",
		"trailing_": "trailing_", "a_B": "a_B", "a_1": "a_1", "snake__and--kebab": "snake_And--kebab",
		"2fa_code": "2faCode", "straße_name": "straßeName", "_é": "_é", "a_b_c": "aBC",
	}
	for in, want := range tests {
		assert.Equal(t, want, rendererKey(in), in)
	}
}

// formArgumentsFields has one field of every kind, for the
// AcceptedFormArguments tables.
var formArgumentsFields = []AutoFormField{
	{Name: "email", Type: TypeEmail, Required: true},
	{Name: "full_name"},
	{Name: "age", Type: TypeInteger, Min: Bound(18), Max: Bound(120)},
	{Name: "ratio", Type: TypeNumber},
	{Name: "plan", Options: []Option{{Value: "free"}, {Value: "pro"}}},
	{Name: "tags", Multiple: true, Options: []Option{{Value: "a"}, {Value: "b"}}},
	{Name: "news", Type: TypeCheckbox},
	{Name: "terms", Type: TypeBoolean},
}

func TestAcceptedFormArgumentsNoAnswer(t *testing.T) {
	for _, args := range []string{"", " ", "null", "[]", `"x"`, "42", "true", "{}", "{ }", `{"email":"ada@example.com"} {}`, `{"email":`, "{'a':1}", "\xff"} {
		t.Run(args, func(t *testing.T) {
			a, ok := AcceptedFormArguments(json.RawMessage(args), formArgumentsFields)
			assert.False(t, ok)
			assert.Nil(t, a)
			a, problems := CheckFormArguments(json.RawMessage(args), formArgumentsFields)
			assert.Nil(t, a)
			assert.Nil(t, problems)
		})
	}
	// nil arguments: a tools/call that sent none.
	_, ok := AcceptedFormArguments(nil, formArgumentsFields)
	assert.False(t, ok)
}

func TestCheckFormArguments(t *testing.T) {
	const email = `"email":"ada@example.com"`
	base := Answers{"email": "ada@example.com", "news": false, "terms": false}
	with := func(kv ...any) Answers {
		a := maps.Clone(base)
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(a, kv[i].(string))
			} else {
				a[kv[i].(string)] = kv[i+1]
			}
		}
		return a
	}
	type problem struct {
		field string
		err   error
	}
	tests := []struct {
		name     string
		args     string
		want     Answers
		problems []problem
	}{
		{"what a browser sends", `{` + email + `,"fullName":"Ada","age":"42","ratio":"-0.5","plan":"pro","tags":["a","b"],"news":true,"terms":false}`,
			with("full_name", "Ada", "age", 42.0, "ratio", -0.5, "plan", "pro", "tags", []any{"a", "b"}, "news", true), nil},
		{"what a native client sends", `{` + email + `,"full_name":"Ada","age":42,"ratio":0.25,"news":true,"terms":true}`,
			with("full_name", "Ada", "age", 42.0, "ratio", 0.25, "news", true, "terms", true), nil},

		{"empty strings are absent", `{` + email + `,"fullName":"","age":"","ratio":"","plan":"","tags":"","news":"","terms":""}`, base, nil},
		{"empty required string is missing", `{"email":"","fullName":"Ada"}`, nil, []problem{{"email", ErrMissing}}},
		{"missing required", `{"fullName":"Ada"}`, nil, []problem{{"email", ErrMissing}}},

		{"out of range dropped", `{` + email + `,"age":"5"}`, base, []problem{{"age", ErrInvalidValue}}},
		{"integer with zero fraction", `{` + email + `,"age":"42.0"}`, with("age", 42.0), nil},
		{"fraction for an integer", `{` + email + `,"age":"42.5"}`, base, []problem{{"age", ErrInvalidValue}}},
		{"exponent", `{` + email + `,"age":"2e1","ratio":"1E-3"}`, with("age", 20.0, "ratio", 0.001), nil},
		{"fraction alone", `{` + email + `,"ratio":".5"}`, with("ratio", 0.5), nil},
		{"negative zero", `{` + email + `,"ratio":"-0"}`, with("ratio", 0.0), nil},
		{"leading space", `{` + email + `,"age":" 42"}`, base, []problem{{"age", ErrInvalidValue}}},
		{"trailing space", `{` + email + `,"age":"42 "}`, base, []problem{{"age", ErrInvalidValue}}},
		{"plus sign", `{` + email + `,"age":"+42"}`, base, []problem{{"age", ErrInvalidValue}}},
		{"hex", `{` + email + `,"age":"0x10"}`, base, []problem{{"age", ErrInvalidValue}}},
		{"NaN", `{` + email + `,"ratio":"NaN"}`, base, []problem{{"ratio", ErrInvalidValue}}},
		{"Infinity", `{` + email + `,"ratio":"Infinity"}`, base, []problem{{"ratio", ErrInvalidValue}}},
		{"string overflow", `{` + email + `,"ratio":"1e999"}`, base, []problem{{"ratio", ErrInvalidValue}}},
		{"JSON number overflow", `{` + email + `,"ratio":1e999,"age":30}`, with("age", 30.0), []problem{{"ratio", ErrInvalidValue}}},
		{"trailing dot", `{` + email + `,"ratio":"5."}`, base, []problem{{"ratio", ErrInvalidValue}}},
		{"dangling exponent", `{` + email + `,"ratio":"5e"}`, base, []problem{{"ratio", ErrInvalidValue}}},
		{"underscore", `{` + email + `,"ratio":"1_000"}`, base, []problem{{"ratio", ErrInvalidValue}}},
		{"non-ASCII digits", `{` + email + `,"age":"٤٢"}`, base, []problem{{"age", ErrInvalidValue}}},
		{"number as a list", `{` + email + `,"age":["42"]}`, base, []problem{{"age", ErrInvalidValue}}},
		{"number for text", `{` + email + `,"fullName":42}`, base, []problem{{"full_name", ErrInvalidValue}}},

		{"on is true", `{` + email + `,"news":"on","terms":"on"}`, with("news", true, "terms", true), nil},
		{"off is not a boolean", `{` + email + `,"news":"off"}`, with("news", nil), []problem{{"news", ErrInvalidValue}}},
		{"string true is not a boolean", `{` + email + `,"news":"true"}`, with("news", nil), []problem{{"news", ErrInvalidValue}}},
		{"one is not a boolean", `{` + email + `,"news":1}`, with("news", nil), []problem{{"news", ErrInvalidValue}}},
		{"null is not a boolean", `{` + email + `,"news":null}`, with("news", nil), []problem{{"news", ErrInvalidValue}}},

		{"list for a single choice", `{` + email + `,"plan":["pro"]}`, base, []problem{{"plan", ErrInvalidValue}}},
		{"not an option", `{` + email + `,"plan":"gold"}`, base, []problem{{"plan", ErrInvalidValue}}},
		{"string for a multiple choice", `{` + email + `,"tags":"a"}`, base, []problem{{"tags", ErrInvalidValue}}},
		{"empty multiple choice", `{` + email + `,"tags":[]}`, with("tags", []any{}), nil},

		{"renamed key and own name: own name wins", `{` + email + `,"full_name":"own","fullName":"renamed"}`,
			with("full_name", "own"), []problem{{"fullName", ErrUnknownField}}},
		{"unknown keys dropped", `{` + email + `,"__proto__":{"x":1},"constructor":"x","":1}`, base,
			[]problem{{"", ErrUnknownField}, {"__proto__", ErrUnknownField}, {"constructor", ErrUnknownField}}},
		{"duplicate key: the last wins", `{` + email + `,"age":"5","age":"50"}`, with("age", 50.0), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, problems := CheckFormArguments(json.RawMessage(tt.args), formArgumentsFields)
			assert.Equal(t, tt.want, a)
			var got []problem
			for _, p := range problems {
				got = append(got, problem{p.Field, p.Err})
				if errors.Is(p.Err, ErrInvalidValue) {
					got[len(got)-1].err = ErrInvalidValue
				}
			}
			assert.Equal(t, tt.problems, got)
			accepted, ok := AcceptedFormArguments(json.RawMessage(tt.args), formArgumentsFields)
			assert.Equal(t, tt.want != nil, ok)
			assert.Equal(t, tt.want, accepted)
		})
	}

	// A renamed key that two fields share is nobody's.
	fields := []AutoFormField{{Name: "a_bC"}, {Name: "aB_c"}}
	a, _ := AcceptedFormArguments(json.RawMessage(`{"aBC":"x"}`), fields)
	assert.Equal(t, Answers{}, a)

	// A broken list is reported as its only problem.
	a, problems := CheckFormArguments(json.RawMessage(`{"a":"x"}`), []AutoFormField{{Name: "a"}, {Name: "a"}})
	assert.Nil(t, a)
	require.Len(t, problems, 1)
	assert.ErrorIs(t, problems[0], ErrName)
}

// browserForm is how prefab's renderer sends v, a native answer's value:
// numbers as the text a number input holds, everything else as it is.
func browserForm(v any) any {
	if n, ok := v.(float64); ok {
		return strconv.FormatFloat(n, 'g', -1, 64)
	}
	return v
}

// TestFormArgumentsAgreeWithFormInput sends a valid answer to every golden
// field list both ways, natively and as a browser sends it, and expects the
// same Answers, except where an empty string is absent on the UI path.
func TestFormArgumentsAgreeWithFormInput(t *testing.T) {
	for name, fields := range loadForms(t) {
		t.Run(name, func(t *testing.T) {
			native, browser := map[string]any{}, map[string]any{}
			for i := range fields {
				f := &fields[i]
				v := sample(f)
				b, err := json.Marshal(v)
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(b, &v))
				native[f.Name] = v
				browser[rendererKey(f.Name)] = browserForm(v)
			}
			want, ok := AcceptedFormInput(accepted(native), "form", fields)
			require.True(t, ok)
			for k, v := range want {
				if v == "" {
					delete(want, k)
				}
			}
			args, err := json.Marshal(browser)
			require.NoError(t, err)
			got, ok := AcceptedFormArguments(args, fields)
			require.True(t, ok, "args %s", args)
			assert.Equal(t, want, got)
		})
	}
}

// FuzzAcceptedFormArguments feeds arbitrary bytes as arguments. Nothing may
// panic, and every accepted value must be one the reference validator
// accepts for its field, under the field's own name.
func FuzzAcceptedFormArguments(f *testing.F) {
	for _, seed := range []string{
		`{"email":"ada@example.com","seats":"3","tags":["a"],"news":"on"}`,
		`{"email":"a@b","seats":" 3","ratio":"1e999","nick":"","plan":["pro"]}`,
		`{"email":"a@b","seats":"0x10","ratio":"-.5e-1","news":"off","__proto__":{}}`,
		`{"email":"a@b","ratio":1e999,"seats":3.0,"at":"2026-07-28T09:30:00Z"}`,
		`[1,2]`, `null`, `{}`, `{"a":1} x`,
	} {
		f.Add([]byte(seed))
	}
	s, err := FormSchema(fuzzFields)
	require.NoError(f, err)
	refs := map[string]interface{ Validate(any) error }{}
	for _, fd := range fuzzFields {
		refs[fd.Name] = compileProperty(f, s.Properties[fd.Name])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, ok := AcceptedFormArguments(data, fuzzFields)
		if !ok {
			assert.Nil(t, a)
			return
		}
		for name, v := range a {
			ref, known := refs[name]
			if !known {
				t.Fatalf("accepted unknown key %q", name)
			}
			if err := ref.Validate(v); err != nil {
				t.Errorf("accepted %q=%#v, which the reference validator rejects: %v", name, v, err)
			}
		}
	})
}

// chromiumPath is where Debian's chromium package installs the browser;
// .ci/run installs it, and nothing ever downloads one.
const chromiumPath = "/usr/bin/chromium"

// needChromium returns the path of Chromium. Like needNode, it skips the
// test outside CI when the browser is missing, and fails it under CI.
func needChromium(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		msg := "browser test needs Debian's chromium: run apt-get install chromium: %v"
		if os.Getenv("CI") != "" {
			t.Fatalf(msg, err)
		}
		t.Skipf(msg, err)
	}
	return chromiumPath
}

// prefabDist is the npm-installed renderer the browser test serves in place
// of the CDN.
var prefabDist = filepath.Join(interopDir, "node_modules", "@maxhealth.tech", "prefab", "dist")

// browserStep is one action of interop/browser.mjs on a form control.
type browserStep struct {
	Do     string   `json:"do"`
	Name   string   `json:"name"`
	Value  string   `json:"value,omitempty"`
	Values []string `json:"values,omitempty"`
}

// browserRun is what interop/browser.mjs reports.
type browserRun struct {
	Calls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"calls"`
	Methods []string          `json:"methods"`
	Shown   map[string]string `json:"shown"`
	Invalid []string          `json:"invalid"`
	Errors  []string          `json:"errors"`
}

// runBrowser serves result to the host page on 127.0.0.1, has Chromium fill
// and submit the form the viewer renders, and returns what the view sent.
func runBrowser(t *testing.T, result any, steps []browserStep, screenshot string) browserRun {
	t.Helper()
	needNode(t)
	chromium := needChromium(t)
	for _, f := range []string{"prefab.css", "renderer.auto.min.js"} {
		if _, err := os.Stat(filepath.Join(prefabDist, f)); err != nil {
			t.Fatalf("the renderer is not installed: run (cd interop && npm ci): %v", err)
		}
	}
	resultJSON, err := json.Marshal(result)
	require.NoError(t, err)

	mux := http.NewServeMux()
	srv := httptest.NewServer(mux) // listens on 127.0.0.1
	defer srv.Close()
	page, err := ViewerHTML(&ViewerOptions{BaseURL: srv.URL + "/prefab/"})
	require.NoError(t, err)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join("testdata", "browser", "host.html"))
	})
	mux.HandleFunc("GET /viewer", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	})
	mux.HandleFunc("GET /result.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(resultJSON)
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /prefab/{file}", func(w http.ResponseWriter, r *http.Request) {
		file := r.PathValue("file")
		if file != "prefab.css" && file != "renderer.auto.min.js" {
			http.NotFound(w, r)
			return
		}
		// The view's frame is sandboxed, so its origin is opaque, and it
		// loads the renderer with crossorigin: without this header
		// Chromium refuses both files.
		w.Header().Set("Access-Control-Allow-Origin", "*")
		http.ServeFile(w, r, filepath.Join(prefabDist, file))
	})

	if screenshot != "" {
		require.NoError(t, os.MkdirAll(filepath.Dir(screenshot), 0o755))
		screenshot, err = filepath.Abs(screenshot)
		require.NoError(t, err)
	}
	job, err := json.Marshal(map[string]any{
		"url": srv.URL + "/", "chromium": chromium, "screenshot": screenshot,
		"timeoutMs": 45000, "steps": steps,
	})
	require.NoError(t, err)
	start := time.Now()
	out := runNode(t, "browser.mjs", job)
	t.Logf("browser run took %v", time.Since(start).Round(time.Millisecond))
	var run browserRun
	require.NoError(t, json.Unmarshal(out, &run), "browser.mjs said: %s", out)
	return run
}

// TestDisplayFormBrowser renders a DisplayForm result with prefab's own
// renderer in headless Chromium, inside a sandboxed MCP Apps frame, fills
// every kind of field, submits, and checks what reaches the submit tool.
func TestDisplayFormBrowser(t *testing.T) {
	fields := []AutoFormField{
		{Name: "email", Label: "Email", Type: TypeEmail, Required: true, Placeholder: "ada@example.com"},
		{Name: "full_name", Required: true},
		{Name: "age", Type: TypeInteger, Min: Bound(18), Max: Bound(120)},
		{Name: "seats", Type: TypeNumber, Min: Bound(1), Max: Bound(10)},
		{Name: "plan", Label: "Plan", Required: true, Options: []Option{
			{Value: "free", Label: "Free"}, {Value: "pro", Label: "Pro, $10/month"}, {Value: "team", Label: "Team"},
		}},
		{Name: "interests", Multiple: true, Options: []Option{
			{Value: "ai", Label: "AI"}, {Value: "web", Label: "Web"}, {Value: "infra", Label: "Infrastructure"},
		}},
		{Name: "topics", Multiple: true, Options: []Option{{Value: "go"}, {Value: "ts"}}},
		{Name: "newsletter", Label: "Send me the newsletter", Type: TypeCheckbox},
		{Name: "terms", Type: TypeBoolean},
		{Name: "marketing", Type: TypeCheckbox},
		{Name: "password", Type: TypePassword, Min: Bound(4)},
		{Name: "start", Label: "Start date", Type: TypeDate},
		{Name: "nickname", Placeholder: "optional"},
		{Name: "o'neil.name", Label: "Odd name"},
		{Name: "isn't_it", Type: TypeCheckbox},
		{Name: "remember", Type: TypeCheckbox, Default: true},
		{Name: "city", Default: "Paris"},
		{Name: "ratio", Type: TypeRange, Min: Bound(0), Max: Bound(1)},
	}
	res, err := DisplayForm(fields, "signup", &DisplayFormOptions{Title: "Create your account", Subtitle: "It takes a minute."})
	require.NoError(t, err)
	typed := map[string]string{
		"email": "ada@example.com", "full_name": "Ada Lovelace", "age": "5", "seats": "3",
		"password": "hunter22", "start": "2026-07-28", "o'neil.name": "x.y",
	}
	var steps []browserStep
	for _, name := range slices.Sorted(maps.Keys(typed)) {
		steps = append(steps, browserStep{Do: "fill", Name: name, Value: typed[name]})
	}
	steps = append(steps,
		browserStep{Do: "select", Name: "plan", Values: []string{"team"}},
		browserStep{Do: "select", Name: "interests", Values: []string{"ai", "infra"}},
		browserStep{Do: "check", Name: "newsletter"},
		// terms: never touched.
		browserStep{Do: "check", Name: "marketing"},
		browserStep{Do: "uncheck", Name: "marketing"},
		browserStep{Do: "check", Name: "isn't_it"},
		// topics and nickname: left empty; remember, city and ratio:
		// left as they start.
	)
	run := runBrowser(t, res, steps, filepath.Join("testdata", "artifacts", "display-form.png"))

	require.Empty(t, run.Invalid, "the browser refused to submit the form")
	assert.Empty(t, run.Errors, "the view logged errors")
	assert.Equal(t, typed, run.Shown, "the form does not show what was typed")
	assert.Equal(t, []string{"ui/initialize", "ui/notifications/initialized"}, run.Methods[:2], "the view's handshake")
	require.Len(t, run.Calls, 1, "the view sent %d tools/call", len(run.Calls))
	call := run.Calls[0]
	assert.Equal(t, "signup", call.Name)

	// What the browser sent: strings for typed values, "" for an empty
	// field (even one with a default, which the renderer does not
	// pre-fill), a list for the multiple choice, booleans from the
	// Checkbox templates, nothing for an empty multiple choice, the range
	// input's midpoint, and full_name renamed by the renderer.
	var sent map[string]any
	require.NoError(t, json.Unmarshal(call.Arguments, &sent))
	assert.Equal(t, map[string]any{
		"email": "ada@example.com", "fullName": "Ada Lovelace", "age": "5", "seats": "3",
		"plan": "team", "interests": []any{"ai", "infra"},
		"newsletter": true, "terms": false, "marketing": false,
		"password": "hunter22", "start": "2026-07-28", "nickname": "", "o'neil.name": "x.y",
		"isn'tIt": true, "remember": true, "city": "", "ratio": "50",
	}, sent)

	answers, problems := CheckFormArguments(call.Arguments, fields)
	assert.Equal(t, Answers{
		"email": "ada@example.com", "full_name": "Ada Lovelace", "seats": 3.0,
		"plan": "team", "interests": []any{"ai", "infra"},
		"newsletter": true, "terms": false, "marketing": false,
		"password": "hunter22", "start": "2026-07-28", "o'neil.name": "x.y",
		"isn't_it": true, "remember": true,
	}, answers, "age 5 is below the minimum and ratio 50 above the maximum: both dropped; nickname, city and topics are absent")
	require.Len(t, problems, 2)
	for i, name := range []string{"age", "ratio"} {
		assert.Equal(t, name, problems[i].Field)
		assert.ErrorIs(t, problems[i], ErrInvalidValue)
	}
}

// TestDisplayFormBrowserTypeScript renders what the TypeScript
// display_form emits in the same browser and host, to show that the first
// two documented differences are needed: as it is, its form calls the tool
// with no arguments; given the argument templates alone, its checkbox still
// sends "on" after the box was ticked and cleared.
func TestDisplayFormBrowserTypeScript(t *testing.T) {
	fields := []AutoFormField{{Name: "email", Type: TypeEmail}, {Name: "news", Type: TypeCheckbox}}
	ts := callPrefab(t, []map[string]any{{"fn": "display_form", "args": []any{fields, "signup", map[string]any{}}}})
	require.Empty(t, ts[0].Error)
	steps := []browserStep{
		{Do: "fill", Name: "email", Value: "ada@example.com"},
		{Do: "check", Name: "news"},
		{Do: "uncheck", Name: "news"},
	}

	run := runBrowser(t, ts[0].Result, steps, "")
	require.Empty(t, run.Invalid)
	require.Len(t, run.Calls, 1)
	assert.JSONEq(t, `{}`, string(run.Calls[0].Arguments), "TypeScript's form now sends values; revisit difference 1")

	var res map[string]any
	require.NoError(t, json.Unmarshal(ts[0].Result, &res))
	form := findNode(res["structuredContent"], "Form")
	require.NotNil(t, form)
	form["onSubmit"].(map[string]any)["arguments"] = map[string]any{"email": "{{ email }}", "news": "{{ news }}"}
	wire, err := json.Marshal(res["structuredContent"])
	require.NoError(t, err)
	res["content"] = []any{map[string]any{"type": "text", "text": string(wire)}}
	run = runBrowser(t, res, steps, "")
	require.Len(t, run.Calls, 1)
	assert.JSONEq(t, `{"email":"ada@example.com","news":"on"}`, string(run.Calls[0].Arguments),
		"TypeScript's checkbox now sends what the box shows; revisit difference 2")
}

func TestViewerHTML(t *testing.T) {
	page, err := ViewerHTML(nil)
	require.NoError(t, err)
	hrefs := regexp.MustCompile(`<(?:link|script)\b[^>]*\b(?:href|src)="([^"]*)"[^>]*>`).FindAllStringSubmatch(page, -1)
	var urls []string
	for _, m := range hrefs {
		assert.Contains(t, m[0], "crossorigin", "loaded without crossorigin: %s", m[0])
		urls = append(urls, m[1])
	}
	assert.Equal(t, []string{DefaultRendererBaseURL + "/prefab.css", DefaultRendererBaseURL + "/renderer.auto.min.js"}, urls)
	assert.Contains(t, page, `<div id="root"></div>`)

	page, err = ViewerHTML(&ViewerOptions{BaseURL: "http://127.0.0.1:8080/assets/prefab/", Title: `Tom & "Jerry"`})
	require.NoError(t, err)
	assert.Contains(t, page, `href="http://127.0.0.1:8080/assets/prefab/prefab.css"`)
	assert.Contains(t, page, `src="http://127.0.0.1:8080/assets/prefab/renderer.auto.min.js"`)
	assert.Contains(t, page, `<title>Tom &amp; &#34;Jerry&#34;</title>`)

	for _, bad := range []ViewerOptions{
		{BaseURL: "/relative"}, {BaseURL: "cdn.example.com/x"}, {BaseURL: "ftp://example.com/x"},
		{BaseURL: "https://example.com/x?v=1"}, {BaseURL: "https://example.com/x#f"}, {BaseURL: "https://u:p@example.com/x"},
		{BaseURL: "https://"}, {BaseURL: "javascript:alert(1)"},
		{URI: "https://example.com/viewer"}, {URI: "ui://"}, {URI: "viewer"},
	} {
		_, err := ViewerHTML(&bad)
		assert.Error(t, err, "%+v", bad)
	}
}

// TestViewerMatchesTypeScript checks that the default renderer location is
// the one prefab's own rendererHtml pins.
func TestViewerMatchesTypeScript(t *testing.T) {
	ts := callPrefab(t, []map[string]any{{"fn": "rendererHtml", "args": []any{}}})
	require.Empty(t, ts[0].Error)
	var tsPage string
	require.NoError(t, json.Unmarshal(ts[0].Result, &tsPage))
	page, err := ViewerHTML(nil)
	require.NoError(t, err)
	urls := regexp.MustCompile(`(?:href|src)="(https://[^"]*)"`)
	var want, got []string
	for _, m := range urls.FindAllStringSubmatch(tsPage, -1) {
		want = append(want, m[1])
	}
	for _, m := range urls.FindAllStringSubmatch(page, -1) {
		got = append(got, m[1])
	}
	require.NotEmpty(t, want)
	assert.Equal(t, want, got)
}

// connect returns a go-sdk client session of server over the 2026-07-28
// protocol, with the given client capabilities.
func connect(t *testing.T, server *mcp.Server, caps *mcp.ClientCapabilities) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v0"}, &mcp.ClientOptions{Capabilities: caps})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := client.Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestAddViewer(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
	opts := &ViewerOptions{BaseURL: "https://assets.example.com:8443/prefab", Title: "Signup"}
	require.NoError(t, AddViewer(server, opts))
	cs := connect(t, server, nil)

	wantMeta := mcp.Meta{"ui": map[string]any{"csp": map[string]any{"resourceDomains": []any{"https://assets.example.com:8443"}}}}
	list, err := cs.ListResources(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list.Resources, 1)
	r := list.Resources[0]
	assert.Equal(t, ViewerURI, r.URI)
	assert.Equal(t, AppMIMEType, r.MIMEType)
	assert.Equal(t, "Signup", r.Title)
	assert.Equal(t, wantMeta, r.Meta)

	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ViewerURI})
	require.NoError(t, err)
	require.Len(t, read.Contents, 1)
	c := read.Contents[0]
	page, err := ViewerHTML(opts)
	require.NoError(t, err)
	assert.Equal(t, page, c.Text)
	assert.Equal(t, AppMIMEType, c.MIMEType)
	assert.Equal(t, ViewerURI, c.URI)
	assert.Equal(t, wantMeta, c.Meta)

	assert.Error(t, AddViewer(server, &ViewerOptions{URI: "file:///x"}))
}

func TestAttachViewer(t *testing.T) {
	tool := &mcp.Tool{Name: "signup", Meta: mcp.Meta{"other": 1, "ui": map[string]any{"visibility": []string{"model", "app"}}}}
	require.NoError(t, AttachViewer(tool, nil))
	assert.Equal(t, mcp.Meta{
		"other":          1,
		"ui":             map[string]any{"visibility": []string{"model", "app"}, "resourceUri": ViewerURI},
		"ui/resourceUri": ViewerURI,
	}, tool.Meta)

	tool = &mcp.Tool{Name: "t"}
	require.NoError(t, AttachViewer(tool, &ViewerOptions{URI: "ui://shop/form", BaseURL: "ignored"}))
	assert.Equal(t, mcp.Meta{"ui": map[string]any{"resourceUri": "ui://shop/form"}, "ui/resourceUri": "ui://shop/form"}, tool.Meta)

	tool = &mcp.Tool{Name: "t"}
	assert.Error(t, AttachViewer(tool, &ViewerOptions{URI: "https://x"}))
	assert.Nil(t, tool.Meta)
}

func TestViewerClientSupportsApps(t *testing.T) {
	apps := map[string]any{"mimeTypes": []any{"text/html", AppMIMEType}}
	tests := []struct {
		name string
		caps *mcp.ClientCapabilities
		want bool
	}{
		{"nil", nil, false},
		{"none", &mcp.ClientCapabilities{}, false},
		{"decoded", &mcp.ClientCapabilities{Extensions: map[string]any{AppsExtension: apps}}, true},
		{"built in Go", &mcp.ClientCapabilities{Extensions: map[string]any{AppsExtension: map[string]any{"mimeTypes": []string{AppMIMEType}}}}, true},
		{"no MIME types", &mcp.ClientCapabilities{Extensions: map[string]any{AppsExtension: map[string]any{}}}, false},
		{"other MIME type", &mcp.ClientCapabilities{Extensions: map[string]any{AppsExtension: map[string]any{"mimeTypes": []any{"text/html"}}}}, false},
		{"wrong shape", &mcp.ClientCapabilities{Extensions: map[string]any{AppsExtension: map[string]any{"mimeTypes": AppMIMEType}}}, false},
		{"the apps look-alike", &mcp.ClientCapabilities{Extensions: map[string]any{"io.modelcontextprotocol/apps": apps}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ClientSupportsApps(tt.caps))
		})
	}

	// End to end: what a go-sdk client declares reaches a tool handler,
	// over 2026-07-28, where capabilities travel in each request's _meta.
	for _, declare := range []bool{true, false} {
		server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, nil)
		server.AddTool(&mcp.Tool{Name: "probe", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.FormatBool(ClientSupportsApps(req.ClientCapabilities()))}}}, nil
			})
		caps := &mcp.ClientCapabilities{}
		if declare {
			caps.AddExtension(AppsExtension, map[string]any{"mimeTypes": []string{AppMIMEType}})
		}
		cs := connect(t, server, caps)
		require.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "probe"})
		require.NoError(t, err)
		assert.Equal(t, strconv.FormatBool(declare), res.Content[0].(*mcp.TextContent).Text)
	}
}
