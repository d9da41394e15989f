package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLegacyRounds bounds the rounds legacyRounds asks for one call, as
// go-sdk's client bounds its own loop; the flow ends well before it (two
// steps, each asked at most four times).
const maxLegacyRounds = 10

// legacyRounds is receiving middleware that lets a client older than
// 2026-07-28 finish a flow of several rounds.
//
// Such a client knows nothing of input_required. go-sdk bridges for it: when
// the handler returns input requests, it sends each one to the client as
// elicitation/create and calls the handler again with the answers, but only
// once. The team plan's second step, or a step asked again after an invalid
// answer, would then reach the client as an input_required result it can't
// read. legacyRounds keeps bridging: while the result still asks for input,
// it asks the client with elicitation/create and calls the handler again with
// the answers and the request state, exactly as a 2026-07-28 client would
// retry. The handler can't tell the difference, so it is still written once.
//
// Add it after creating the server: go-sdk's own bridge is then the inner
// middleware, and this one the outer.
func legacyRounds(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || method != "tools/call" || call.Params == nil || call.Session == nil ||
			call.ProtocolVersion() == "" || call.ProtocolVersion() >= statelessProtocol {
			// go-sdk also takes an unknown version to be the latest.
			return next(ctx, method, req)
		}
		for round := 1; ; round++ {
			res, err := next(ctx, method, call)
			r, ok := res.(*mcp.CallToolResult)
			if err != nil || !ok || r == nil || len(r.InputRequests) == 0 || round == maxLegacyRounds {
				return res, err
			}
			answers := make(mcp.InputResponseMap, len(r.InputRequests))
			for key, ir := range r.InputRequests {
				form, ok := ir.(*mcp.ElicitParams)
				if !ok {
					return res, nil // not ours to bridge
				}
				a, err := call.Session.Elicit(ctx, form)
				if err != nil {
					return nil, err
				}
				answers[key] = a
			}
			retry := *call.Params
			retry.InputResponses, retry.RequestState = answers, r.RequestState
			call = &mcp.CallToolRequest{Session: call.Session, Params: &retry, Extra: call.Extra}
		}
	}
}
