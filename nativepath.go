package mcpform

import "github.com/modelcontextprotocol/go-sdk/mcp"

// The native path asks in input requests of an input_required result
// (MCP 2026-07-28), or, for an older client, in the elicitation/create
// rounds its SDK's bridge makes of them (the legacy path), and reads the
// answers from the input responses the client sends back with the state.

// askNative returns the input_required result that asks s, naming
// problems, pre-filling filled and carrying token: s's form when form is
// set, and, for a client that declared URL mode, the URL-mode request of
// s's secret page. On a face other than go-sdk's, the face builds the
// result from the requests faceAsk keeps.
func (r *round) askNative(s *flowStep, form bool, filled Answers, problems []*FieldError, token string) (*mcp.CallToolResult, error) {
	page := len(s.c.secrets) > 0 && r.can.url
	if r.forFace() {
		return nil, r.faceAsk(s, filled, problems, token, form, page)
	}
	var res *mcp.CallToolResult
	if form {
		res = s.c.reask(filled, problems, token)
	} else {
		res = &mcp.CallToolResult{InputRequests: make(mcp.InputRequestMap, 1), RequestState: token}
	}
	if page {
		p, err := r.pageRequest(s, problems)
		if err != nil {
			return nil, err
		}
		res.InputRequests[s.urlKey()] = p
	}
	return res, nil
}

// readNative judges the answer to s in the call's input responses: its
// form's, and, where its page was asked in URL mode, the person's consent
// to that page.
func (r *round) readNative(s *flowStep) (ReplyStatus, Answers, []*FieldError) {
	status, accepted, problems := ReplyAccepted, Answers{}, []*FieldError(nil)
	if len(s.c.fields) > 0 {
		status, accepted, problems = s.c.judge(r.call)
	}
	if len(s.c.secrets) > 0 && r.can.url {
		status, problems = s.consent(r.call, status, problems)
	}
	return status, accepted, problems
}

// pageAnswer reads the person's answer to s's URL-mode request while its
// page is awaited: ReplyDeclined or ReplyCancelled when they declined or
// dismissed it, and ReplyNone otherwise.
func (r *round) pageAnswer(s *flowStep) ReplyStatus {
	switch u, ok := r.call.Answer(s.urlKey()); {
	case ok && u.Action == "decline":
		return ReplyDeclined
	case ok && u.Action == "cancel":
		return ReplyCancelled
	}
	return ReplyNone
}

// urlKey is the key of s's URL-mode request, beside its form under s's key.
func (s *flowStep) urlKey() string { return s.c.key + ".secret" }

// consent folds the answer to s's URL-mode request into the form part's
// status: a decline or cancel of either ends the step, and no answer to
// either asks it again as it was.
func (s *flowStep) consent(responses answerer, status ReplyStatus, problems []*FieldError) (ReplyStatus, []*FieldError) {
	if status == ReplyDeclined || status == ReplyCancelled {
		return status, problems
	}
	u, ok := responses.Answer(s.urlKey())
	switch {
	case !ok:
		return ReplyNone, nil
	case u.Action == "decline":
		return ReplyDeclined, nil
	case u.Action == "cancel":
		return ReplyCancelled, nil
	case u.Action != "accept":
		return ReplyInvalid, append(problems, &FieldError{Err: errUnknownAction})
	}
	return status, problems
}
