package mcpform_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform"
	"github.com/mcpform/mcpform/internal/rawanswers"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A seatBooking is the answer of the servers below: an integer with a
// minimum, an int64 beyond 2^53 and a text.
type seatBooking struct {
	Seats   int    `json:"seats" mcpform:"min=2,max=50"`
	Account int64  `json:"account,omitempty"`
	Note    string `json:"note,omitempty"`
}

// bookingServer serves "book", which reads the form's native answer and
// says how it was judged: "accepted" with the value, or "invalid" with
// each problem's field.
func bookingServer(t testing.TB) *mcp.Server {
	form, err := mcpform.FormFor[seatBooking](&mcpform.FormOptions{Key: "booking", Message: "Book"})
	require.NoError(t, err)
	server := mcp.NewServer(&mcp.Implementation{Name: "booking", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "book", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			reply := form.ReadCall(req)
			var text string
			switch reply.Status {
			case mcpform.ReplyNone:
				return form.Ask(req, "")
			case mcpform.ReplyAccepted:
				text = fmt.Sprintf("accepted seats=%d account=%d note=%q", reply.Value.Seats, reply.Value.Account, reply.Value.Note)
			case mcpform.ReplyInvalid:
				text = "invalid"
				for _, p := range reply.Problems {
					text += " " + p.Field
				}
			default:
				text = "other"
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	return server
}

// latestMeta is the _meta of a 2026-07-28 request from a client that
// answers forms.
const latestMeta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"v0"}`

// bookCall is a retried tools/call, as bytes no Go client would
// normalize, answering the booking with content; meta is more of its
// _meta members.
func bookCall(id int, content, meta string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"book","arguments":{},`+
		`"inputResponses":{"booking":{"action":"accept","content":%s}},"_meta":{%s%s}}}`, id, content, latestMeta, meta)
}

// A rawServer takes a JSON-RPC message's bytes and returns the text of
// the tool result it answers with.
type rawServer func(t *testing.T, msg string) string

// overHTTP serves server through go-sdk's streamable HTTP handler,
// wrapped when wrap is set.
func overHTTP(t *testing.T, server *mcp.Server, wrap bool) rawServer {
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	if wrap {
		h = mcpform.AnswersAsSentHandler(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return func(t *testing.T, msg string) string { return postBook(t, srv, msg, nil) }
}

// postBook posts msg, a call of "book", to srv, as a 2026-07-28 client
// does, with more headers, and returns the text of the tool result it
// answers with.
func postBook(t *testing.T, srv *httptest.Server, msg string, more map[string]string) string {
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(msg))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "book")
	for k, v := range more {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	return resultText(t, body)
}

// overStdio serves server over go-sdk's newline-delimited transport on
// pipes, wrapped when wrap is set: the same connection as stdio's and
// the in-memory transport's.
func overStdio(t *testing.T, server *mcp.Server, wrap bool) rawServer {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var transport mcp.Transport = &mcp.IOTransport{Reader: inR, Writer: outW}
	if wrap {
		transport = mcpform.AnswersAsSentTransport(transport)
	}
	ss, err := server.Connect(context.Background(), transport, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close(); inW.Close(); outR.Close() })
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	return func(t *testing.T, msg string) string {
		_, err := io.WriteString(inW, msg+"\n")
		require.NoError(t, err)
		require.True(t, lines.Scan(), "no answer: %v", lines.Err())
		return resultText(t, lines.Bytes())
	}
}

// resultText is the text of a JSON-RPC response's tool result, or its
// error's message.
func resultText(t *testing.T, body []byte) string {
	var resp struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal(body, &resp), "%s", body)
	if resp.Error != nil {
		return "error: " + resp.Error.Message
	}
	require.Len(t, resp.Result.Content, 1, "%s", body)
	return resp.Result.Content[0].Text
}

// TestAnswersAsSent (issue 32, items 1 and 7): on go-sdk, wrapped, a
// native answer is judged as the client wrote it, over streamable HTTP
// and over stdio's connection alike, as on mcp-go's face: a number that
// float64 rounds into the bounds is not whole, an int64 beyond 2^53 keeps
// its digits, and a key given twice or invalid UTF-8 is asked again,
// naming its field, never read as its last value or U+FFFD. Unwrapped,
// the same bytes are judged as go-sdk decoded them.
func TestAnswersAsSent(t *testing.T) {
	for _, tt := range []struct {
		name, content      string
		wrapped, unwrapped string
	}{
		{"rounds to a whole number", `{"seats":1.9999999999999999}`, "invalid seats", "accepted seats=2 account=0 note=\"\""},
		{"beyond 2^53", `{"seats":3,"account":9007199254740993}`,
			"accepted seats=3 account=9007199254740993 note=\"\"", "accepted seats=3 account=9007199254740992 note=\"\""},
		{"key twice", `{"seats":3,"seats":5}`, "invalid seats", "accepted seats=5 account=0 note=\"\""},
		{"invalid UTF-8", "{\"seats\":3,\"note\":\"Ada\xf0\x9f\x98Lovelace\"}", "invalid note", "invalid note"},
		// No content is none, as go-sdk decodes it: not a content that
		// is no object.
		{"no content", `null`, "invalid seats", "invalid seats"},
		{"as written, accepted", `{"seats":3.0,"note":"Ada \u00e9\ud83d\ude00"}`, "accepted seats=3 account=0 note=\"Ada é😀\"",
			"accepted seats=3 account=0 note=\"Ada é😀\""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, over := range []struct {
				name  string
				serve func(*testing.T, *mcp.Server, bool) rawServer
			}{{"http", overHTTP}, {"stdio", overStdio}} {
				t.Run(over.name, func(t *testing.T) {
					wrapped := over.serve(t, bookingServer(t), true)
					assert.Equal(t, tt.wrapped, wrapped(t, bookCall(1, tt.content, "")))
					unwrapped := over.serve(t, bookingServer(t), false)
					assert.Equal(t, tt.unwrapped, unwrapped(t, bookCall(1, tt.content, "")))
				})
			}
		})
	}
}

// TestAnswersAsSentForged: what a client writes under the wrappers' _meta
// key is removed by the transport's wrapper and left unread under the
// handler's header; without them, it carries no mark of this process's
// wrappers and is never read, so it can never make the core judge other
// bytes than go-sdk decoded.
func TestAnswersAsSentForged(t *testing.T) {
	kept := func(responses string) string {
		return `,"io.mcpform/inputResponses":"` + base64.StdEncoding.EncodeToString([]byte(responses)) + `"`
	}
	answer := func(content string) string {
		return `{"booking":{"action":"accept","content":` + content + `}}`
	}
	for _, tt := range []struct {
		name, content, meta string
		wrapped, unwrapped  string
	}{
		{"another answer", `{"seats":3}`, kept(answer(`{"seats":40}`)), "accepted seats=3 account=0 note=\"\"", "accepted seats=3 account=0 note=\"\""},
		{"another action", `{"seats":3}`, kept(`{"booking":{"action":"decline"}}`), "accepted seats=3 account=0 note=\"\"", "accepted seats=3 account=0 note=\"\""},
		{"not base64", `{"seats":3}`, `,"io.mcpform/inputResponses":"%%%"`, "accepted seats=3 account=0 note=\"\"", "accepted seats=3 account=0 note=\"\""},
		{"hides a defect", `{"seats":3,"seats":3}`, kept(answer(`{"seats":3}`)), "invalid seats", "accepted seats=3 account=0 note=\"\""},
		// The same answer to encoding/json, but other bytes: not read.
		{"the same to encoding/json", `{"seats":2}`, kept(answer(`{"seats":1.9999999999999999}`)), "accepted seats=2 account=0 note=\"\"", "accepted seats=2 account=0 note=\"\""},
		{"escaped key", `{"seats":3}`, `,"io.mcpform\/inputResponses":"` + base64.StdEncoding.EncodeToString([]byte(answer(`{"seats":40}`))) + `"`,
			"accepted seats=3 account=0 note=\"\"", "accepted seats=3 account=0 note=\"\""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, over := range []struct {
				name  string
				serve func(*testing.T, *mcp.Server, bool) rawServer
			}{{"http", overHTTP}, {"stdio", overStdio}} {
				t.Run(over.name, func(t *testing.T) {
					wrapped := over.serve(t, bookingServer(t), true)
					assert.Equal(t, tt.wrapped, wrapped(t, bookCall(1, tt.content, tt.meta)))
					unwrapped := over.serve(t, bookingServer(t), false)
					assert.Equal(t, tt.unwrapped, unwrapped(t, bookCall(1, tt.content, tt.meta)))
				})
			}
		})
	}
}

// TestAnswersAsSentHandlerBody: the handler passes every body as it
// came, a body beyond its bound included, and hands the copy in a header,
// only for a call, never the one a client sent.
func TestAnswersAsSentHandlerBody(t *testing.T) {
	var got []byte
	var length int64
	var header []string
	h := mcpform.AnswersAsSentHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		length = r.ContentLength
		header = r.Header.Values(rawanswers.Header)
	}))
	call := bookCall(1, `{"seats":3}`, "")
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book","inputResponses":{},"arguments":{"pad":"` +
		strings.Repeat("x", 1<<20) + `"}}}`
	for _, tt := range []struct {
		name, method, body string
		copied             bool
	}{
		{"a call", http.MethodPost, call, true},
		{"another method", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"inputResponses":{}}}`, false},
		{"beyond the bound", http.MethodPost, big, false},
		{"not JSON", http.MethodPost, call[:len(call)-1], false},
		{"a batch", http.MethodPost, "[" + call + "]", false},
		{"a GET", http.MethodGet, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "/", strings.NewReader(tt.body))
			r.Header.Set(rawanswers.Header, "forged")
			h.ServeHTTP(httptest.NewRecorder(), r)
			assert.True(t, bytes.Equal([]byte(tt.body), got), "changed")
			assert.Equal(t, int64(len(tt.body)), length)
			assert.Equal(t, []string{"forged"}, r.Header.Values(rawanswers.Header), "the request it was given is unchanged")
			if !tt.copied {
				assert.Empty(t, header)
				return
			}
			require.Len(t, header, 1)
			resp, ok := rawanswers.Lookup(header[0], "booking")
			require.True(t, ok, "the copy carries this process's mark")
			assert.Equal(t, `{"seats":3}`, string(resp.Content))
		})
	}
}

// TestAnswersAsSentForgedHeader: a client that sends the header the
// handler hands its copy in, over streamable HTTP, never makes the core
// judge other bytes than it sent: wrapped, the header is the handler's
// own; unwrapped, it carries no mark of this process and is not read.
func TestAnswersAsSentForgedHeader(t *testing.T) {
	forged := base64.StdEncoding.EncodeToString([]byte(`{"booking":{"action":"accept","content":{"seats":40}}}`))
	for _, wrap := range []bool{true, false} {
		t.Run(fmt.Sprint("wrapped=", wrap), func(t *testing.T) {
			server := bookingServer(t)
			var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
				&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
			if wrap {
				h = mcpform.AnswersAsSentHandler(h)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			for _, value := range []string{forged, "AAAAAAAAAAAAAAAAAAAAAAAAAA." + forged} {
				want := "accepted seats=5 account=0 note=\"\"" // go-sdk's decoding
				if wrap {
					want = "invalid seats" // as sent: the key given twice
				}
				got := postBook(t, srv, bookCall(1, `{"seats":3,"seats":5}`, ""), map[string]string{rawanswers.Header: value})
				assert.Equal(t, want, got)
			}
		})
	}
}

// TestAnswersAsSentGoClient: go-sdk's own client, wrapped server, finishes
// a native round over streamable HTTP and the in-memory transport.
func TestAnswersAsSentGoClient(t *testing.T) {
	elicit := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"seats": 4, "account": 12}}, nil
	}
	for _, over := range []string{"http", "memory"} {
		t.Run(over, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "go", Version: "v0"}, &mcp.ClientOptions{ElicitationHandler: elicit})
			var transport mcp.Transport
			if over == "http" {
				srv := httptest.NewServer(mcpform.AnswersAsSentHandler(mcp.NewStreamableHTTPHandler(
					func(*http.Request) *mcp.Server { return bookingServer(t) }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})))
				defer srv.Close()
				transport = &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1}
			} else {
				st, ct := mcp.NewInMemoryTransports()
				ss, err := bookingServer(t).Connect(ctx, mcpform.AnswersAsSentTransport(st), nil)
				require.NoError(t, err)
				defer ss.Close()
				transport = ct
			}
			cs, err := client.Connect(ctx, transport, nil)
			require.NoError(t, err)
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "book"})
			require.NoError(t, err)
			require.Len(t, res.Content, 1)
			assert.Equal(t, `accepted seats=4 account=12 note=""`, res.Content[0].(*mcp.TextContent).Text)
		})
	}
}

// seatsServer serves "book", whose form asks for a whole number of seats,
// at least 2, and says how the answer was judged.
func seatsServer() *mcp.Server {
	fields := []mcpform.AutoFormField{{Name: "seats", Type: mcpform.TypeInteger, Required: true, Min: mcpform.Bound(2)}}
	form, err := mcpform.NewForm[mcpform.Answers](fields, &mcpform.FormOptions{Key: "booking", Message: "How many seats?"})
	if err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "booking", Version: "v1"}, nil)
	server.AddTool(&mcp.Tool{Name: "book", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			reply := form.ReadCall(req)
			switch reply.Status {
			case mcpform.ReplyNone:
				return form.Ask(req, "")
			case mcpform.ReplyInvalid:
				return form.Reask(reply, ""), nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint("booked ", reply.Value["seats"], " seats")}}}, nil
		})
	return server
}

// seatsCall is a retried call whose answer is 1.9999999999999999 seats,
// which encoding/json reads as the float64 2.
const seatsCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book","arguments":{},` +
	`"inputResponses":{"booking":{"action":"accept","content":{"seats":1.9999999999999999}}},"_meta":{` + latestMeta + `}}}`

// shown is what a tools/call's response shows: the message of its re-ask
// of the booking, or its text.
func shown(result []byte) string {
	var resp struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			InputRequests map[string]struct {
				Params struct {
					Message string `json:"message"`
				} `json:"params"`
			} `json:"inputRequests"`
		} `json:"result"`
	}
	if err := json.Unmarshal(result, &resp); err != nil {
		return err.Error()
	}
	if r, ok := resp.Result.InputRequests["booking"]; ok {
		return "asked again: " + strings.ReplaceAll(r.Params.Message, "\n\n", " ")
	}
	return resp.Result.Content[0].Text
}

func ExampleAnswersAsSentHandler() {
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return seatsServer() },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	// Unwrapped, go-sdk's float64 2 is booked; wrapped, the number sent is
	// judged.
	for _, h := range []http.Handler{streamable, mcpform.AnswersAsSentHandler(streamable)} {
		srv := httptest.NewServer(h)
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(seatsCall))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "book")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		fmt.Println(shown(body))
	}
	// Output:
	// booked 2 seats
	// asked again: How many seats? Seats must be 2 or more.
}

func ExampleAnswersAsSentTransport() {
	ctx := context.Background()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	// mcp.StdioTransport in a real server: the same connection, on stdin
	// and stdout.
	transport := mcpform.AnswersAsSentTransport(&mcp.IOTransport{Reader: inR, Writer: outW})
	session, err := seatsServer().Connect(ctx, transport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	go io.WriteString(inW, seatsCall+"\n")
	line, _ := bufio.NewReader(outR).ReadBytes('\n')
	fmt.Println(shown(line))
	// Output:
	// asked again: How many seats? Seats must be 2 or more.
}

// BenchmarkAnswersAsSent reads a typical native answer as a go-sdk
// handler gets it, from the call's params on the wire: decoded by go-sdk
// alone, and rewritten first as the wrappers do, then read as sent.
func BenchmarkAnswersAsSent(b *testing.B) {
	form, err := mcpform.FormFor[seatBooking](&mcpform.FormOptions{Key: "booking"})
	require.NoError(b, err)
	params := []byte(`{"name":"book","arguments":{},"requestState":"` + strings.Repeat("A", 320) + `",` +
		`"inputResponses":{"booking":{"action":"accept","content":{"seats":3,"account":9007199254740993,"note":"Ada Lovelace"}}},` +
		`"_meta":{` + latestMeta + `}}`)
	for _, bb := range []struct {
		name    string
		rewrite func([]byte) []byte
	}{{"decoded", func(p []byte) []byte { return p }}, {"as-sent", rawanswers.Params}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var p mcp.CallToolParamsRaw
				if err := json.Unmarshal(bb.rewrite(params), &p); err != nil {
					b.Fatal(err)
				}
				if r := form.ReadCall(&mcp.CallToolRequest{Params: &p}); r.Status != mcpform.ReplyAccepted {
					b.Fatal(r.Status, r.Problems)
				}
			}
		})
	}
}

// flowServer serves "book" as a flow of one step, the booking, with a
// state bound to the call: "done" once it is answered.
func flowServer(tb testing.TB) *mcp.Server {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{bytes.Repeat([]byte{7}, mcpform.MinRequestStateKeySize)}, Bind: true})
	require.NoError(tb, err)
	fields := []mcpform.AutoFormField{{Name: "seats", Label: "Seats", Type: mcpform.TypeInteger, Required: true, Min: mcpform.Bound(2)},
		{Name: "account", Type: mcpform.TypeInteger}, {Name: "note"}}
	flow, err := mcpform.NewFlow(codec, []mcpform.Step{{Key: "booking", Fields: fields}}, &mcpform.FlowOptions{EveryCallerIsSamePerson: true})
	require.NoError(tb, err)
	server := mcp.NewServer(&mcp.Implementation{Name: "booking", Version: "v0"}, nil)
	server.AddTool(&mcp.Tool{Name: "book", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r, err := flow.Next(ctx, req)
			if err != nil {
				return nil, err
			}
			if r.Status != mcpform.FlowDone {
				return r.Result, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint("done ", r.Answers["seats"], " ", r.Answers["account"])}}}, nil
		})
	return server
}

// flowRounds serves flowServer over streamable HTTP, its handler passed
// through wrap, runs its first round, and returns a func that answers
// that round with content and returns the response's body.
func flowRounds(tb testing.TB, wrap func(http.Handler) http.Handler) (answer func(content string) []byte) {
	h := wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return flowServer(tb) },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	post := func(body string) []byte {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "book")
		resp, err := srv.Client().Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return out
	}
	var first struct {
		Result struct {
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	require.NoError(tb, json.Unmarshal(post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book","arguments":{},"_meta":{`+latestMeta+`}}}`), &first))
	require.NotEmpty(tb, first.Result.RequestState)
	return func(content string) []byte {
		return post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"book","arguments":{},"requestState":"` + first.Result.RequestState + `",` +
			`"inputResponses":{"booking":{"action":"accept","content":` + content + `}},"_meta":{` + latestMeta + `}}}`)
	}
}

func noWrap(h http.Handler) http.Handler { return h }

// TestAnswersAsSentFlow (issue 32, item 1): a flow's round reads the
// answer as sent too: 1.9999999999999999 seats of at least 2 is asked
// again, where go-sdk's decoding alone books 2.
func TestAnswersAsSentFlow(t *testing.T) {
	const content = `{"seats":1.9999999999999999,"account":9007199254740993}`
	assert.Equal(t, "asked again: Please provide the following information Seats must be 2 or more.",
		shown(flowRounds(t, mcpform.AnswersAsSentHandler)(content)))
	assert.Equal(t, "done 2 9.007199254740992e+15", shown(flowRounds(t, noWrap)(content)))
	assert.Equal(t, "done 3 9007199254740993", shown(flowRounds(t, mcpform.AnswersAsSentHandler)(`{"seats":3,"account":9007199254740993}`)))
}

// BenchmarkAnswersAsSentRound is a flow's answering round over
// streamable HTTP, end to end, behind go-sdk's handler alone and wrapped:
// what the wrapper adds to a round a host sees.
func BenchmarkAnswersAsSentRound(b *testing.B) {
	for _, bb := range []struct {
		name string
		wrap func(http.Handler) http.Handler
	}{{"go-sdk", noWrap}, {"as-sent", mcpform.AnswersAsSentHandler}} {
		answer := flowRounds(b, bb.wrap)
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if out := answer(`{"seats":3,"account":9007199254740993,"note":"Ada Lovelace"}`); !bytes.Contains(out, []byte(`"done `)) {
					b.Fatalf("%s", out)
				}
			}
		})
	}
}
