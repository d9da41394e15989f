package mcpgo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Once gates the side effect of a run on the run's first outcome, as
// [mcpform.FlowRound.Once] does: it returns the outcome stored under the
// round's ID in the flow's FlowOptions.Outcomes, and when the run has
// none, it calls do, stores do's result and returns it. A replay of the
// round, on any replica, gets that first outcome and calls nothing; a
// duplicate that arrives while do runs waits for do's outcome. The store
// keeps the result as JSON, and Once returns it decoded into mcp-go's
// type, do's own result when it is the one stored. So a handler writes,
// for every status but FlowAsk:
//
//	return round.Once(ctx, func(ctx context.Context) (*mcp.CallToolResult, error) {
//		// create the account, send the mail, ... once
//	})
//
// do must return a final result. An error from do, or a nil result, is
// returned and stores nothing, so a retry calls do again. A result do
// returned that cannot be stored (a NaN in its StructuredContent cannot
// be marshalled) fails Once with [mcpform.ErrOutcomeUnknown], and every
// retry too, none calling do again. Once fails on a round of status
// FlowAsk, whose Result is the answer. A flow without Outcomes keeps its
// outcomes in this process's memory, as on go-sdk's face.
func (r *FlowRound) Once(ctx context.Context, do func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	var flow *mcpform.Flow
	var core *mcpform.FlowRound
	if r != nil {
		flow, core = r.flow, r.core
	}
	var mine *mcp.CallToolResult
	var blob []byte
	var run func(context.Context) (func() ([]byte, error), error)
	if do != nil {
		// do only acts: its result is marshalled by the store, as part of
		// recording it, so that one that cannot be is an outcome unknown
		// rather than a failed do that a retry runs again.
		run = func(ctx context.Context) (func() ([]byte, error), error) {
			res, err := do(ctx)
			if err != nil || res == nil {
				return nil, err
			}
			mine = res
			return func() ([]byte, error) {
				b, err := json.Marshal(res)
				blob = b
				return b, err
			}, nil
		}
	}
	first, err := flow.Seam().Once(ctx, core, run)
	if err != nil {
		return nil, err
	}
	if mine != nil && bytes.Equal(first, blob) {
		return mine, nil
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(first, &res); err != nil {
		return nil, errors.New("mcpform: a stored outcome is not a tool result")
	}
	return &res, nil
}

// Outcome returns the tool's final result for o, in the round's language,
// as [mcpform.FlowRound.Outcome] builds it on go-sdk's face: a text block
// for the person (heading and summary), one for the model (o.Text), and
// structuredContent that a view's outcome shows, with the round's
// contentLanguage. A declined, cancelled or invalid run is headed as not
// completed. It returns the errors of mcpform.FlowRound.Outcome.
func (r *FlowRound) Outcome(o *mcpform.Outcome) (*mcp.CallToolResult, error) {
	core := &mcpform.FlowRound{Status: mcpform.FlowDone}
	if r != nil {
		core.Status, core.Language = r.Status, r.Language
	}
	res, err := core.Outcome(o)
	if err != nil {
		return nil, err
	}
	out := &mcp.CallToolResult{StructuredContent: res.StructuredContent}
	for _, c := range res.Content {
		out.Content = append(out.Content, mcp.NewTextContent(c.(*sdk.TextContent).Text))
	}
	ContentLanguage(out, core.Language)
	return out, nil
}
