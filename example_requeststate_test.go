package mcpform_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/mcpform/mcpform"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// exampleKey stands in for a secret of at least 32 random bytes, such as
// one read from crypto/rand once and kept in a secret store.
var exampleKey = []byte("an example key, 32 bytes or more")

// exampleClock fixes the time so that the examples' output is stable; leave
// Now nil in real code.
func exampleClock() time.Time { return time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) }

func ExampleNewRequestStateCodec() {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{exampleKey},
		TTL:  5 * time.Minute,
		Bind: true,
		Now:  exampleClock,
	})
	if err != nil {
		log.Fatal(err)
	}
	bind := mcpform.BindTo("user-42", "signup")
	token, err := codec.Mint(map[string]int{"step": 2}, bind)
	if err != nil {
		log.Fatal(err)
	}
	var state map[string]int
	if err := codec.Verify(token, bind, &state); err != nil {
		log.Fatal(err)
	}
	fmt.Println(state["step"])
	// Output:
	// 2
}

// Rotating keys: mint with the new key first in the list, keep verifying
// tokens of the old one until they have expired, then drop it.
func ExampleNewRequestStateCodec_rotation() {
	oldKey := exampleKey
	newKey := []byte("the next key, also 32 bytes long")
	before, _ := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{oldKey}, Now: exampleClock})
	during, _ := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{newKey, oldKey}, Now: exampleClock})
	after, _ := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{newKey}, Now: exampleClock})

	token, _ := before.Mint("minted before the rotation", "")
	fmt.Println(during.Verify(token, "", nil))
	fmt.Println(errors.Is(after.Verify(token, "", nil), mcpform.ErrMAC))
	// Output:
	// <nil>
	// true
}

func ExampleRequestStateCodec_Mint() {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{exampleKey}, Now: exampleClock})
	if err != nil {
		log.Fatal(err)
	}
	token, err := codec.Mint(map[string]any{"step": 2, "name": "Ada"}, "")
	if err != nil {
		log.Fatal(err)
	}
	// The body is signed, not encrypted: anyone can read it.
	parts := strings.Split(token, ".")
	body, _ := base64.RawURLEncoding.DecodeString(parts[1])
	fmt.Println(parts[0])
	fmt.Println(string(body))
	fmt.Println(len(parts[2]), "characters of MAC")
	// Output:
	// v1
	// {"p":{"name":"Ada","step":2},"exp":1767269400}
	// 43 characters of MAC
}

func ExampleRequestStateCodec_Verify() {
	now := exampleClock()
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{exampleKey},
		Bind: true,
		Now:  func() time.Time { return now },
	})
	if err != nil {
		log.Fatal(err)
	}
	alice := mcpform.BindTo("alice", "signup")
	token, err := codec.Mint(struct{ Step int }{Step: 2}, alice)
	if err != nil {
		log.Fatal(err)
	}

	var state struct{ Step int }
	fmt.Println(codec.Verify(token, alice, &state), state.Step)

	tampered := strings.Replace(token, ".", ".x", 1)
	fmt.Println(errors.Is(codec.Verify(tampered, alice, nil), mcpform.ErrMAC))

	bob := mcpform.BindTo("bob", "signup")
	fmt.Println(errors.Is(codec.Verify(token, bob, nil), mcpform.ErrBind))

	now = now.Add(10*time.Minute + time.Second)
	fmt.Println(errors.Is(codec.Verify(token, alice, nil), mcpform.ErrExpired))
	// Output:
	// <nil> 2
	// true
	// true
	// true
}

// A tool handler verifies the requestState of a retried call and, when it
// fails, returns RequestStateError's result as it is, so that the client
// gets a JSON-RPC error rather than an isError result.
func ExampleRequestStateError() {
	codec, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{
		Keys: [][]byte{exampleKey},
		Bind: true,
		Now:  exampleClock,
	})
	if err != nil {
		log.Fatal(err)
	}
	type signupState struct {
		Step int `json:"step"`
	}
	// principal is who the server authenticated, never a value from the
	// client's request.
	principal := func(req *mcp.CallToolRequest) string {
		if req.Extra != nil && req.Extra.TokenInfo != nil {
			return req.Extra.TokenInfo.UserID
		}
		return "anonymous"
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "signup", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "signup"}, func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		bind := mcpform.BindTo(principal(req), req.Params.Name)
		var state signupState
		if err := codec.Verify(req.Params.RequestState, bind, &state); err != nil {
			return nil, nil, mcpform.RequestStateError(err) // not wrapped
		}
		text := fmt.Sprintf("resuming at step %d", state.Step)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})

	ctx := context.Background()
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverTransport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer serverSession.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil)
	session, err := client.Connect(ctx, clientTransport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	// An earlier round minted this state and returned it to the client.
	state, err := codec.Mint(signupState{Step: 2}, mcpform.BindTo("anonymous", "signup"))
	if err != nil {
		log.Fatal(err)
	}
	for _, requestState := range []string{state, strings.Replace(state, ".", ".x", 1)} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "signup", RequestState: requestState})
		var wire *jsonrpc.Error
		if errors.As(err, &wire) {
			fmt.Println(wire.Code, wire.Message, string(wire.Data))
			continue
		} else if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// resuming at step 2
	// -32602 Invalid or expired requestState {"reason":"invalid_request_state"}
}

func ExampleBindTo() {
	fmt.Println(mcpform.BindTo("alice", "signup"))
	fmt.Println(mcpform.BindTo("a", "bc") == mcpform.BindTo("ab", "c"))
	// Output:
	// 5:alice6:signup
	// false
}

func ExampleKeySizeError() {
	_, err := mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: [][]byte{[]byte("too short")}})
	var kse mcpform.KeySizeError
	if errors.As(err, &kse) {
		fmt.Println(kse.Index, kse.Size)
		fmt.Println(err)
	}
	// Output:
	// 0 9
	// mcpform: request-state key 0 has 9 bytes; want at least 32
}
