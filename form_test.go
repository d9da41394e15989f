package mcpform

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

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
	assert.Equal(t, "Book a room\n\nPlease check: Seats: greater than the maximum 6.", p.Message)
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
