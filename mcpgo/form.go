package mcpgo

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/seam"
)

// Ask returns f's input request for the client of req: an input_required
// result whose one elicitation, under f's key, asks for f's fields with
// the schema compiled into f, titled choices and all, carrying
// requestState (empty sends none). Return it from the tool handler as it
// is; on the legacy handshake mcp-go's bridge asks the client with
// elicitation/create and calls the handler again with the answer. The
// result is the caller's own, its InputRequests map and params included:
// editing them changes no other result. The RequestedSchema bytes, made
// once when f was compiled, are shared: read them, never write into them.
//
// To a client that declared no form elicitation in the request's _meta it
// returns an error instead (see the package doc for its JSON-RPC code), and
// it refuses a form with secret fields, which only a [Next] of a flow asks,
// in URL mode. On the legacy handshake the request carries no
// capabilities, so Ask asks, and mcp-go's bridge reports a client that
// cannot answer.
func Ask[T any](f *mcpform.Form[T], req mcp.CallToolRequest, requestState string) (*mcp.CallToolResult, error) {
	r, err := f.Seam().Ask(declaredBy(&req))
	if err != nil {
		return nil, err
	}
	return result(&mcp.CallToolResult{}, []seam.Request{r}, requestState), nil
}

// Read checks the answer in req under f's key, exactly as
// [mcpform.Form.Read] does, and decodes it into the reply's Value: see
// [mcpform.Reply] for what each status means. The answer is untrusted;
// one that does not decode as an elicitation result reads as no answer
// ([mcpform.ReplyNone]), and content that is not an object is refused.
func Read[T any](f *mcpform.Form[T], req mcp.CallToolRequest) mcpform.Reply[T] {
	a := asDecoded(req.Params.InputResponses)
	reply := f.Seam().Read(a)
	// Content built in Go, by an in-process client, is read as JSON would
	// carry it; checking for it only after a refusal keeps the common
	// path, content decoded from JSON, free of a second walk.
	if reply.Status == mcpform.ReplyInvalid && a.builtInGo(f.Key()) {
		reply = f.Seam().Read(answers(a))
	}
	return reply
}

// Reask returns the input_required result that asks for f again after
// reply: its message names reply's problems (see [mcpform.ProblemMessage])
// and the values reply accepted are the schema's defaults, which clients
// pre-fill. For a reply without problems or accepted values it asks as
// [Ask] does, without looking at the client's capabilities: the client
// answered the first request. The result is the caller's own, as Ask's.
func Reask[T any](f *mcpform.Form[T], reply mcpform.Reply[T], requestState string) *mcp.CallToolResult {
	return result(&mcp.CallToolResult{}, []seam.Request{f.Seam().Reask(reply)}, requestState)
}
