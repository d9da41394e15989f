package prefab

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// CompanionRefusal is the message of the JSON-RPC error, code -32602
// (invalid params), with which every face refuses a call of the viewer's
// companion tool that [Reach] refuses.
const CompanionRefusal = "the view's submit names no tool under " + ToolArgument + " attached to the viewer"

// Reach decides, for every face alike, which tool a call of the viewer's
// companion tool reaches: the tool named under ToolArgument in args, the
// call's decoded arguments, when it is a tool of the server other than
// the companion and it shows its results in the viewer at uri (its
// _meta.ui.resourceUri is uri, as AttachViewer sets it). lookup returns a
// tool's _meta by name, and false for a tool the server does not have. A
// nil args, or one that is not an object, names no tool. Reach returns
// false for any call it does not route, which the face refuses with
// [CompanionRefusal]: a view's submit reaches only a tool whose views
// submit through the companion, never one the viewer shows nothing of.
func Reach(args any, uri string, lookup func(tool string) (meta map[string]any, ok bool)) (string, bool) {
	m, _ := args.(map[string]any)
	tool, _ := m[ToolArgument].(string)
	if tool == "" || tool == CompanionTool {
		return "", false
	}
	meta, ok := lookup(tool)
	if !ok || !Attached(meta, uri) {
		return "", false
	}
	return tool, true
}

// Attached reports whether a tool whose _meta is meta shows its results
// in the viewer at uri: its _meta.ui.resourceUri is uri, or, without a
// "ui" object, its deprecated flat _meta["ui/resourceUri"] is. A nil meta
// is attached to no viewer. A "ui"
// object of another Go type than a map is read as its JSON.
func Attached(meta map[string]any, uri string) bool {
	if meta == nil {
		return false
	}
	switch ui := meta["ui"].(type) {
	case map[string]any:
		return ui["resourceUri"] == uri
	case nil:
		return meta["ui/resourceUri"] == uri
	default:
		b, err := json.Marshal(ui)
		var v struct {
			ResourceURI string `json:"resourceUri"`
		}
		return err == nil && json.Unmarshal(b, &v) == nil && v.ResourceURI == uri
	}
}

// PackArguments returns the arguments a view's submit sends back: state,
// the request state, under stateKey, and rest, the members of the tool's
// own arguments as JSON (without braces; empty for none), as the text of
// one JSON object under ArgumentsArgument, which JavaScript keeps as it
// is. With no rest it is {stateKey: state}, as before there was an
// ArgumentsArgument.
func PackArguments(rest []byte, stateKey, state string) []byte {
	var text string
	if len(rest) > 0 {
		text = "{" + string(rest) + "}"
	}
	return packArguments(text, stateKey, state)
}

// packArguments is PackArguments with text, the tool's own arguments as
// one JSON object's text; "" for none.
func packArguments(text, stateKey, state string) []byte {
	key, _ := json.Marshal(stateKey) // a string always marshals
	val, _ := json.Marshal(state)
	b := make([]byte, 0, len(text)*5/4+len(key)+len(val)+len(ArgumentsArgument)+16)
	b = append(b, '{')
	if text != "" {
		t, _ := json.Marshal(text)
		b = append(append(append(b, `"`+ArgumentsArgument+`":`...), t...), ',')
	}
	b = append(append(append(b, key...), ':'), val...)
	return append(b, '}')
}

// SubmitVersion is the version of a view's submit, and of the companion
// that reads it, that this release writes: the arguments PackArguments
// makes, under CompanionTool with ToolArgument, the request state under
// the flow's state argument and the fields' answers. A submit of version 1
// names no version; one made before the tool's own arguments came back
// as text, with them among its arguments, is read as well (see Unpack).
//
// The rule, for every format a run crosses replicas in: a release reads
// the version before its own and its own, and writes what the release
// before it reads, until the next. So a view shown by one release and
// submitted to the next, or back, finishes its run. A later version is
// named under VersionArgument, which a release reads, up to
// SubmitVersion, before any release sends it: a companion of an earlier
// release would pass it on to the tool as one of its arguments, which the
// state's binding refuses.
const SubmitVersion = 1

// VersionArgument names, in a view's submit, the version of its format,
// a whole number; a submit without it is version 1. Unpack removes it
// and refuses a version after SubmitVersion.
const VersionArgument = "mcpformVersion"

// errPacked is the error of a submit whose ArgumentsArgument is not the
// text of a JSON object.
var errPacked = errors.New("the view's " + ArgumentsArgument + " is not the text of a JSON object")

// errVersion is the error of a submit of a version Unpack does not read.
var errVersion = fmt.Errorf("the view's %s is not a version up to %d: the view comes from a later release", VersionArgument, SubmitVersion)

// Unpack returns the arguments of a call of the companion as the tool it
// reaches gets them: raw, a JSON object, with the members of the object
// whose text is under ArgumentsArgument in place of that argument, and in
// place of any argument of the same name, and without VersionArgument. It
// returns raw itself when it has neither, as a view built by an earlier
// version sends, with changed false, and an error when it is not an
// object, ArgumentsArgument is not the text of one, or VersionArgument is
// not a version up to SubmitVersion. The result holds each number as it
// was written.
func Unpack(raw json.RawMessage) (out json.RawMessage, changed bool, err error) {
	if !bytes.Contains(raw, []byte(`"`+ArgumentsArgument+`"`)) && !bytes.Contains(raw, []byte(`"`+VersionArgument+`"`)) {
		// A name written with escapes is not found: the argument then
		// reaches the tool as it is, among its own arguments, where the
		// state's binding refuses it.
		return raw, false, nil
	}
	var outer map[string]json.RawMessage
	if err := json.Unmarshal(raw, &outer); err != nil {
		return nil, false, err
	}
	version, versioned := outer[VersionArgument]
	packed, ok := outer[ArgumentsArgument]
	if !ok && !versioned {
		return raw, false, nil
	}
	if versioned {
		var v int
		if json.Unmarshal(version, &v) != nil || v < 1 || v > SubmitVersion {
			return nil, false, errVersion
		}
		delete(outer, VersionArgument)
	}
	if ok {
		var text string
		var inner map[string]json.RawMessage
		if json.Unmarshal(packed, &text) != nil || json.Unmarshal([]byte(text), &inner) != nil || inner == nil {
			return nil, false, errPacked
		}
		delete(outer, ArgumentsArgument)
		for k, v := range inner {
			outer[k] = v
		}
	}
	out, err = json.Marshal(outer)
	return out, err == nil, err
}
