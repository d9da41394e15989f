package mcpform

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ask returns the result that asks for c in the way the client of req can
// answer, naming problems and pre-filling filled: see [Form.Ask].
func (c *compiled) ask(req *mcp.CallToolRequest, filled Answers, problems []*FieldError, requestState string) (*mcp.CallToolResult, error) {
	can := reachOf((*sdkCall)(req))
	switch {
	case can.form:
		return c.reask(filled, problems, requestState), nil
	case can.apps && c.ui == nil, c.model && !confirms(c.fields):
	default:
		return nil, requireInput((*sdkCall)(req), true, false)
	}
	var a callArgs
	if req.Params != nil {
		var err error
		if a, err = callArguments(req.Params.Arguments, c.own); err != nil {
			a = callArgs{} // arguments the form cannot read: send none back
		}
	}
	r := &round{ctx: context.Background(), call: (*sdkCall)(req), args: a}
	back := r.sendBack(requestState)
	if can.apps && c.ui == nil {
		v, err := c.view(req.Params.Name, filled, problems, nil)
		if err != nil {
			return nil, err
		}
		return v.result(back), nil
	}
	msg, schema := c.message, c.schema
	if len(filled) == 0 && len(problems) == 0 {
		return c.modelAsk(req.Params.Name, back), nil
	}
	{
		p := c.reask(filled, problems, "").InputRequests[c.key].(*mcp.ElicitParams)
		msg, schema = p.Message, mustJSON(p.RequestedSchema)
	}
	return askModel(req.Params.Name, msg, &askContract{RequestedSchema: schema, Arguments: back}, nil), nil
}

// ReadCall is [Form.Read] for any path [Form.Ask] takes: it reads the
// answer from the call's input responses, or, when the call's arguments
// carry [StateArgument], from the arguments, as an MCP Apps view's submit
// and an answer through the model send it. Values a view sends are made
// typed as [Form.ReadArguments] makes them; the model's are judged exactly
// as a native answer. The argument "mcpformAction" set to "decline", which
// a view's Decline button sends and the model is told to send, gives
// ReplyDeclined; any other value of it is ReplyInvalid. Arguments that name
// none of the form's fields are no
// answer: the Reply's Status is ReplyNone. A nil req or one without params
// has none either.
func (f *Form[T]) ReadCall(req *mcp.CallToolRequest) Reply[T] {
	if req == nil || req.Params == nil {
		return Reply[T]{Status: ReplyNone}
	}
	if InputResponse(req.Params.InputResponses, f.c.key) == nil && len(req.Params.Arguments) > 0 {
		if a, err := callArguments(req.Params.Arguments, f.c.own); err == nil && a.carried {
			can := reachOf((*sdkCall)(req))
			reply := Reply[T]{Status: ReplyNone, via: viaModel, call: req}
			if can.apps && !can.form {
				reply.via = viaApps
			}
			if st, problems, ok := a.declined(); ok {
				reply.Status, reply.Problems = st, problems
				return reply
			}
			content := f.c.fromArguments(a.answers, reply.via == viaApps)
			if content == nil {
				return reply
			}
			reply.Status, reply.Answers, reply.Problems = f.c.judgeContent(content)
			if reply.Status == ReplyAccepted {
				v, err := f.decodeAnswers(reply.Answers)
				if err != nil {
					return undecodable(reply, err)
				}
				reply.Value = v
			}
			return reply
		}
	}
	return f.Read(req.Params.InputResponses)
}
