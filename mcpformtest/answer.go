package mcpformtest

// An Answer is what the person does in one round: accept with values,
// decline, or cancel. Values go to the server as they are, unchecked, so
// that a test can send what a person might type and a careless host pass
// on: an email without an @, a number out of range, a string for a
// number. The zero Answer accepts with no values.
type Answer struct {
	// Action is "accept", "decline" or "cancel"; empty means accept.
	Action string
	// Values are the fields' answers by name. On a host with forms, each
	// form is sent the values of its own fields, or all of them when the
	// round asks one form; on the bare host the model adds them to the
	// tool's arguments; in an MCP Apps view they fill the controls.
	Values map[string]any
	// Secrets are typed on the round's secret page, by the page's field
	// name, before the host answers. Nil leaves the page unposted.
	Secrets map[string]string
}

// Accept returns an Answer that accepts values.
func Accept(values map[string]any) Answer { return Answer{Action: "accept", Values: values} }

// Decline returns an Answer that declines.
func Decline() Answer { return Answer{Action: "decline"} }

// Cancel returns an Answer that cancels: the person closes the form, or
// walks away from the model or the view, which then calls nothing more.
// A script that runs out answers cancel too.
func Cancel() Answer { return Answer{Action: "cancel"} }

// action is a's action, accept if empty.
func (a Answer) action() string {
	if a.Action == "" {
		return "accept"
	}
	return a.Action
}

// script hands out the answers of a call in turn.
type script []Answer

func (s *script) next() Answer {
	if len(*s) == 0 {
		return Cancel()
	}
	a := (*s)[0]
	*s = (*s)[1:]
	return a
}
