package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A booking is a typed form with a date, an int, a *string and labelled
// options.
type booking struct {
	Day   time.Time `json:"day" mcpform:"label=Day,type=date"`
	Seats int       `json:"seats" mcpform:"label=Seats,min=1,max=8"`
	Note  *string   `json:"note,omitempty" mcpform:"label=Note"`
	Room  string    `json:"room" mcpform:"label=Room,options=a:Attic room|b:Basement"`
}

func bookingForm(t testing.TB) *mcpform.Form[booking] {
	form, err := mcpform.FormFor[booking](&mcpform.FormOptions{Key: "booking", Message: "Book a room"})
	require.NoError(t, err)
	return form
}

// bookingServer serves "book", a handler on mcpgo's Ask, Read and Reask.
func bookingServer(form *mcpform.Form[booking]) *server.MCPServer {
	srv := server.NewMCPServer("book", "v0", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("book"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		reply := mcpgo.Read(form, req)
		switch reply.Status {
		case mcpform.ReplyNone:
			return mcpgo.Ask(ctx, form, req, "")
		case mcpform.ReplyInvalid:
			return mcpgo.Reask(form, reply, ""), nil
		case mcpform.ReplyAccepted:
			b := reply.Value
			note := "none"
			if b.Note != nil {
				note = *b.Note
			}
			return mcp.NewToolResultText(fmt.Sprintf("%s %d %s %s", b.Day.Format(time.DateOnly), b.Seats, note, b.Room)), nil
		}
		return mcp.NewToolResultText(reply.Status.String()), nil
	})
	return srv
}

// TestFormReasked: a typed form asked through mcp-go's own client and
// server, on both protocols; an answer with a refused value is asked once
// more, naming the problem and pre-filling what was accepted, and the
// second answer decodes into the struct.
func TestFormReasked(t *testing.T) {
	form := bookingForm(t)
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			p := &person{answers: []*mcp.ElicitationResult{
				accept(map[string]any{"day": "2026-08-03", "seats": 9, "room": "b"}),
				accept(map[string]any{"day": "2026-08-03", "seats": 3, "room": "b", "note": "window"}),
			}}
			c := connect(t, bookingServer(form), p, proto.opts...)
			res, err := callTool(t, c, "book")
			require.NoError(t, err)
			assert.Equal(t, "2026-08-03 3 window b", text(t, res))

			require.Len(t, p.asked, 2)
			first, again := p.asked[0], p.asked[1]
			assert.Equal(t, "Book a room", first.Message)
			assert.Contains(t, again.Message, "Seats", "the re-ask names the refused field")
			var schema struct {
				Properties map[string]struct {
					Default any `json:"default"`
					OneOf   []struct {
						Const string `json:"const"`
						Title string `json:"title"`
					} `json:"oneOf"`
				} `json:"properties"`
			}
			b, err := json.Marshal(again.RequestedSchema)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &schema))
			assert.Equal(t, "2026-08-03", schema.Properties["day"].Default, "accepted values are pre-filled")
			assert.Nil(t, schema.Properties["seats"].Default, "the refused value is not")
			assert.Equal(t, "Attic room", schema.Properties["room"].OneOf[0].Title, "titled choices")
		})
	}
}

// TestAskSchemaAsCompiled: Ask sends the bytes Form.Schema marshals to,
// with no second encoding of its own.
func TestAskSchemaAsCompiled(t *testing.T) {
	form := bookingForm(t)
	var req mcp.CallToolRequest
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{
		mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}}}}
	res, err := mcpgo.Ask(context.Background(), form, req, "s")
	require.NoError(t, err)
	assert.Equal(t, mcp.ResultTypeInputRequired, res.ResultType)
	assert.Equal(t, "s", res.RequestState)
	in := res.InputRequests["booking"]
	require.NotNil(t, in.Elicitation)
	got, err := json.Marshal(in.Elicitation.RequestedSchema)
	require.NoError(t, err)
	want, err := json.Marshal(form.Schema())
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
}

// TestAskResultsAreOwn (issue 22, finding 9): every result Ask and Reask
// return is the caller's own. A handler that edits one, its map or its
// params, changes no other, even with concurrent calls (run with -race); a
// re-ask that names a problem or pre-fills says so in its own result only.
func TestAskResultsAreOwn(t *testing.T) {
	form := bookingForm(t)
	var req mcp.CallToolRequest
	pristine, err := mcpgo.Ask(context.Background(), form, req, "a")
	require.NoError(t, err)
	want, err := json.Marshal(pristine)
	require.NoError(t, err)
	vandalise := func(res *mcp.CallToolResult) {
		e := res.InputRequests["booking"].Elicitation
		e.Message = "edited"
		e.RequestedSchema = nil
		res.InputRequests["other"] = mcp.InputRequest{}
		delete(res.InputRequests, "booking")
	}
	vandalise(pristine)
	ask := map[string]func() *mcp.CallToolResult{
		"Ask": func() *mcp.CallToolResult {
			res, err := mcpgo.Ask(context.Background(), form, req, "a")
			require.NoError(t, err)
			return res
		},
		"Reask": func() *mcp.CallToolResult { return mcpgo.Reask(form, mcpform.Reply[booking]{}, "a") },
	}
	for name, next := range ask {
		t.Run(name, func(t *testing.T) {
			got, err := json.Marshal(next())
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got), "an edit of one result changed the next")
		})
	}
	t.Run("concurrent", func(t *testing.T) {
		done := make(chan string, 16)
		for i := range 16 {
			go func() {
				res := ask[map[bool]string{true: "Ask", false: "Reask"}[i%2 == 0]]()
				got, _ := json.Marshal(res)
				vandalise(res)
				done <- string(got)
			}()
		}
		for range 16 {
			assert.JSONEq(t, string(want), <-done)
		}
	})
	reasked := mcpgo.Reask(form, mcpform.Reply[booking]{Status: mcpform.ReplyInvalid,
		Answers: mcpform.Answers{"seats": 2}, Problems: []*mcpform.FieldError{{Field: "room", Err: mcpform.ErrInvalidValue}}}, "b")
	assert.Contains(t, reasked.InputRequests["booking"].Elicitation.Message, "Room")
	assert.Contains(t, string(reasked.InputRequests["booking"].Elicitation.RequestedSchema.(json.RawMessage)), `"default":2`)
	again, err := mcpgo.Ask(context.Background(), form, req, "c")
	require.NoError(t, err)
	assert.Equal(t, "Book a room", again.InputRequests["booking"].Elicitation.Message)
}

// TestAskRefuses: a client that declared no form elicitation, and a form
// with a secret field.
func TestAskRefuses(t *testing.T) {
	form := bookingForm(t)
	for _, tt := range []struct {
		name string
		caps any
	}{
		{"no elicitation", map[string]any{}},
		{"url only", map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var req mcp.CallToolRequest
			req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: tt.caps}}
			_, err := mcpgo.Ask(context.Background(), form, req, "")
			require.Error(t, err)
			assert.ErrorIs(t, err, mcp.MissingRequiredClientCapabilityError{})
			assert.Contains(t, err.Error(), `{"requiredCapabilities":{"elicitation":{"form":{}}}}`)
		})
	}
	secret, err := mcpform.NewForm[mcpform.Answers]([]mcpform.AutoFormField{{Name: "pw", Type: mcpform.TypePassword, Required: true}}, nil)
	require.NoError(t, err)
	_, err = mcpgo.Ask(context.Background(), secret, mcp.CallToolRequest{}, "")
	assert.ErrorContains(t, err, "secret")
}

// TestReadIgnoresArguments (issue 22, finding 1, on mcp-go's face): what a
// client puts in the tool's arguments, with or without a state argument,
// is never read as an answer; only an answer to an input request is.
func TestReadIgnoresArguments(t *testing.T) {
	form := bookingForm(t)
	forged := map[string]any{"mcpform": "", "day": "2026-08-03", "seats": 2, "room": "a"}
	for _, tt := range []struct {
		name string
		args map[string]any
	}{
		{"state argument empty", forged},
		{"state argument junk", merged(forged, "mcpform", "v1.x.y")},
		{"decline argument", map[string]any{"mcpform": "", "mcpformAction": "decline"}},
		{"no state argument", map[string]any{"day": "2026-08-03", "seats": 2, "room": "a"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := mcpgoCall("", nil)
			req.Params.Arguments = tt.args
			reply := mcpgo.Read(form, req)
			assert.Equal(t, mcpform.ReplyNone, reply.Status, "arguments are no answer")
			assert.Equal(t, mcpform.PathNone, reply.Path)
		})
	}
}

func merged(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{k: v}
	for key, val := range m {
		if key != k {
			out[key] = val
		}
	}
	return out
}
