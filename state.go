package mcpform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/mcpform/mcpform/internal/catalog"
)

// flowState is what a flow's request state carries: where the flow is and
// what it has proven. The struct tags are the format; encoding/json reads
// and writes it, as the request-state codec does any payload.
type flowState struct {
	ID      string  `json:"i"`           // the run ID, random at the start
	Step    string  `json:"s"`           // key of the step being asked
	Asked   string  `json:"k,omitempty"` // pin of Step as it was asked
	Attempt int     `json:"n,omitempty"` // failed answers so far to Step
	Proven  Answers `json:"a,omitempty"` // merged accepted answers of the proven steps
	Pins    pinList `json:"p,omitempty"` // proven step key -> digest of the step it was proven against
	Lang    string  `json:"l,omitempty"` // the language of the first round; "" is English
	// Via records the path each proven step's answers came by, a byte of
	// viaByte per entry of Pins, in order. A state minted before it was
	// recorded has none: see flowState.via.
	Via string `json:"v,omitempty"`
	// Version is the state's format, stateVersion as minted; 0 for a
	// state minted before states carried it.
	Version int `json:"f,omitempty"`
}

// stateVersion is the version of a flow's state that this release mints:
// the members of its payload and what they mean, the binding it is
// verified under (bindFor) and the form of its run ID (newRunID's). A
// state carries it in its "f" member, which verifyState alone reads.
//
// The rule, for every format a run crosses replicas in: a release reads
// the version before its own and its own, and mints what the release
// before it reads, until the next release. So a rolling deploy from one
// release to the next, or back, loses no run in flight, for at least one
// TTL after the deploy. A change of the format is two releases: the first
// reads the new version, the next mints it. A state of a later version
// than stateVersion is refused as malformed, never misread.
//
//   - Version 0, unmarked, was minted by the mains before versions
//     (7850258 and after). Its states lack Via from some of them on (see
//     via); its binding and run ID are version 1's.
//   - Version 1 adds the marker, which version 0's readers ignore, as
//     encoding/json does an unknown member. Its binding is
//     BindTo(principal, tool, digest, path tag), without the digest for
//     an unbound flow; its run ID is newRunID's 24 characters, whose
//     length is its version. A later version changes either only with a
//     marker, a part of the binding or a length of its own, which a
//     release verifies beside its own before the next mints it.
const stateVersion = 1

// errStateVersion is the error of a state of a version after
// stateVersion: minted by a later release, which must not mint it while
// a replica of this one may read it.
var errStateVersion = fmt.Errorf("%w: a state of a later version than %d", ErrMalformed, stateVersion)

// viaByte is how Via records path p: its number as a digit.
func viaByte(p Path) byte { return '0' + byte(p) }

// via returns the path the answers of the proven step came by, as Via
// records it. A state that records none for step, as one minted before
// the state recorded it, gives PathModel: its answers may have come by
// any path, and the model's is the one a handler trusts least.
func (st *flowState) via(step string) Path {
	if len(st.Via) == len(st.Pins) {
		for i, p := range st.Pins {
			if p.Step == step {
				if b := st.Via[i]; b > '0' && b <= viaByte(PathLink) {
					return Path(b - '0')
				}
			}
		}
	}
	return PathModel
}

// mintState mints f's state: sealed, unless f has ReadableState.
func (f *Flow) mintState(st *flowState, bind string) (string, error) {
	if f.lang != catalog.English {
		st.Lang = pinCode(f.lang) // pinned: f speaks the first round's language
	}
	st.Version = stateVersion
	return f.codec.mint(st, bind, !f.readable)
}

// verifyState verifies f's state into st: sealed, unless f has
// ReadableState.
// A state of a version this release does not read is errStateVersion
// (see stateVersion).
func (f *Flow) verifyState(token, bind string, st *flowState) error {
	if err := f.codec.verify(token, bind, st, !f.readable); err != nil {
		return err
	}
	if st.Version > stateVersion || st.Version < 0 {
		return errStateVersion
	}
	return nil
}

// bindFor returns the string a call of tool's state is bound to, given
// the principal and the digest of its arguments without the flow's own
// (see ownArguments), for a state minted for path: a state verifies only
// on the channel it was minted for.
func (f *Flow) bindFor(tool, principal, digest string, path Path) string {
	if f.unbound {
		return BindTo(principal, tool, path.tag())
	}
	return BindTo(principal, tool, digest, path.tag())
}

// A pinList holds the pins of a flow's proven steps, in step order: each
// step's key and the digest of what it asked. It is a list, not a map,
// because a flow has a few steps and every round decodes it, where a map
// costs a few hundred bytes. In JSON it is an object, {"step": "pin"}, in
// list order; a key given twice keeps its last pin.
type pinList []stepPin

type stepPin struct{ Step, Pin string }

// get returns the pin of step, if it is proven.
func (l pinList) get(step string) (string, bool) {
	for _, p := range l {
		if p.Step == step {
			return p.Pin, true
		}
	}
	return "", false
}

// set adds or replaces the pin of step.
func (l pinList) set(step, pin string) pinList {
	for i := range l {
		if l[i].Step == step {
			l[i].Pin = pin
			return l
		}
	}
	return append(l, stepPin{step, pin})
}

// MarshalJSON writes the list as an object, in order.
func (l pinList) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("null"), nil
	}
	b := []byte{'{'}
	for i, p := range l {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(p.Step) // a string always marshals
		v, _ := json.Marshal(p.Pin)
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads an object of strings, or null, keeping the order.
func (l *pinList) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil // as encoding/json leaves a map
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return &json.UnmarshalTypeError{Value: "non-object", Type: reflect.TypeFor[pinList]()}
	}
	out := pinList{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return err
		}
		out = out.set(k.(string), v)
	}
	*l = out
	return nil
}
