package mcpform

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpform/mcpform/internal/prefab"
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
// The UI path is compared after undoing exactly the five documented
// differences, each checked against what it should be before it is undone:
// the submit action's arguments, the Checkbox of a boolean field, the
// label of an unlabeled field, the HTML input type of an integer, datetime
// or uri field, and the Slider of a range field. The native path is
// compared exactly, after removing what is not the helpers' to decide
// (resultType, which go-sdk writes as it sends a result, and the null
// content go-sdk marshals) and the documented default key; non-ASCII
// unlabeled titles differ as they do in TestFormSchemaMatchesTypeScript.
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
	// go-sdk's result always writes content, which TypeScript's has
	// not: an empty list (see doc.go's list of departures).
	assert.Equal(t, []any{}, got["content"])
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

// htmlInputTypes are the field types that are no HTML input type, with the
// one DisplayForm asks them with.
var htmlInputTypes = map[FieldType]string{
	TypeInteger: "number", TypeDatetime: "datetime-local", TypeURI: "url",
}

// undoUIDifferences turns our tree, got, into what TypeScript emits, want,
// by undoing the five documented differences, each checked first.
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
		// 4. An integer, datetime or uri field is an Input of the HTML
		// type that holds it, where TypeScript's names no HTML type and
		// shows a text box.
		if html, ok := htmlInputTypes[f.Type]; ok && len(f.Options) == 0 {
			assert.Equal(t, string(f.Type), w["inputType"], "TypeScript's input type of %q", f.Name)
			assert.Equal(t, html, g["inputType"], "input type of %q", f.Name)
			g["inputType"] = w["inputType"]
		}
		// 5. A range field is a Slider with the field's bounds, where
		// TypeScript has an Input of type range, which has none.
		if f.Type == TypeRange && len(f.Options) == 0 {
			assert.Equal(t, "Input", w["type"])
			assert.Equal(t, "range", w["inputType"])
			wantSlider := map[string]any{"type": "Slider", "name": f.Name, "label": title, "step": "any"}
			if f.Min != nil {
				wantSlider["min"] = *f.Min
			}
			if f.Max != nil {
				wantSlider["max"] = *f.Max
			}
			if f.Required {
				wantSlider["required"] = true
			}
			if f.Default != nil {
				wantSlider["value"] = w["value"]
			}
			assert.Equal(t, wantSlider, g, "control of %q", f.Name)
			gotControls[i] = w
			continue
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

// BenchmarkDisplayScaling measures rendering a form at several sizes, by
// field list and compiled; the name checks are linear.
func BenchmarkDisplayScaling(b *testing.B) {
	for _, n := range []int{8, 512} {
		fields := make([]AutoFormField, n)
		for i := range fields {
			fields[i] = AutoFormField{Name: fmt.Sprintf("field_n%d", i), Type: TypeInteger}
		}
		b.Run(fmt.Sprintf("DisplayForm/fields=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DisplayForm(fields, "t", nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		form, err := NewForm[Answers](fields, nil)
		require.NoError(b, err)
		b.Run(fmt.Sprintf("Form.Display/fields=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := form.Display("t", nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
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
		assert.Equal(t, want, prefab.RendererKey(in), in)
	}
}

// carriedByPairs is the rule of checkCarried stated pair by pair, as it
// was first written: each field against every earlier one.
func carriedByPairs(fields []AutoFormField) error {
	for i := range fields {
		name := fields[i].Name
		if p := prefab.TemplateProblem(name); p != "" {
			return fieldErr(name, ErrName, "the prefab renderer cannot read it back: %s", p)
		}
		key := prefab.RendererKey(name)
		for j := range i {
			other := fields[j].Name
			if key == other || key == prefab.RendererKey(other) || name == prefab.RendererKey(other) {
				return fieldErr(name, ErrName, "the prefab renderer delivers it and %q under the same key %q", other, key)
			}
			if strings.HasPrefix(name, other+".") || strings.HasPrefix(other, name+".") {
				return fieldErr(name, ErrName, "the prefab renderer stores it and %q on one path", other)
			}
		}
	}
	return nil
}

// TestCheckCarriedMatchesPairs checks the indexed checkCarried against the
// pairwise rule on every ordered pair and triple of names that clash in
// each way, so the index neither misses a clash nor names another field.
func TestCheckCarriedMatchesPairs(t *testing.T) {
	names := []string{"a", "a.b", "a.b.c", "a_b", "aB", "a__b", "a_b.c", "aB.c", "b", "a.c", "x_y", "xY", "x.y_z"}
	var lists [][]string
	for _, p := range names {
		for _, q := range names {
			if q == p {
				continue
			}
			lists = append(lists, []string{p, q})
			for _, r := range names {
				if r != p && r != q {
					lists = append(lists, []string{p, q, r})
				}
			}
		}
	}
	clashes := 0
	for _, l := range lists {
		var fields []AutoFormField
		for _, n := range l {
			fields = append(fields, AutoFormField{Name: n})
		}
		want := carriedByPairs(fields)
		if want != nil {
			clashes++
		}
		require.Equal(t, want, checkCarried(fields), "names %q", l)
	}
	assert.Greater(t, clashes, len(lists)/4, "the lists should clash often")
}
