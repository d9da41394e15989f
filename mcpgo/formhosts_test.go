package mcpgo_test

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpformtest"
	"github.com/mcpform/mcpform/mcpgo"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seatsForm is what the lone form asks.
type seatsForm struct {
	Email string `json:"email" mcpform:"label=Email,type=email"`
	Seats int    `json:"seats" mcpform:"label=Seats,min=1,max=50"`
}

// loneForm is a form with a Codec, asked through the model where nothing
// else can ask it.
func loneForm(t *testing.T) *mcpform.Form[seatsForm] {
	t.Helper()
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true})
	require.NoError(t, err)
	form, err := mcpform.FormFor[seatsForm](&mcpform.FormOptions{Key: "signup", Message: "Sign up",
		Codec: codec, ContextPrincipal: func(context.Context) string { return "alice" }, AskModel: true})
	require.NoError(t, err)
	return form
}

// outcomeText is what both faces' handlers answer a reply with.
func outcomeText(r mcpform.Reply[seatsForm]) string {
	if r.Status == mcpform.ReplyAccepted {
		return fmt.Sprintf("signed up %s for %d seats by %s", r.Value.Email, r.Value.Seats, r.Path)
	}
	return "not signed up: " + r.Status.String()
}

// mcpgoFormServer serves the lone form on mcp-go, every path on.
func mcpgoFormServer(t *testing.T, form *mcpform.Form[seatsForm]) *server.MCPServer {
	srv := server.NewMCPServer("lone", "v0", server.WithToolCapabilities(false),
		server.WithExtensions(map[string]any{mcpform.AppsExtension: map[string]any{}}))
	require.NoError(t, mcpgo.AddViewer(srv, nil))
	tool := mcp.NewToolWithRawSchema("signup", "", []byte(`{"type":"object"}`))
	require.NoError(t, mcpgo.AttachViewer(&tool, nil))
	srv.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		switch reply := mcpgo.ReadCall(ctx, form, req); reply.Status {
		case mcpform.ReplyNone:
			return mcpgo.Ask(ctx, form, req, "")
		case mcpform.ReplyInvalid:
			return mcpgo.Reask(form, reply, ""), nil
		default:
			return mcp.NewToolResultText(outcomeText(reply)), nil
		}
	})
	return srv
}

// gosdkFormServer serves the same form on go-sdk.
func gosdkFormServer(t *testing.T, form *mcpform.Form[seatsForm]) *gosdk.Server {
	caps := &gosdk.ServerCapabilities{}
	caps.AddExtension(mcpform.AppsExtension, nil)
	srv := gosdk.NewServer(&gosdk.Implementation{Name: "lone", Version: "v0"}, &gosdk.ServerOptions{Capabilities: caps})
	require.NoError(t, mcpform.AddViewer(srv, nil))
	tool := &gosdk.Tool{Name: "signup", InputSchema: map[string]any{"type": "object"}}
	require.NoError(t, mcpform.AttachViewer(tool, nil))
	srv.AddTool(tool, func(ctx context.Context, req *gosdk.CallToolRequest) (*gosdk.CallToolResult, error) {
		switch reply := form.ReadCall(req); reply.Status {
		case mcpform.ReplyNone:
			return form.Ask(req, "")
		case mcpform.ReplyInvalid:
			return form.Reask(reply, ""), nil
		default:
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: outcomeText(reply)}}}, nil
		}
	})
	mcpform.AddLegacyRounds(srv, nil)
	return srv
}

// TestFormOnEveryHost: a lone form on an mcp-go server is asked on each
// kind of host on the path go-sdk's face takes (a form, elicitation/create,
// a view, the model), shows the same questions, names the same problems,
// and ends the same way, in English and in Spanish.
func TestFormOnEveryHost(t *testing.T) {
	bad := mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 51})
	good := mcpformtest.Accept(map[string]any{"email": "ada@example.com", "seats": 5})
	var hosts []mcpformtest.Host
	for _, host := range mcpformtest.Hosts() {
		es := host
		es.Name, es.Language = host.Name+" in Spanish", "es"
		hosts = append(hosts, host, es)
	}
	for _, host := range hosts {
		path := mcpformtest.PathModel
		switch {
		case host.Form && host.Protocol == mcpformtest.Latest:
			path = mcpformtest.PathNative
		case host.Form:
			path = mcpformtest.PathLegacy
		case host.Apps:
			path = mcpformtest.PathView
		}
		by := map[mcpformtest.Path]string{mcpformtest.PathNative: "native", mcpformtest.PathLegacy: "legacy",
			mcpformtest.PathView: "view", mcpformtest.PathModel: "model"}[path]
		for _, tt := range []struct {
			name    string
			answers []mcpformtest.Answer
			paths   []mcpformtest.Path
			says    string
		}{
			{"re-asked, then accepted", []mcpformtest.Answer{bad, good},
				[]mcpformtest.Path{path, path, mcpformtest.PathOutcome}, "signed up ada@example.com for 5 seats by " + by},
			{"declined", []mcpformtest.Answer{mcpformtest.Decline()},
				[]mcpformtest.Path{path, mcpformtest.PathOutcome}, "not signed up: declined"},
		} {
			t.Run(host.Name+"/"+tt.name, func(t *testing.T) {
				form := loneForm(t)
				srv := mcpgoFormServer(t, form)
				tr := mcpformtest.Pipe(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
					return server.NewStdioServer(srv).Listen(ctx, in, out)
				})
				got := mcpformtest.Dial(t, tr, host).Call(context.Background(), "signup", nil, tt.answers...)
				want := mcpformtest.NewClient(t, gosdkFormServer(t, form), host).Call(context.Background(), "signup", nil, tt.answers...)
				var paths []mcpformtest.Path
				for _, r := range got.Rounds {
					paths = append(paths, r.Path)
				}
				assert.Equal(t, tt.paths, paths)
				if host.Language != "" && len(tt.answers) > 1 && path != mcpformtest.PathModel && path != mcpformtest.PathView {
					require.Len(t, got.Rounds[1].Problems, 1)
					assert.NotContains(t, got.Rounds[1].Problems[0], "greater than", "the re-ask names the problem in Spanish")
				}
				if len(tt.answers) > 1 && path != mcpformtest.PathModel {
					// The model's re-ask notes no fields for machines yet.
					assert.Equal(t, []string{"seats"}, got.Rounds[1].Fields, "the re-ask's refused fields")
				}
				assert.Equal(t, tt.says, got.Text)
				require.Equal(t, len(want.Rounds), len(got.Rounds))
				for i := range want.Rounds {
					w, g := want.Rounds[i], got.Rounds[i]
					assert.Equal(t, w.Path, g.Path, "round %d", i)
					if path != mcpformtest.PathModel || host.Language == "" {
						// The kit cuts the model's text where its English
						// goes on; in Spanish the message holds the state.
						assert.Equal(t, w.Message, g.Message, "round %d", i)
					}
					assert.Equal(t, w.Questions, g.Questions, "round %d", i)
					assert.Equal(t, w.Problems, g.Problems, "round %d", i)
					assert.Equal(t, w.Fields, g.Fields, "round %d", i)
					assert.Equal(t, w.Text, g.Text, "round %d", i)
					assert.Equal(t, w.IsError, g.IsError, "round %d", i)
				}
			})
		}
	}
}

// TestFormErrorsOnEveryFace: a lone form's errors reach each kind of
// host with the codes go-sdk's face sends: a state that does not verify
// is -32602, and a host the form cannot ask (no Codec, no elicitation)
// -32021.
func TestFormErrorsOnEveryFace(t *testing.T) {
	for _, tt := range []struct {
		name  string
		host  mcpformtest.Host
		codec bool
		args  map[string]any
		code  int64
	}{
		{"tampered state, bare", mcpformtest.Bare, true, map[string]any{mcpform.StateArgument: "not a state", "seats": 5}, -32602},
		{"tampered state, Apps-only", mcpformtest.AppsOnly, true, map[string]any{mcpform.StateArgument: "not a state"}, -32602},
		{"no Codec, bare", mcpformtest.Bare, false, nil, -32021},
		{"no Codec, Apps-only", mcpformtest.AppsOnly, false, nil, -32021},
	} {
		t.Run(tt.name, func(t *testing.T) {
			form := loneForm(t)
			if !tt.codec {
				var err error
				form, err = mcpform.FormFor[seatsForm](&mcpform.FormOptions{Key: "signup"})
				require.NoError(t, err)
			}
			srv := mcpgoFormServer(t, form)
			tr := mcpformtest.Pipe(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
				return server.NewStdioServer(srv).Listen(ctx, in, out)
			})
			got := mcpformtest.Dial(t, tr, tt.host).Call(context.Background(), "signup", tt.args)
			want := mcpformtest.NewClient(t, gosdkFormServer(t, form), tt.host).Call(context.Background(), "signup", tt.args)
			require.NotNil(t, got.Err, "mcp-go: %+v", got.Round)
			require.NotNil(t, want.Err, "go-sdk: %+v", want.Round)
			assert.Equal(t, tt.code, want.Err.Code, want.Err.Message)
			assert.Equal(t, want.Err.Code, got.Err.Code, got.Err.Message)
			assert.JSONEq(t, string(orNull(want.Err.Data)), string(orNull(got.Err.Data)))
		})
	}
}

func orNull(b []byte) []byte {
	if len(b) == 0 {
		return []byte("null")
	}
	return b
}
