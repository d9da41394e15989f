package mcpform

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// booking is the typed answer of the forms below: every Go type a form
// decodes into, an optional one among them.
type booking struct {
	Email string    `json:"email"`
	Room  string    `json:"room"`
	Seats int       `json:"seats"`
	Day   time.Time `json:"day"`
	At    time.Time `json:"at"`
	Tags  []string  `json:"tags"`
	Note  *string   `json:"note"`
	Ok    bool      `json:"ok"`
}

var bookingFields = []AutoFormField{
	{Name: "email", Type: TypeEmail, Required: true},
	{Name: "room", Required: true, Options: []Option{{Value: "babbage", Label: "Babbage (6 seats)"}, {Value: "lovelace"}}},
	{Name: "seats", Type: TypeInteger, Required: true, Min: Bound(1), Max: Bound(6)},
	{Name: "day", Type: TypeDate, Required: true},
	{Name: "at", Type: TypeDatetime},
	{Name: "tags", Options: []Option{{Value: "av", Label: "Projector"}, {Value: "tea"}}, Multiple: true},
	{Name: "note"},
	{Name: "ok", Type: TypeCheckbox},
}

func TestFormRead(t *testing.T) {
	form, err := NewForm[booking](bookingFields, &FormOptions{Key: "book"})
	require.NoError(t, err)
	note := "window seat"
	for _, tt := range []struct {
		name    string
		resp    mcp.InputResponseMap
		status  ReplyStatus
		value   booking
		answers Answers
		fields  []string // the fields Problems name, in order
	}{
		{name: "first call", status: ReplyNone},
		{name: "other key", resp: mcp.InputResponseMap{"form": &mcp.ElicitResult{Action: "accept"}}, status: ReplyNone},
		{name: "declined", resp: answer("book", "decline", nil), status: ReplyDeclined},
		{name: "cancelled", resp: answer("book", "cancel", nil), status: ReplyCancelled},
		{name: "unknown action", resp: answer("book", "maybe", nil), status: ReplyInvalid, fields: []string{""}},
		{
			name: "accepted, every type",
			resp: answer("book", "accept", map[string]any{"email": "ada@example.com", "room": "babbage", "seats": 4.0,
				"day": "2026-08-03", "at": "2026-08-03T10:00:00.5+02:00", "tags": []any{"av", "tea"}, "note": note, "ok": true}),
			status: ReplyAccepted,
			value: booking{Email: "ada@example.com", Room: "babbage", Seats: 4,
				Day: time.Date(2026, 8, 3, 0, 0, 0, 0, time.UTC), At: time.Date(2026, 8, 3, 10, 0, 0, 5e8, time.FixedZone("", 2*3600)),
				Tags: []string{"av", "tea"}, Note: &note, Ok: true},
		},
		{
			name:   "optional left out stays nil",
			resp:   answer("book", "accept", map[string]any{"email": "ada@example.com", "room": "lovelace", "seats": 1.0, "day": "2026-08-03"}),
			status: ReplyAccepted,
			value:  booking{Email: "ada@example.com", Room: "lovelace", Seats: 1, Day: time.Date(2026, 8, 3, 0, 0, 0, 0, time.UTC)},
		},
		{
			name:    "refused values keep the good ones",
			resp:    answer("book", "accept", map[string]any{"email": "ada@example.com", "room": "gold", "seats": 9.0, "day": "2026-08-03", "junk": 1.0}),
			status:  ReplyInvalid,
			answers: Answers{"email": "ada@example.com", "day": "2026-08-03"},
			fields:  []string{"room", "seats", "junk"},
		},
		{
			name:    "accept without content misses the required",
			resp:    answer("book", "accept", nil),
			status:  ReplyInvalid,
			answers: Answers{},
			fields:  []string{"email", "room", "seats", "day"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := form.Read(tt.resp)
			assert.Equal(t, tt.status, r.Status)
			assert.Equal(t, tt.value, r.Value)
			if tt.status == ReplyInvalid {
				assert.Equal(t, tt.answers, r.Answers)
			}
			var named []string
			for _, p := range r.Problems {
				named = append(named, p.Field)
			}
			assert.Equal(t, tt.fields, named)
		})
	}
}

func answer(key, action string, content map[string]any) mcp.InputResponseMap {
	return mcp.InputResponseMap{key: &mcp.ElicitResult{Action: action, Content: content}}
}

func TestFormSchemaTitled(t *testing.T) {
	form, err := NewForm[booking](bookingFields, nil)
	require.NoError(t, err)
	b, err := json.Marshal(form.Schema())
	require.NoError(t, err)
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(b, &s))
	assert.JSONEq(t, `{"type":"string","title":"Room","oneOf":[{"const":"babbage","title":"Babbage (6 seats)"},{"const":"lovelace","title":"lovelace"}]}`, string(s.Properties["room"]))
	assert.JSONEq(t, `{"type":"array","title":"Tags","items":{"anyOf":[{"const":"av","title":"Projector"},{"const":"tea","title":"tea"}]}}`, string(s.Properties["tags"]))
	// The Go type's range becomes the bounds of an unbounded integer.
	small, err := NewForm[struct {
		N int8 `json:"n"`
	}]([]AutoFormField{{Name: "n", Type: TypeInteger}}, nil)
	require.NoError(t, err)
	assert.Equal(t, -128.0, *small.Fields()[0].Min)
	assert.Equal(t, 127.0, *small.Fields()[0].Max)
	// FormSchema keeps the TypeScript mapping.
	plain, err := FormSchema(bookingFields)
	require.NoError(t, err)
	assert.Equal(t, []any{"babbage", "lovelace"}, plain.Properties["room"].Enum)
}

func TestNewFormRefuses(t *testing.T) {
	for _, tt := range []struct {
		name   string
		build  func() error
		field  string
		target error
	}{
		{"broken definition", func() error {
			_, err := NewForm[Answers]([]AutoFormField{{Name: "a"}, {Name: "a"}}, nil)
			return err
		}, "a", ErrName},
		{"a json tag typo", func() error {
			_, err := NewForm[struct {
				Email string `json:"emial"`
			}]([]AutoFormField{{Name: "email"}}, nil)
			return err
		}, "email", ErrName},
		{"an integer into a string", func() error {
			_, err := NewForm[struct {
				N string `json:"n"`
			}]([]AutoFormField{{Name: "n", Type: TypeInteger}}, nil)
			return err
		}, "n", ErrType},
		{"a number into an int", func() error {
			_, err := NewForm[struct {
				N int `json:"n"`
			}]([]AutoFormField{{Name: "n", Type: TypeNumber}}, nil)
			return err
		}, "n", ErrType},
		{"a bound past the type", func() error {
			_, err := NewForm[struct {
				N uint8 `json:"n"`
			}]([]AutoFormField{{Name: "n", Type: TypeInteger, Max: Bound(300)}}, nil)
			return err
		}, "n", ErrBounds},
		{"an email into a time", func() error {
			_, err := NewForm[struct {
				At time.Time `json:"at"`
			}]([]AutoFormField{{Name: "at", Type: TypeEmail}}, nil)
			return err
		}, "at", ErrType},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.build()
			require.ErrorIs(t, err, tt.target)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tt.field, fe.Field)
		})
	}
}

func TestFormReask(t *testing.T) {
	form, err := NewForm[booking](bookingFields, &FormOptions{Key: "book", Message: "Book a room"})
	require.NoError(t, err)
	r := form.Read(answer("book", "accept", map[string]any{"email": "ada@example.com", "room": "babbage", "seats": 9.0, "day": "2026-08-03"}))
	require.Equal(t, ReplyInvalid, r.Status)
	res := form.Reask(r, "st")
	p := res.InputRequests["book"].(*mcp.ElicitParams)
	assert.Equal(t, "Book a room\n\nSeats must be from 1 to 6.", p.Message)
	assert.Equal(t, "st", res.RequestState)
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, p.RequestedSchema)), &s))
	assert.JSONEq(t, `"ada@example.com"`, string(s.Properties["email"].Default))
	assert.JSONEq(t, `"babbage"`, string(s.Properties["room"].Default))
	assert.Empty(t, s.Properties["seats"].Default)
}

// TestFormGoSDKRoundTrip asks with a typed form through go-sdk in memory,
// at 2026-07-28 and through the bridge for a 2025-11-25 client, whose
// elicitation handler answers; Read yields the typed struct.
func TestFormGoSDKRoundTrip(t *testing.T) {
	form, err := NewForm[booking](bookingFields, &FormOptions{Key: "book"})
	require.NoError(t, err)
	for _, version := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			ctx := context.Background()
			got := make(chan booking, 1)
			server := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
			server.AddTool(&mcp.Tool{Name: "book", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					r := form.Read(req.Params.InputResponses)
					switch r.Status {
					case ReplyNone:
						return form.InputRequest(""), nil
					case ReplyAccepted:
						got <- r.Value
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "booked"}}}, nil
					}
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: r.Status.String()}}}, nil
				})
			client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0"}, &mcp.ClientOptions{
				ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{
						"email": "ada@example.com", "room": "babbage", "seats": 2, "day": "2026-08-03",
						"at": "2026-08-03T10:00:00Z", "tags": []any{"av"}, "note": "hi"}}, nil
				},
			})
			cs := connectClient(t, server, client, version)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "book"})
			require.NoError(t, err)
			require.False(t, res.IsError, "%v", res.Content)
			note := "hi"
			assert.Equal(t, booking{Email: "ada@example.com", Room: "babbage", Seats: 2,
				Day: time.Date(2026, 8, 3, 0, 0, 0, 0, time.UTC), At: time.Date(2026, 8, 3, 10, 0, 0, 0, time.UTC),
				Tags: []string{"av"}, Note: &note}, <-got)
		})
	}
}

// TestFormAgreement runs the agreement suite over compiled forms: a value
// is kept if and only if the reference validator, asserting formats,
// accepts it against Form.Schema()'s property, titled choices included.
func TestFormAgreement(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	forms := loadForms(t)
	forms["booking"] = bookingFields
	pairs := 0
	var agree agreement
	for name, fields := range forms {
		form, err := NewForm[Answers](fields, nil)
		require.NoError(t, err)
		s := form.Schema()
		pool := valuePool(fields, rng)
		t.Run(name, func(t *testing.T) {
			for _, f := range form.Fields() {
				if f.Secret() {
					// Never asked in form mode: a value sent for it is
					// an unknown key (TestFormSecretsLeaveTheForm).
					continue
				}
				ref := compileProperty(t, s.Properties[f.Name])
				one, err := NewForm[Answers]([]AutoFormField{f}, nil)
				require.NoError(t, err)
				for _, v := range pool {
					pairs++
					r := one.Read(answer(DefaultInputKey, "accept", map[string]any{f.Name: v}))
					agree.check(t, &f, v, len(r.Problems) == 0, ref.Validate(v))
				}
			}
		})
	}
	agree.exercised(t)
	if pairs < 10000 {
		t.Errorf("only %d pairs checked", pairs)
	}
}

// TestFormReadSurfacesDecodeError checks that Read drops no error: an
// accepted answer that does not decode, which compiling should make
// impossible, is invalid and names its field, never a zero Value.
func TestFormReadSurfacesDecodeError(t *testing.T) {
	form, err := NewForm[booking](bookingFields, nil)
	require.NoError(t, err)
	// Break the compiled decoder by hand: the email goes to Seats, an int.
	broken := *form
	dec := *form.decode
	dec.targets = slices.Clone(dec.targets)
	dec.targets[0].index = dec.targets[2].index
	broken.decode = &dec
	content := map[string]any{"email": "ada@example.com", "room": "babbage", "seats": 2.0, "day": "2026-08-03"}
	require.Equal(t, ReplyAccepted, form.Read(answer(DefaultInputKey, "accept", content)).Status)

	r := broken.Read(answer(DefaultInputKey, "accept", content))
	assert.Equal(t, ReplyInvalid, r.Status)
	assert.Zero(t, r.Value)
	if assert.Len(t, r.Problems, 1) {
		assert.Equal(t, "email", r.Problems[0].Field)
		assert.ErrorIs(t, r.Problems[0], ErrInvalidValue)
	}
	assert.NotContains(t, r.Answers, "email", "an undecodable value is pre-filled on the re-ask")
	assert.Contains(t, content, "email", "the client's content was changed")
}

// FuzzFormRead checks the claim that an accepted answer decodes to what it
// says: whatever JSON content a client sends, Read does not panic, and an
// accepted answer's typed value holds each value as an independent parse
// reads it (time.Parse for dates and times, strconv for the number),
// not only without error; Answers.Decode gives the same struct.
func FuzzFormRead(f *testing.F) {
	form, err := NewForm[booking](bookingFields, nil)
	require.NoError(f, err)
	for _, seed := range []string{
		`{"email":"ada@example.com","room":"babbage","seats":4,"day":"2026-08-03"}`,
		`{"email":"a@b.c","room":"lovelace","seats":6.0,"day":"2024-02-29","at":"2026-08-03t23:59:60z","tags":["av"],"note":"","ok":false}`,
		`{"email":"a@b.c","room":"babbage","seats":1e0,"day":"2026-08-03","at":"2026-08-03T10:00:00.1234567891234-23:59"}`,
		`{"seats":1e400,"tags":"av","day":"2026-02-30"}`,
		`{"email":"a@b.c","room":"babbage","seats":1e0,"day":"0000-02-29","at":"2026-08-03T10:00:00.1234567891234-23:59","tags":[]}`,
		// A signed hour, once accepted and decoded as 00:00.
		`{"email":"a@b.c","room":"babbage","seats":1,"day":"2026-08-03","at":"2026-08-03T+1:00:00Z"}`,
		`{"email":"a@b.c","room":"babbage","seats":1,"day":"2026-08-03","at":"2026-08-03T01:00:00+-0:00","note":"x"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var content map[string]any
		if json.Unmarshal(data, &content) != nil {
			return
		}
		r := form.Read(answer(DefaultInputKey, "accept", content))
		if r.Status != ReplyAccepted {
			return
		}
		var viaAnswers booking
		require.NoError(t, r.Answers.Decode(&viaAnswers))
		assert.Equal(t, r.Value, viaAnswers, "Answers.Decode differs from Form.Read")
		var raw map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(data, &raw))
		assertDecodedAsParsed(t, r.Value, r.Answers, raw)
	})
}

// assertDecodedAsParsed checks each value of v against an independent
// parse of what the client sent: a, the accepted answers, and raw, the
// same content as JSON text.
func assertDecodedAsParsed(t *testing.T, v booking, a Answers, raw map[string]json.RawMessage) {
	t.Helper()
	assert.Equal(t, a["email"], v.Email)
	assert.Equal(t, a["room"], v.Room)
	seats, err := strconv.ParseFloat(string(raw["seats"]), 64)
	require.NoError(t, err, "seats %s", raw["seats"])
	assert.Equal(t, seats, float64(v.Seats), "seats %s", raw["seats"])
	day, err := time.Parse(time.DateOnly, a["day"].(string))
	require.NoError(t, err, "day %q", a["day"])
	assert.True(t, day.Equal(v.Day) && v.Day.Location() == time.UTC, "day %q decoded as %v", a["day"], v.Day)
	if s, ok := a["at"].(string); ok {
		want, err := time.Parse(time.RFC3339, rfc3339ForGo(s))
		require.NoError(t, err, "time.Parse refuses the accepted date-time %q", s)
		if s[17:19] == "60" {
			want = want.Add(time.Second) // a leap second reads as the next minute
		}
		_, gotOff := v.At.Zone()
		_, wantOff := want.Zone()
		assert.True(t, want.Equal(v.At) && gotOff == wantOff, "date-time %q decoded as %v, time.Parse gives %v", s, v.At, want)
	} else {
		assert.True(t, v.At.IsZero())
	}
	if tags, ok := a["tags"]; ok {
		want := make([]string, 0)
		for _, x := range tags.([]any) {
			want = append(want, x.(string))
		}
		assert.Equal(t, want, v.Tags)
	}
	if note, ok := a["note"]; ok {
		require.NotNil(t, v.Note)
		assert.Equal(t, note, *v.Note)
	} else {
		assert.Nil(t, v.Note)
	}
	assert.Equal(t, a["ok"] == true, v.Ok)
}

// rfc3339ForGo spells an RFC 3339 date-time the way time.Parse takes it:
// upper-case 'T' and 'Z', and a leap second as second 59.
func rfc3339ForGo(s string) string {
	b := []byte(s)
	if len(b) > 19 {
		b[10] = 'T'
		if b[len(b)-1] == 'z' {
			b[len(b)-1] = 'Z'
		}
		if string(b[17:19]) == "60" {
			b[18] = '9'
			b[17] = '5'
		}
	}
	return string(b)
}

// The benchmarks below use the 8-field signup answer of the core
// benchmarks; compare each with its peer from the same run.

func BenchmarkFormRead(b *testing.B) {
	fields, responses := benchAnswer(b)
	b.Run("answers", func(b *testing.B) {
		form, err := NewForm[Answers](fields, &FormOptions{Key: "signup"})
		require.NoError(b, err)
		b.ReportAllocs()
		for b.Loop() {
			if r := form.Read(responses); r.Status != ReplyAccepted {
				b.Fatal(r.Status, r.Problems)
			}
		}
	})
}

func BenchmarkFormInputRequest2(b *testing.B) {
	fields, _ := benchAnswer(b)
	form, err := NewForm[Answers](fields, &FormOptions{Key: "signup", Message: "Create your account"})
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		_ = form.InputRequest("")
	}
}

// BenchmarkMarshalInputRequest is go-sdk's cost of sending the result:
// json.Marshal of the compiled form's request against FormInputRequest's.
func BenchmarkMarshalInputRequest(b *testing.B) {
	fields, _ := benchAnswer(b)
	form, err := NewForm[Answers](fields, &FormOptions{Key: "signup", Message: "Create your account"})
	require.NoError(b, err)
	// Today's FormInputRequest result, built here rather than called, so
	// that the peer stays what it was measured as: the schema as a
	// *jsonschema.Schema, which go-sdk marshals on every send.
	s, err := FormSchema(fields)
	require.NoError(b, err)
	old := &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
		"signup": &mcp.ElicitParams{Mode: "form", Message: "Create your account", RequestedSchema: s},
	}}
	for _, tt := range []struct {
		name string
		res  *mcp.CallToolResult
	}{{"form", form.InputRequest("")}, {"FormInputRequest", old}} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(tt.res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFormReadMap: a form read into a plain map gets the accepted values,
// as one read into Answers does.
func TestFormReadMap(t *testing.T) {
	fields := []AutoFormField{{Name: "email", Type: TypeEmail, Required: true}}
	m, err := NewForm[map[string]any](fields, nil)
	require.NoError(t, err)
	a, err := NewForm[Answers](fields, nil)
	require.NoError(t, err)
	resp := answer(DefaultInputKey, "accept", map[string]any{"email": "ada@example.com"})
	assert.Equal(t, map[string]any{"email": "ada@example.com"}, m.Read(resp).Value)
	assert.Equal(t, Answers{"email": "ada@example.com"}, a.Read(resp).Value)
}

// TestFormSecretsLeaveTheForm: a password is never in the form-mode schema,
// and one sent in a form answer anyway is dropped as an unknown key.
func TestFormSecretsLeaveTheForm(t *testing.T) {
	form, err := NewForm[Answers]([]AutoFormField{
		{Name: "email", Type: TypeEmail, Required: true},
		{Name: "password", Type: TypePassword, Required: true, Min: Bound(8)},
	}, nil)
	require.NoError(t, err)
	assert.NotContains(t, form.Schema().Properties, "password")
	assert.NotContains(t, form.Schema().Required, "password")
	assert.Len(t, form.Fields(), 2, "Fields lists the secret too")
	raw := wireJSON(t, form.InputRequest("").InputRequests[DefaultInputKey].(*mcp.ElicitParams).RequestedSchema)
	assert.NotContains(t, raw, "password")

	r := form.Read(answer(DefaultInputKey, "accept", map[string]any{"email": "ada@example.com", "password": "hunter22"}))
	assert.Equal(t, ReplyAccepted, r.Status)
	assert.Equal(t, Answers{"email": "ada@example.com"}, r.Answers)
	require.Len(t, r.Problems, 1)
	assert.ErrorIs(t, r.Problems[0], ErrUnknownField)

	_, err = form.Ask(call("t", "", nil), "")
	assert.ErrorContains(t, err, `field "password" is secret`)
}

// TestElicitationModes: reading the per-request capabilities in place
// agrees with go-sdk's decoding of them.
func TestElicitationModes(t *testing.T) {
	for _, caps := range []string{
		`{}`, `{"elicitation":{}}`, `{"elicitation":{"form":{}}}`, `{"elicitation":{"url":{}}}`,
		`{"elicitation":{"form":{},"url":{}}}`, `{"elicitation":null}`, `{"elicitation":{"form":null}}`,
		`{"elicitation":{"url":null}}`, `{"sampling":{}}`, `{"elicitation":{"form":{"x":1}},"extensions":{}}`,
	} {
		t.Run(caps, func(t *testing.T) {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(caps), &m))
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: m}}}
			form, url := elicitationModes(req)
			decoded := req.ClientCapabilities()
			assert.Equal(t, clientSupportsForm(decoded), form, "form")
			assert.Equal(t, clientSupportsURL(decoded), url, "url")
		})
	}
}

// TestFormSchemaKeepsOrder: Schema marshals to the bytes the client is sent,
// properties in field order.
func TestFormSchemaKeepsOrder(t *testing.T) {
	form, err := NewForm[Answers]([]AutoFormField{{Name: "zeta"}, {Name: "alpha"}, {Name: "mid", Type: TypeInteger}}, nil)
	require.NoError(t, err)
	b, err := json.Marshal(form.Schema())
	require.NoError(t, err)
	assert.Equal(t, string(form.c.schema), string(b))
}

// signupFields are the README form's fields, as a field list.
var signupFields = []AutoFormField{
	{Name: "email", Label: "Email", Type: TypeEmail, Required: true},
	{Name: "plan", Label: "Plan", Required: true, Options: []Option{{Value: "pro"}, {Value: "team"}}},
	{Name: "seats", Type: TypeInteger, Min: Bound(1), Max: Bound(50)},
}

// keyedForm compiles fields with keys, so that the form can be asked in a
// view and, with model, through the model.
func keyedForm(t testing.TB, fields []AutoFormField, model bool) *Form[Answers] {
	t.Helper()
	_, codec, _ := newFlowFixture(t)
	form, err := NewForm[Answers](fields, &FormOptions{Key: "signup", Message: "Create your account", AskModel: model,
		Codec: codec, Principal: tokenUser})
	require.NoError(t, err)
	return form
}

// formHostServer serves one form with the README's handler: read the
// answer, ask when there is none, ask again when a value is refused. The
// form has keys unless keyless is set.
func formHostServer(t *testing.T, model bool, keyless ...bool) *hostServer {
	t.Helper()
	// The in-process client authenticates no one: every caller is one.
	_, codec, _ := newFlowFixture(t)
	form, err := NewForm[Answers](signupFields, &FormOptions{Key: "signup", Message: "Create your account", AskModel: model,
		Codec: codec, EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	if len(keyless) > 0 && keyless[0] {
		form, err = NewForm[Answers](signupFields, &FormOptions{Key: "signup", Message: "Create your account"})
		require.NoError(t, err)
	}
	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(AppsExtension, nil)
	h := &hostServer{server: mcp.NewServer(&mcp.Implementation{Name: "form", Version: "v0"}, &mcp.ServerOptions{Capabilities: caps})}
	require.NoError(t, AddViewer(h.server, nil))
	tool := &mcp.Tool{Name: "signup", InputSchema: map[string]any{"type": "object"}}
	require.NoError(t, AttachViewer(tool, nil)) // the companion reaches no other tool
	h.server.AddTool(tool,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			reply := form.ReadCall(req)
			switch reply.Status {
			case ReplyNone:
				return form.Ask(req, "")
			case ReplyInvalid:
				return form.Reask(reply, ""), nil
			case ReplyAccepted:
				msg := fmt.Sprintf("created %v on %v with %v seats", reply.Value["email"], reply.Value["plan"], reply.Value["seats"])
				h.done.Store(reply.Path, msg)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: reply.Status.String()}}}, nil
		})
	return h
}

// TestFormHosts runs the README's one-form handler on each kind of host:
// the form is asked natively, in a view, or through the model, and a
// bare host that was not opted in gets -32021; the reply says the path.
// Without keys, the form is asked natively only.
func TestFormHosts(t *testing.T) {
	const done = "created ada@example.com on team with 12 seats"
	for _, tt := range []struct {
		host    host
		model   bool
		keyless bool
		trace   []string // nil for -32021
		path    Path
	}{
		{host{name: "full", version: "2026-07-28", form: true, url: true}, false, false, []string{"form:email,plan,seats"}, PathNative},
		{host{name: "full, no keys", version: "2026-07-28", form: true, url: true}, false, true, []string{"form:email,plan,seats"}, PathNative},
		{host{name: "older editor", version: "2025-11-25", form: true}, false, false, []string{"form:email,plan,seats"}, PathLegacy},
		{host{name: "Apps-only", version: "2025-11-25", apps: true}, false, false, []string{"view:email,plan,seats"}, PathView},
		{host{name: "Apps-only", version: "2026-07-28", apps: true}, false, false, []string{"view:email,plan,seats"}, PathView},
		{host{name: "Apps-only, no keys", version: "2026-07-28", apps: true}, false, true, nil, 0},
		{host{name: "bare", version: "2026-07-28"}, true, false, []string{"model:email,plan,seats"}, PathModel},
		{host{name: "bare, not opted in", version: "2026-07-28"}, false, false, nil, 0},
	} {
		t.Run(tt.host.name+" "+tt.host.version, func(t *testing.T) {
			d := &hostDriver{t: t, h: formHostServer(t, tt.model, tt.keyless)}
			res, err := d.run(d.connect(tt.host), "signup")
			if tt.trace == nil {
				var rpcErr *jsonrpc.Error
				require.ErrorAs(t, err, &rpcErr)
				assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), rpcErr.Code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, done, res.Content[0].(*mcp.TextContent).Text)
			assert.Equal(t, tt.trace, d.trace)
			_, ok := d.h.done.Load(tt.path)
			assert.True(t, ok, "the reply's path is %v", tt.path)
		})
	}
}

// TestFormReaskPaths checks that a refused answer from a view or the
// model is asked again the same way, naming the problem and keeping the
// good values, and that a form with a checkbox is never asked through the
// model.
func TestFormReaskPaths(t *testing.T) {
	form := keyedForm(t, signupFields[:2], true)
	// A view and the model say the same: how to fix it.
	says := []string{"Email must be an email address, like name@example.com", "Email must be an email address, like name@example.com."}
	// A view sends the tool's own arguments back as text, which no
	// JavaScript rounds; the model, as JSON.
	back := []string{`"arguments":{"mcpformArguments":"{\"other\":1}","mcpform":"`, `"arguments":{"other":1,"mcpform":"`}
	for i, meta := range []mcp.Meta{appsMeta(), bareMeta()} {
		first, err := form.Ask(argsCall(t, meta, "alice", "signup", map[string]any{"other": 1}), "")
		require.NoError(t, err)
		state := stateOf(t, first)
		reply := form.ReadCall(argsCall(t, meta, "alice", "signup", map[string]any{StateArgument: state, "email": "ada", "plan": "pro", "other": 1}))
		require.Equal(t, ReplyInvalid, reply.Status)
		again := wireJSON(t, form.Reask(reply, "s2"))
		assert.Contains(t, again, says[i])
		assert.Contains(t, again, back[i], "the tool's own arguments go back")
		assert.NotContains(t, again, `"s2"`, "the form's own state travels, not the handler's")
		assert.Equal(t, ReplyNone, form.ReadCall(argsCall(t, meta, "alice", "signup", map[string]any{"email": "ada@example.com", "plan": "pro"})).Status,
			"arguments without the state are the tool's own, not an answer")
	}

	_, codec, _ := newFlowFixture(t)
	confirm, err := NewForm[Answers]([]AutoFormField{{Name: "sure", Type: TypeCheckbox, Required: true}},
		&FormOptions{AskModel: true, Codec: codec, EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	_, err = confirm.Ask(argsCall(t, bareMeta(), "alice", "delete", nil), "")
	var rpcErr *jsonrpc.Error
	require.ErrorAs(t, err, &rpcErr, "a confirmation fails closed")
	assert.Equal(t, int64(mcp.CodeMissingRequiredClientCapabilities), rpcErr.Code)
}

// stateOf returns the state a view or model result carries.
func stateOf(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	var c struct {
		Arguments map[string]any `json:"arguments"`
	}
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, res.StructuredContent)), &c))
	s, _ := c.Arguments[StateArgument].(string)
	require.NotEmpty(t, s, "no state in the arguments")
	return s
}

// TestFormOptionsKeys refuses, when the form is compiled, the model path
// without keys and keys without a principal.
func TestFormOptionsKeys(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	for _, opts := range []*FormOptions{
		{AskModel: true},
		{Codec: codec},
		{Codec: codec, AskModel: true},
	} {
		_, err := NewForm[Answers](signupFields, opts)
		assert.Error(t, err, "%+v", opts)
	}
	_, err := NewForm[Answers](signupFields, &FormOptions{Codec: codec, EveryCallerIsSamePerson: true, AskModel: true})
	assert.NoError(t, err)
}

// TestFormDecline declines the README's one form in an Apps view, with its
// Decline button, and through the model, as the contract says: ReadCall
// gives ReplyDeclined. Any other value of the action argument is
// ReplyInvalid, naming the problem, and a re-ask on the same path.
func TestFormDecline(t *testing.T) {
	for _, tt := range []struct {
		host  host
		model bool
		trace string
	}{
		{host{name: "Apps-only", version: "2025-11-25", apps: true}, false, "view:decline"},
		{host{name: "Apps-only", version: "2026-07-28", apps: true}, false, "view:decline"},
		{host{name: "bare", version: "2026-07-28"}, true, "model:decline"},
	} {
		t.Run(tt.host.name+" "+tt.host.version, func(t *testing.T) {
			d := &hostDriver{t: t, h: formHostServer(t, tt.model), declineAt: 1}
			res, err := d.run(d.connect(tt.host), "signup")
			require.NoError(t, err)
			assert.Equal(t, "declined", res.Content[0].(*mcp.TextContent).Text)
			assert.Equal(t, []string{tt.trace}, d.trace)
		})
	}

	form := keyedForm(t, []AutoFormField{{Name: "email", Type: TypeEmail, Required: true}}, true)
	for _, meta := range []mcp.Meta{appsMeta(), bareMeta()} {
		for _, bad := range []any{"accept", "cancel", "", 1.0, nil, map[string]any{}} {
			first, err := form.Ask(argsCall(t, meta, "alice", "signup", nil), "")
			require.NoError(t, err)
			reply := form.ReadCall(argsCall(t, meta, "alice", "signup", map[string]any{StateArgument: stateOf(t, first), prefab.ActionArgument: bad, "email": "ada@example.com"}))
			assert.Equal(t, ReplyInvalid, reply.Status, "%#v", bad)
			require.Len(t, reply.Problems, 1)
			assert.ErrorIs(t, reply.Problems[0], errArgumentAction)
			again := wireJSON(t, form.Reask(reply, "s2"))
			assert.Contains(t, again, `"arguments":{"mcpform":"`, "asked again on the same path")
		}
	}
}

// TestFormStateOfAnotherForm: a state minted to ask one form is no state
// for another form of the same key, tool and codec, though it verifies:
// the state names the questions it asked, so a note's state, sent with
// an answer to a confirmation that is never asked through the model,
// confirms nothing, and a flow's step asked under a state of other
// questions is asked again as it is.
func TestFormStateOfAnotherForm(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	note, err := NewForm[Answers]([]AutoFormField{{Name: "note"}}, &FormOptions{Codec: codec, Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	confirm, err := NewForm[Answers]([]AutoFormField{{Name: "sure", Type: TypeCheckbox, Required: true}},
		&FormOptions{Codec: codec, Principal: tokenUser, AskModel: true})
	require.NoError(t, err)
	_, err = confirm.Ask(directCall(t, bareMeta(), "alice", "delete", nil), "")
	require.Error(t, err, "a confirmation is never asked through the model")

	res, err := note.Ask(directCall(t, bareMeta(), "alice", "delete", nil), "")
	require.NoError(t, err)
	var c struct {
		Arguments map[string]any `json:"arguments"`
	}
	require.NoError(t, json.Unmarshal([]byte(wireJSON(t, res.StructuredContent)), &c))
	state := c.Arguments[StateArgument].(string)

	reply := note.ReadCall(directCall(t, bareMeta(), "alice", "delete", map[string]any{StateArgument: state, "note": "hi"}))
	require.Equal(t, ReplyAccepted, reply.Status, "the note's own state answers it")
	reply = confirm.ReadCall(directCall(t, bareMeta(), "alice", "delete", map[string]any{StateArgument: state, "sure": true}))
	assert.NotEqual(t, ReplyAccepted, reply.Status, "%v %v", reply.Path, reply.Answers)
	assert.Nil(t, reply.Answers["sure"])
}
