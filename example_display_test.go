package mcpform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/mcpform/mcpform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// subscribeFields is the field list the UI examples share.
var subscribeFields = []mcpform.AutoFormField{
	{Name: "email", Label: "Email", Type: mcpform.TypeEmail, Required: true},
	{Name: "full_name"},
	{Name: "seats", Type: mcpform.TypeInteger, Min: mcpform.Bound(1), Max: mcpform.Bound(50)},
	{Name: "newsletter", Type: mcpform.TypeCheckbox},
}

// This handler asks once, in whichever way the client can answer: a prefab
// form on a host that renders MCP Apps, whose submit calls the same tool
// with arguments, and the native input request anywhere else, answered on
// the retry. The answers are the same either way.
func Example_displayForm() {
	subscribe := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		answers, ok := mcpform.AcceptedFormArguments(req.Params.Arguments, subscribeFields)
		if !ok {
			answers, ok = mcpform.AcceptedFormInput(req.Params.InputResponses, "subscribe", subscribeFields)
		}
		if ok {
			msg := fmt.Sprintf("Subscribed %v: %v", answers["email"], answers)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
		}
		opts := &mcpform.DisplayFormOptions{Title: "Subscribe"}
		if !mcpform.ClientSupportsApps(req.ClientCapabilities()) {
			opts.Elicit = &mcpform.InputRequestOptions{} // key "subscribe", message "Subscribe"
		}
		return mcpform.DisplayForm(subscribeFields, "subscribe", opts)
	}

	caps := &mcp.ServerCapabilities{}
	caps.AddExtension(mcpform.AppsExtension, nil)
	server := mcp.NewServer(&mcp.Implementation{Name: "news", Version: "v1"}, &mcp.ServerOptions{Capabilities: caps})
	if err := mcpform.AddViewer(server, nil); err != nil {
		log.Fatal(err)
	}
	// The submit tool takes raw arguments: a browser sends numbers as text.
	tool := &mcp.Tool{Name: "subscribe", InputSchema: json.RawMessage(`{"type":"object"}`)}
	if err := mcpform.AttachViewer(tool, nil); err != nil {
		log.Fatal(err)
	}
	server.AddTool(tool, subscribe)

	call := func(client *mcp.Client, args any) *mcp.CallToolResult {
		ctx := context.Background()
		st, ct := mcp.NewInMemoryTransports()
		if _, err := server.Connect(ctx, st, nil); err != nil {
			log.Fatal(err)
		}
		cs, err := client.Connect(ctx, ct, nil)
		if err != nil {
			log.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "subscribe", Arguments: args})
		if err != nil {
			log.Fatal(err)
		}
		return res
	}
	text := func(res *mcp.CallToolResult) string { return res.Content[0].(*mcp.TextContent).Text }

	// A client without MCP Apps: go-sdk asks the person natively.
	native := mcp.NewClient(&mcp.Implementation{Name: "cli", Version: "v1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println("asked natively:", req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{
				"email": "ada@example.com", "full_name": "Ada", "seats": 3, "newsletter": true,
			}}, nil
		},
	})
	fmt.Println(text(call(native, map[string]any{})))

	// A host that renders MCP Apps gets the form; when the person submits
	// it, the view calls the tool with what the browser sends.
	appsCaps := &mcp.ClientCapabilities{}
	appsCaps.AddExtension(mcpform.AppsExtension, map[string]any{"mimeTypes": []string{mcpform.AppMIMEType}})
	host := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, &mcp.ClientOptions{Capabilities: appsCaps})
	form := call(host, map[string]any{})
	fmt.Println("form shown:", strings.HasPrefix(text(form), `{"$prefab":{"version":"0.3"}`))
	fmt.Println(text(call(host, map[string]any{
		"email": "ada@example.com", "fullName": "Ada", "seats": "3", "newsletter": true,
	})))
	// Output:
	// asked natively: Subscribe
	// Subscribed ada@example.com: map[email:ada@example.com full_name:Ada newsletter:true seats:3]
	// form shown: true
	// Subscribed ada@example.com: map[email:ada@example.com full_name:Ada newsletter:true seats:3]
}

func ExampleDisplayForm() {
	fields := []mcpform.AutoFormField{{Name: "newsletter", Label: "Send me the newsletter", Type: mcpform.TypeCheckbox}}
	res, err := mcpform.DisplayForm(fields, "subscribe", nil)
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, res.StructuredContent.(json.RawMessage), "", "  "); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.String())
	// Output:
	// {
	//   "$prefab": {
	//     "version": "0.3"
	//   },
	//   "view": {
	//     "type": "Div",
	//     "cssClass": "pf-app-root",
	//     "children": [
	//       {
	//         "type": "Column",
	//         "cssClass": "p-6 max-w-2xl gap-5",
	//         "children": [
	//           {
	//             "type": "Card",
	//             "children": [
	//               {
	//                 "type": "CardContent",
	//                 "cssClass": "py-4",
	//                 "children": [
	//                   {
	//                     "type": "Form",
	//                     "onSubmit": {
	//                       "action": "toolCall",
	//                       "tool": "subscribe",
	//                       "arguments": {
	//                         "newsletter": "{{ 'on' == newsletter }}"
	//                       },
	//                       "onSuccess": {
	//                         "action": "showToast",
	//                         "message": "Success!",
	//                         "variant": "success"
	//                       },
	//                       "onError": {
	//                         "action": "showToast",
	//                         "message": "Something went wrong",
	//                         "variant": "error"
	//                       }
	//                     },
	//                     "children": [
	//                       {
	//                         "type": "Column",
	//                         "cssClass": "gap-4",
	//                         "children": [
	//                           {
	//                             "type": "Checkbox",
	//                             "name": "newsletter",
	//                             "label": "Send me the newsletter"
	//                           },
	//                           {
	//                             "type": "Button",
	//                             "cssClass": "w-full",
	//                             "label": "Submit",
	//                             "variant": "default",
	//                             "size": "default",
	//                             "disabled": false,
	//                             "submit": true
	//                           }
	//                         ]
	//                       }
	//                     ]
	//                   }
	//                 ]
	//               }
	//             ]
	//           }
	//         ]
	//       }
	//     ]
	//   }
	// }
}

// With Elicit set, DisplayForm asks natively, under the submit tool's name
// and with the title as the message.
func ExampleDisplayForm_elicit() {
	res, err := mcpform.DisplayForm(subscribeFields, "subscribe", &mcpform.DisplayFormOptions{
		Title:  "Subscribe",
		Elicit: &mcpform.InputRequestOptions{},
	})
	if err != nil {
		log.Fatal(err)
	}
	for key, r := range res.InputRequests {
		p := r.(*mcp.ElicitParams)
		fmt.Printf("%s: %s form %q\n", key, p.Mode, p.Message)
	}
	// Output:
	// subscribe: form form "Subscribe"
}

// The UI path refuses a name prefab's renderer could not read back; the
// native path asks for it.
func ExampleDisplayForm_refusedName() {
	fields := []mcpform.AutoFormField{{Name: "a - b"}}
	_, err := mcpform.DisplayForm(fields, "t", nil)
	fmt.Println(errors.Is(err, mcpform.ErrName))
	_, err = mcpform.DisplayForm(fields, "t", &mcpform.DisplayFormOptions{Elicit: &mcpform.InputRequestOptions{}})
	fmt.Println(err)
	// Output:
	// true
	// <nil>
}

func ExampleAcceptedFormArguments() {
	// What prefab's renderer sends for subscribeFields: text for numbers,
	// "" for an empty field, full_name camel-cased, and the checkbox as a
	// boolean.
	args := json.RawMessage(`{"email":"ada@example.com","fullName":"","seats":"3","newsletter":false}`)
	answers, ok := mcpform.AcceptedFormArguments(args, subscribeFields)
	fmt.Println(ok, answers)

	// A first call, with no arguments yet, is no answer.
	_, ok = mcpform.AcceptedFormArguments(json.RawMessage(`{}`), subscribeFields)
	fmt.Println(ok)
	// Output:
	// true map[email:ada@example.com newsletter:false seats:3]
	// false
}

func ExampleCheckFormArguments() {
	args := json.RawMessage(`{"email":"ada@example.com","seats":"500","newsletter":"maybe"}`)
	answers, problems := mcpform.CheckFormArguments(args, subscribeFields)
	fmt.Println(answers)
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// map[email:ada@example.com]
	// mcpform: field "seats": invalid value: greater than the maximum 50
	// mcpform: field "newsletter": invalid value: not a boolean
}

func ExampleViewerHTML() {
	page, err := mcpform.ViewerHTML(&mcpform.ViewerOptions{BaseURL: "https://assets.example.com/prefab/0.3.13"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(page)
	// Output:
	// <!doctype html>
	// <html lang="en">
	// <head>
	// <meta charset="utf-8">
	// <meta name="viewport" content="width=device-width, initial-scale=1">
	// <title>Form</title>
	// <link rel="stylesheet" href="https://assets.example.com/prefab/0.3.13/prefab.css" crossorigin>
	// </head>
	// <body>
	// <div id="root"></div>
	// <script src="https://assets.example.com/prefab/0.3.13/renderer.auto.min.js" crossorigin></script>
	// </body>
	// </html>
}

func ExampleAddViewer() {
	server := mcp.NewServer(&mcp.Implementation{Name: "news", Version: "v1"}, nil)
	if err := mcpform.AddViewer(server, nil); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpform.ViewerURI})
	if err != nil {
		log.Fatal(err)
	}
	c := res.Contents[0]
	meta, _ := json.Marshal(c.Meta)
	fmt.Println(c.URI, c.MIMEType)
	fmt.Println(string(meta))
	// Output:
	// ui://mcpform/viewer text/html;profile=mcp-app
	// {"ui":{"csp":{"resourceDomains":["https://cdn.jsdelivr.net"]}}}
}

func ExampleAttachViewer() {
	tool := &mcp.Tool{Name: "subscribe", InputSchema: json.RawMessage(`{"type":"object"}`)}
	if err := mcpform.AttachViewer(tool, nil); err != nil {
		log.Fatal(err)
	}
	meta, _ := json.Marshal(tool.Meta)
	fmt.Println(string(meta))
	// Output:
	// {"ui":{"resourceUri":"ui://mcpform/viewer"},"ui/resourceUri":"ui://mcpform/viewer"}
}

func ExampleClientSupportsApps() {
	caps := &mcp.ClientCapabilities{}
	fmt.Println(mcpform.ClientSupportsApps(caps))
	caps.AddExtension(mcpform.AppsExtension, map[string]any{"mimeTypes": []string{mcpform.AppMIMEType}})
	fmt.Println(mcpform.ClientSupportsApps(caps))
	// Output:
	// false
	// true
}
