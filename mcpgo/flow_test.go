package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
)

type principalKey struct{}

// signupFlow is the two-step signup: the account, then the team for the
// team plan only. Its principal is what the server's context carries.
func signupFlow(t testing.TB) *mcpform.Flow { return signupFlowFor(t, nil) }

// signupFlowFor is signupFlow with go-sdk's principal option too, for
// comparing the faces on one flow.
func signupFlowFor(t testing.TB, principal func(*gosdk.CallToolRequest) string) *mcpform.Flow {
	return signupFlowWith(t, principal, nil)
}

// signupFlowWith is signupFlowFor keeping its outcomes in outcomes.
func signupFlowWith(t testing.TB, principal func(*gosdk.CallToolRequest) string, outcomes mcpform.Outcomes) *mcpform.Flow {
	return teamFlow(t, mcpform.FlowOptions{Principal: principal, Outcomes: outcomes})
}

func ptr[T any](v T) *T { return &v }

// teamFlow is the signup flow with opts, whose principal is the
// context's, unless opts.Principal names one: it asks the team step on the
// Team plan alone.
func teamFlow(t testing.TB, opts mcpform.FlowOptions) *mcpform.Flow {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	opts.ContextPrincipal = func(ctx context.Context) string {
		p, _ := ctx.Value(principalKey{}).(string)
		return p
	}
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{
		{Key: "account", Message: "Create your account", Fields: []mcpform.AutoFormField{
			{Name: "email", Type: mcpform.TypeEmail, Required: true},
			{Name: "plan", Required: true, Options: []mcpform.Option{{Value: "pro", Label: "Pro"}, {Value: "team", Label: "Team"}}},
		}},
		{Key: "team", Message: "Tell us about your team", When: func(a mcpform.Answers) bool { return a["plan"] == "team" },
			Fields: []mcpform.AutoFormField{{Name: "seats", Type: mcpform.TypeInteger, Required: true, Min: ptr(2.0)}}},
	}, &opts)
	require.NoError(t, err)
	return flow
}

// signupServer serves "signup" on mcpgo.Next. Each run creates its
// account once: the first outcome under a run ID wins, and a replay gets
// it again and creates nothing. last keeps the final round's request.
type signupServer struct {
	*server.MCPServer
	mu       sync.Mutex
	outcomes map[string]string
	created  int
	last     mcp.CallToolRequest
}

func newSignupServer(t testing.TB, flow *mcpform.Flow) *signupServer {
	s := &signupServer{outcomes: map[string]string{}}
	s.MCPServer = server.NewMCPServer("signup", "v0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("signup"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx = context.WithValue(ctx, principalKey{}, "alice")
		round, err := mcpgo.Next(ctx, flow, req)
		if err != nil {
			return nil, err
		}
		switch round.Status {
		case mcpform.FlowAsk:
			return round.Result, nil
		case mcpform.FlowDone:
			s.mu.Lock()
			defer s.mu.Unlock()
			s.last = req
			out, ok := s.outcomes[round.ID]
			if !ok {
				s.created++
				out = fmt.Sprintf("created %s plan=%s seats=%v", round.Answers["email"], round.Answers["plan"], round.Answers["seats"])
				s.outcomes[round.ID] = out
			}
			return mcp.NewToolResultText(out), nil
		}
		return mcp.NewToolResultText(round.Status.String() + " " + round.Step), nil
	})
	return s
}

// TestFlowWhen: the two-step flow through mcp-go's client and server, on
// both protocols: the team plan is asked its second step, the pro plan is
// not, and a refused answer is asked again.
func TestFlowWhen(t *testing.T) {
	flow := signupFlow(t)
	// Where each step stands, as its view says it (issue 34), then its
	// message.
	const account, team = "Step 1 of up to 2\n\nCreate your account", "Step 2 of 2\n\nTell us about your team"
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			for _, tt := range []struct {
				name    string
				answers []*mcp.ElicitationResult
				want    string
				asked   []string
			}{
				{"team", []*mcp.ElicitationResult{
					accept(map[string]any{"email": "ada@example.com", "plan": "team"}),
					accept(map[string]any{"seats": 1}),
					accept(map[string]any{"seats": 5}),
				}, "created ada@example.com plan=team seats=5", []string{account, team, team}},
				{"pro", []*mcp.ElicitationResult{
					accept(map[string]any{"email": "bo@example.com", "plan": "pro"}),
				}, "created bo@example.com plan=pro seats=<nil>", []string{account}},
				{"declined", []*mcp.ElicitationResult{
					accept(map[string]any{"email": "cy@example.com", "plan": "team"}), decline(),
				}, "declined team", []string{account, team}},
			} {
				t.Run(tt.name, func(t *testing.T) {
					p := &person{answers: tt.answers}
					c := connect(t, newSignupServer(t, flow).MCPServer, p, proto.opts...)
					res, err := callTool(t, c, "signup")
					require.NoError(t, err)
					assert.Equal(t, tt.want, text(t, res))
					var asked []string
					for _, a := range p.asked {
						paras := strings.SplitN(a.Message, "\n\n", 3) // no problem named
						asked = append(asked, strings.Join(paras[:min(2, len(paras))], "\n\n"))
					}
					assert.Equal(t, tt.asked, asked)
					if len(p.asked) == 3 {
						assert.Contains(t, p.asked[2].Message, "Seats must be 2 or more.", "the re-ask names the problem")
					}
				})
			}
		})
	}
}

// TestFlowNoElicitation: a client that declared no elicitation is not
// asked: in process, as on every transport (TestServeSpecCodes), mcp-go
// sends the handler's error as the spec's -32021 with its data, which
// mcp-go's client reads as its MissingRequiredClientCapabilityError.
func TestFlowNoElicitation(t *testing.T) {
	flow := signupFlow(t)
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			c := connect(t, newSignupServer(t, flow).MCPServer, nil, proto.opts...)
			_, err := callTool(t, c, "signup")
			require.Error(t, err)
			assert.True(t, mcp.IsMissingRequiredClientCapability(err), "%v", err)
			resp := rawCall(t, c, "signup", "", map[string]any{})
			require.NotNil(t, resp.Error, "want an error, got %s", resp.Result)
			assert.Equal(t, mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, resp.Error.Code)
			assert.Equal(t, "Missing required client capabilities", resp.Error.Message)
			assert.JSONEq(t, `{"requiredCapabilities":{"elicitation":{"form":{}}}}`, dataJSON(t, resp.Error.Data))
		})
	}
}

// TestFlowTamperedState: a state that does not verify (flipped, from
// another principal's run, or junk) is refused with the spec's message.
func TestFlowTamperedState(t *testing.T) {
	flow := signupFlow(t)
	first := func(principal string) string {
		var req mcp.CallToolRequest
		req.Params.Name = "signup"
		req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{
			mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}}}}
		r, err := mcpgo.Next(context.WithValue(context.Background(), principalKey{}, principal), flow, req)
		require.NoError(t, err)
		return r.Result.RequestState
	}
	good := first("alice")
	flipped := []byte(good)
	flipped[len(flipped)/2] ^= 1
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			for name, state := range map[string]string{"flipped": string(flipped), "bob's": first("bob"), "junk": "x.y.z"} {
				t.Run(name, func(t *testing.T) {
					s := newSignupServer(t, flow)
					c := connect(t, s.MCPServer, &person{}, proto.opts...)
					resp := sendRaw(t, c, "signup", state, nil)
					require.NotNil(t, resp.Error)
					// The spec's -32602, in process as on every transport.
					assert.Equal(t, mcp.INVALID_PARAMS, resp.Error.Code)
					assert.Equal(t, "Invalid or expired requestState", resp.Error.Message)
					assert.JSONEq(t, `{"reason":"invalid_request_state"}`, dataJSON(t, resp.Error.Data))
					assert.Zero(t, s.created)
				})
			}
		})
	}
	// The error the handler gets names mcp-go's and mcpform's errors.
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.RequestState = "signup", string(flipped)
	_, err := mcpgo.Next(context.WithValue(context.Background(), principalKey{}, "alice"), flow, req)
	assert.ErrorIs(t, err, mcp.ErrInvalidParams)
	assert.True(t, errors.Is(err, mcpform.ErrMAC) || errors.Is(err, mcpform.ErrMalformed), "%v", err)
	assert.NotContains(t, err.Error(), string(flipped))
}

// TestFlowReplay: the final round replayed, unchanged, finishes the flow
// again with the same run ID, and the handler, keyed on it, creates
// nothing twice.
func TestFlowReplay(t *testing.T) {
	flow := signupFlow(t)
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			s := newSignupServer(t, flow)
			p := &person{answers: []*mcp.ElicitationResult{
				accept(map[string]any{"email": "ada@example.com", "plan": "team"}),
				accept(map[string]any{"seats": 5}),
			}}
			c := connect(t, s.MCPServer, p, proto.opts...)
			res, err := callTool(t, c, "signup")
			require.NoError(t, err)
			want := text(t, res)
			require.Equal(t, 1, s.created)
			require.NotEmpty(t, s.last.Params.RequestState)

			// Again, with other answers to the last step: still the first outcome.
			other := mcp.InputResponses{"team": mcp.NewElicitationInputResponse(*accept(map[string]any{"seats": 9}))}
			for _, responses := range []mcp.InputResponses{s.last.Params.InputResponses, other} {
				assert.Equal(t, want, rawText(t, sendRaw(t, c, "signup", s.last.Params.RequestState, responses)))
			}
			assert.Equal(t, 1, s.created, "a replay created a second account")
		})
	}
}

// TestNextPrincipalFace: a flow whose principal is read only on go-sdk's
// face is refused here rather than bound to no one.
func TestNextPrincipalFace(t *testing.T) {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	steps := []mcpform.Step{{Key: "k", Fields: []mcpform.AutoFormField{{Name: "a"}}}}
	goSDKOnly, err := mcpform.NewFlow(codec, steps, &mcpform.FlowOptions{
		Principal: func(*gosdk.CallToolRequest) string { return "alice" }})
	require.NoError(t, err)
	_, err = mcpform.NewFlow(codec, steps, nil)
	assert.ErrorContains(t, err, "EveryCallerIsSamePerson", "a flow says who calls, or that every caller is one person")
	none, err := mcpform.NewFlow(codec, steps, &mcpform.FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	var req mcp.CallToolRequest
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{
		mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}}}}
	_, err = mcpgo.Next(context.Background(), goSDKOnly, req)
	assert.ErrorContains(t, err, "ContextPrincipal")
	r, err := mcpgo.Next(context.Background(), none, req)
	require.NoError(t, err, "every caller is one principal, \"\"")
	assert.Equal(t, mcpform.FlowAsk, r.Status)
	_, err = mcpgo.Next(context.Background(), nil, req)
	assert.Error(t, err)
}

// TestNextEmptyPrincipal: a call whose ContextPrincipal reads "" is
// refused on its first round, before anyone is asked, unless the flow
// says every caller is the same person.
func TestNextEmptyPrincipal(t *testing.T) {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	steps := []mcpform.Step{{Key: "k", Fields: []mcpform.AutoFormField{{Name: "a"}}}}
	nobody := func(context.Context) string { return "" }
	var req mcp.CallToolRequest
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{
		mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}}}}
	flow, err := mcpform.NewFlow(codec, steps, &mcpform.FlowOptions{ContextPrincipal: nobody})
	require.NoError(t, err)
	r, err := mcpgo.Next(context.Background(), flow, req)
	assert.Nil(t, r)
	require.Error(t, err)
	assert.ErrorContains(t, err, `returned ""`)
	assert.ErrorContains(t, err, "EveryCallerIsSamePerson")

	same, err := mcpform.NewFlow(codec, steps, &mcpform.FlowOptions{ContextPrincipal: nobody, EveryCallerIsSamePerson: true})
	require.NoError(t, err)
	r, err = mcpgo.Next(context.Background(), same, req)
	require.NoError(t, err)
	assert.Equal(t, mcpform.FlowAsk, r.Status)
}

// TestNextIgnoresForgedArguments (issue 22, finding 1, on mcp-go's face):
// a first call whose arguments carry answers and a made-up state never
// finishes a step: the state is refused, or the step is asked.
func TestNextIgnoresForgedArguments(t *testing.T) {
	flow := signupFlow(t)
	ctx := context.WithValue(context.Background(), principalKey{}, "alice")
	for _, state := range []string{"", "v1.x.y", "s1.AAAA"} {
		t.Run(fmt.Sprintf("state %q", state), func(t *testing.T) {
			req := mcpgoCall("", nil)
			req.Params.Arguments = map[string]any{"mcpform": state, "email": "victim@example.com", "plan": "pro"}
			r, err := mcpgo.Next(ctx, flow, req)
			if err != nil {
				assert.ErrorIs(t, err, mcp.ErrInvalidParams, "a made-up state is a bad state")
				return
			}
			assert.Equal(t, mcpform.FlowAsk, r.Status, "the person is asked")
			assert.Empty(t, r.Answers)
		})
	}
}

// TestNoViewer: on mcp-go's face too, a round that would show an MCP
// Apps view, in a process where no viewer was ever made, fails on the
// first call, naming AddViewer. It runs in a process of its own, where
// no other test has made one.
func TestNoViewer(t *testing.T) {
	if os.Getenv("MCPFORM_NO_VIEWER") == "1" {
		codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
			Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
		require.NoError(t, err)
		flow, err := mcpform.NewFlow(codec, []mcpform.Step{{Key: "k", Fields: []mcpform.AutoFormField{{Name: "a"}}}},
			&mcpform.FlowOptions{EveryCallerIsSamePerson: true})
		require.NoError(t, err)
		var req mcp.CallToolRequest
		req.Params.Name = "t"
		req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyClientCapabilities: map[string]any{
			"extensions": map[string]any{mcpform.AppsExtension: map[string]any{"mimeTypes": []any{mcpform.AppMIMEType}}}}}}
		r, err := mcpgo.Next(context.Background(), flow, req)
		assert.Nil(t, r)
		require.Error(t, err)
		assert.ErrorContains(t, err, "no viewer was registered")
		assert.ErrorContains(t, err, "mcpgo.AddViewer")

		require.NoError(t, mcpgo.AddViewer(server.NewMCPServer("v", "v0"), nil))
		r, err = mcpgo.Next(context.Background(), flow, req)
		require.NoError(t, err)
		assert.Equal(t, mcpform.FlowAsk, r.Status)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoViewer$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MCPFORM_NO_VIEWER=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "PASS")
}

// TestFlowRoundOutcome: mcp-go's face builds an Outcome's result as
// go-sdk's does: a run that did not complete is headed "Not completed" in
// its language, and the person's heading and summary come apart from the
// model's sentence.
func TestFlowRoundOutcome(t *testing.T) {
	for _, tt := range []struct {
		name        string
		round       *mcpgo.FlowRound
		o           mcpform.Outcome
		wantContent []string
		wantEnd     string
		wantLang    any
	}{
		{"declined", &mcpgo.FlowRound{Status: mcpform.FlowDeclined, Language: language.Japanese},
			mcpform.Outcome{Text: "Signup not completed."}, []string{"完了しませんでした", "Signup not completed."}, "not-completed", "ja"},
		{"cancelled", &mcpgo.FlowRound{Status: mcpform.FlowCancelled, Language: language.English},
			mcpform.Outcome{Heading: "", Text: "Cancelled."}, []string{"Not completed", "Cancelled."}, "not-completed", nil},
		{"done", &mcpgo.FlowRound{Status: mcpform.FlowDone, Language: language.English},
			mcpform.Outcome{Heading: "Account created", Summary: []string{"Email: ada@example.com"}, Text: "Created."},
			[]string{"Account created\nEmail: ada@example.com", "Created."}, "completed", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.round.Outcome(&tt.o)
			require.NoError(t, err)
			var content []string
			for _, c := range res.Content {
				content = append(content, c.(mcp.TextContent).Text)
			}
			assert.Equal(t, tt.wantContent, content)
			b, err := json.Marshal(res.StructuredContent)
			require.NoError(t, err)
			var sc map[string]any
			require.NoError(t, json.Unmarshal(b, &sc))
			assert.Equal(t, tt.wantEnd, sc["mcpformEnd"])
			var lang any
			if res.Meta != nil {
				lang = res.Meta.AdditionalFields["io.modelcontextprotocol/contentLanguage"]
			}
			assert.Equal(t, tt.wantLang, lang)
		})
	}
}

// TestFlowCheckAnswers: on mcp-go's face too, a flow with CheckAnswers
// asks, natively, whether the answers are right before it finishes; a
// change asks the step again, and "keep" finishes with the new answer.
func TestFlowCheckAnswers(t *testing.T) {
	flow := teamFlow(t, mcpform.FlowOptions{CheckAnswers: true, Commit: "Create account"})
	for _, proto := range protocols {
		t.Run(proto.name, func(t *testing.T) {
			p := &person{answers: []*mcp.ElicitationResult{
				accept(map[string]any{"email": "ada@example.com", "plan": "team"}),
				accept(map[string]any{"seats": 5}),
				accept(map[string]any{"mcpformChange": "change:account"}),
				accept(map[string]any{"email": "bo@example.com", "plan": "team"}),
				accept(map[string]any{"mcpformChange": "keep"}),
			}}
			c := connect(t, newSignupServer(t, flow).MCPServer, p, proto.opts...)
			res, err := callTool(t, c, "signup")
			require.NoError(t, err)
			assert.Equal(t, "created bo@example.com plan=team seats=5", text(t, res))
			require.Len(t, p.asked, 5)
			check := p.asked[2].Message
			for _, want := range []string{"Check your answers", "Email: ada@example.com", "Plan: Team", "Seats: 5"} {
				assert.Contains(t, check, want)
			}
			assert.Equal(t, "Step 1 of up to 2\n\nCreate your account", p.asked[3].Message, "the step to change, where it stands")
			assert.Contains(t, p.asked[4].Message, "Email: bo@example.com", "checked again")
		})
	}
}
