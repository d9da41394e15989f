package mcpform

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
)

// TestConsent: the answer to a step's URL-mode request decides with its
// form's. A decline or cancel of either ends the step, no answer to the
// page asks the step again as it was, an unknown action is a problem, and
// only an accepted page passes the form's own status and problems on.
func TestConsent(t *testing.T) {
	s := &flowStep{c: &compiled{key: "password"}}
	formProblem := []*FieldError{{Field: "email", Err: ErrInvalidValue}}
	for _, tt := range []struct {
		name     string
		page     string // the action answered to the page; "" for none
		form     ReplyStatus
		want     ReplyStatus
		problems int
	}{
		{"both accepted", "accept", ReplyAccepted, ReplyAccepted, 0},
		{"form invalid, page accepted", "accept", ReplyInvalid, ReplyInvalid, 1},
		{"page declined", "decline", ReplyAccepted, ReplyDeclined, 0},
		{"page dismissed", "cancel", ReplyInvalid, ReplyCancelled, 0},
		{"form declined, page accepted", "accept", ReplyDeclined, ReplyDeclined, 1},
		{"form cancelled, page unanswered", "", ReplyCancelled, ReplyCancelled, 1},
		{"page unanswered", "", ReplyAccepted, ReplyNone, 0},
		{"page action unknown", "approve", ReplyAccepted, ReplyInvalid, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			responses := mcp.InputResponseMap{}
			if tt.page != "" {
				responses["password.secret"] = &mcp.ElicitResult{Action: tt.page}
			}
			var problems []*FieldError
			if tt.form != ReplyAccepted {
				problems = formProblem
			}
			status, got := s.consent(sdkAnswers(responses), tt.form, problems)
			assert.Equal(t, tt.want, status)
			assert.Len(t, got, tt.problems)
		})
	}
}
