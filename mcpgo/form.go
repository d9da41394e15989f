package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
)

// Ask returns the result that asks for f in the way the client of req can
// answer, chosen exactly as [mcpform.Form.Ask] chooses on go-sdk: an
// input_required result whose one elicitation, under f's key, asks for
// f's fields with the schema compiled into f, carrying requestState
// (empty sends none), for a client that declared form elicitation; with
// FormOptions.Codec, an MCP Apps view for a host that renders them (on
// an mcp-go server with [AddViewer], the tool attached with
// [AttachViewer]), and, with AskModel too, a request through the model;
// and to any other client the error for a missing capability (see the
// package doc for its JSON-RPC code). Return the result from the tool
// handler as it is; on the legacy handshake mcp-go's bridge asks a form
// with elicitation/create and calls the handler again with the answer.
// [ReadCall] reads the answer on every path. ctx is the tool handler's:
// the client's capabilities on the legacy handshake and the form's
// FormOptions.ContextPrincipal are read through it, and only a call it
// marks as a view's submit is one.
//
// A state in req's arguments that does not verify is answered with the
// error for an invalid request state. Ask refuses a form with secret
// fields, which only a [Next] of a flow asks, in URL mode.
//
// The result is the caller's own, its InputRequests map and params
// included: editing them changes no other result. The RequestedSchema
// bytes, made once when f was compiled, and a view's structuredContent
// are shared: read them, never write into them.
func Ask[T any](ctx context.Context, f *mcpform.Form[T], req mcp.CallToolRequest, requestState string) (*mcp.CallToolResult, error) {
	// The call and the result in one allocation, as in Next.
	box := &struct {
		call call
		res  resultBox
	}{}
	box.call.read(ctx, &req)
	p, err := f.Seam().Ask(ctx, &box.call, requestState)
	if err != nil {
		return nil, err
	}
	return render(&box.res, p), nil
}

// ReadCall reads f's answer in req on every path [Ask] takes, exactly as
// [mcpform.Form.ReadCall] does on go-sdk: from the input responses, or,
// for a form with FormOptions.Codec, from the arguments of a view's
// submit or of the model's call, but only with a state f minted for that
// path; [mcpform.Reply].Path says which. ctx is the tool handler's. See
// [mcpform.Reply] for what each status means; [Reask] asks again on the
// path the reply came by.
func ReadCall[T any](ctx context.Context, f *mcpform.Form[T], req mcp.CallToolRequest) mcpform.Reply[T] {
	var c call
	c.read(ctx, &req)
	c.decoded = true // as in Read: content built in Go is read again below
	reply := f.Seam().ReadCall(ctx, &c)
	if reply.Status == mcpform.ReplyInvalid && asDecoded(c.responses).builtInGo(f.Key()) {
		c.decoded = false
		reply = f.Seam().ReadCall(ctx, &c)
	}
	return reply
}

// Read checks the answer in req's input responses under f's key, exactly
// as [mcpform.Form.Read] does, and decodes it into the reply's Value: see
// [mcpform.Reply] for what each status means. The answer is untrusted;
// one that does not decode as an elicitation result reads as no answer
// ([mcpform.ReplyNone]), and content that is not an object is refused.
// It never reads the arguments: [ReadCall] does, for a form with a Codec.
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

// Reask returns the result that asks for f again after reply, on the
// path reply came by: for an answer in a view or through the model, the
// same path again, with a state f mints; otherwise an input_required
// result carrying requestState whose message names reply's problems (see
// [mcpform.ProblemMessage]) and whose schema's defaults, which clients
// pre-fill, are the values reply accepted. For a reply without problems
// or accepted values it asks natively as [Ask] does, without looking at
// the client's capabilities: the client answered the first request. The
// result is the caller's own, as Ask's.
func Reask[T any](f *mcpform.Form[T], reply mcpform.Reply[T], requestState string) *mcp.CallToolResult {
	return render(&resultBox{}, f.Seam().Reask(reply, requestState))
}
