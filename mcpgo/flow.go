package mcpgo

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"golang.org/x/text/language"
)

// A FlowRound is the outcome of one call of [Next]: [mcpform.FlowRound]
// with an mcp-go result.
type FlowRound struct {
	Status mcpform.FlowStatus
	// Result is, for mcpform.FlowAsk, the result that asks, to return
	// from the handler as it is: input_required, or an ordinary result
	// that shows a view, gives a secret page's link or asks the model
	// (see "Paths" in the package doc); nil otherwise. The schema bytes
	// and a view's structuredContent are shared with other asks of the
	// step: never modify them.
	Result *mcp.CallToolResult
	// Answers are the answers proven so far: all of them for FlowDone,
	// and those of the steps before Step otherwise. Never nil.
	Answers mcpform.Answers
	// Step is the key of the step asked, declined, cancelled or failed;
	// "" for FlowDone.
	Step string
	// Problems say why Step is asked again or has failed.
	Problems []*mcpform.FieldError
	// Attempt counts the failed answers Step has had, from 0.
	Attempt int
	// ID identifies this run of the flow, the same in every round and
	// replay of it: key whatever FlowDone triggers on it.
	ID string

	// Path is the way this call's answers came, as
	// [mcpform.FlowRound].Path says.
	Path mcpform.Path
	// Language is the language the flow speaks to the person, as
	// [mcpform.FlowRound].Language says: Result carries it as
	// contentLanguage, and a handler that writes its own result in it
	// marks it with [ContentLanguage].
	Language language.Tag

	flow *mcpform.Flow      // for Once
	core *mcpform.FlowRound // the core's round, for Once
}

// Next runs one round of flow for the tool call req, as
// [mcpform.Flow.Next] does for go-sdk: the same steps, checks, pins,
// secrets and state, bound to the principal, the tool and the call's
// arguments. ctx is the tool handler's: the flow's principal is
// FlowOptions.ContextPrincipal(ctx), and on the legacy handshake the
// session's capabilities are read through it. A flow whose options set
// only Principal, go-sdk's, is refused rather than bound to no one.
//
// A state that does not verify, has expired, or was minted for another
// principal, tool or set of arguments returns the error for an invalid
// request state; a client that cannot answer the step, the error for a
// missing capability (see the package doc for both). The handler returns
// either as it is. Other errors report misuse.
//
// A client on the legacy handshake is served by mcp-go's own bridge, which
// asks with elicitation/create and calls the handler again, every round of
// the flow, up to ten. Once the person has consented to a secret page's
// link, Next waits for the page, running the flow again every second for
// up to ten minutes, rather than have the bridge ask again; unlike go-sdk's
// face, it sends no notifications/elicitation/complete, which mcp-go's
// bridge has no place for. The calls that wait so are bounded as those of
// go-sdk's mcpform.AddLegacyRounds with its defaults, by the same policy
// in the core: 4 per session and 1000 in all (mcp-go names no client, so
// there is no bound per client). A call beyond a bound ends at once with
// a JSON-RPC error, code -32603, that says which, the words go-sdk's face
// sends.
func Next(ctx context.Context, flow *mcpform.Flow, req mcp.CallToolRequest) (*FlowRound, error) {
	if flow == nil {
		return nil, errors.New("mcpform: Next on a flow without steps")
	}
	// The round, the call and the result in one allocation: mcp-go's
	// types are large, and a round is mostly their making.
	box := &struct {
		round FlowRound
		call  call
		res   resultBox
	}{}
	box.call.read(ctx, &req)
	r, p, err := next(ctx, flow, &box.call)
	if err != nil {
		return nil, err
	}
	out := &box.round
	*out = FlowRound{Status: r.Status, Result: render(&box.res, p), Answers: r.Answers,
		Step: r.Step, Problems: r.Problems, Attempt: r.Attempt, ID: r.ID, Path: r.Path, Language: r.Language,
		flow: flow, core: r}
	return out, nil
}
