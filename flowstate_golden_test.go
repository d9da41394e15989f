package mcpform

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// flowStateGoldenFile holds flow states minted by main at 7850258, the
// last commit with flowstate.go's hand-written codec, so that runs in
// flight when that code was deployed over survive the switch to
// encoding/json. See testdata/flowstate/README.md.
const flowStateGoldenFile = "testdata/flowstate/golden.json"

type flowStateGolden struct {
	Comment string `json:"comment"`
	KeyHex  string `json:"keyHex"`
	Now     int64  `json:"nowUnix"`
	TTL     int64  `json:"ttlSeconds"`
	Tokens  []struct {
		Name   string `json:"name"`
		Sealed bool   `json:"sealed"`
		Bind   string `json:"bind"`
		Token  string `json:"token"`
	} `json:"tokens"`
}

// flowStateGoldens are the states the golden tokens carry, by name, and
// the path each was minted for.
var flowStateGoldens = map[string]struct {
	path Path
	st   flowState
}{
	"native-start": {PathNative, flowState{ID: "1LvqL-rz1rJit7imv_7q8g", Step: "account"}},
	"native-proven": {PathNative, flowState{ID: "1LvqL-rz1rJit7imv_7q8g", Step: "team", Asked: "T1ZbcVq0eP2wP8z7mF6d9A", Attempt: 2,
		Proven: Answers{"email": "ada@example.com", "seats": 5.0, "terms": true, "topics": []any{"billing", "security"}, "note": nil},
		Pins:   pinList{{"account", "q3cKp0S0mZ8yW1vN4xT7uA"}, {"plan", "zX9-yW8_vU7tS6rQ5pO4nM"}}}},
	"view-spanish": {PathView, flowState{ID: "Zm9vYmFyYmF6cXV4cXV1eA", Step: "team", Asked: "a", Attempt: 1,
		Proven: Answers{"name": "José <Ñ> & \u2028 \"q\"", "ratio": 0.125, "big": 1e21},
		Pins:   pinList{{"account", "q3cKp0S0mZ8yW1vN4xT7uA"}}, Lang: "es"}},
	"model-finish": {PathModel, flowState{ID: "bW9kZWwtcnVuLWlkLTEyMw", Step: "confirm",
		Proven: Answers{"email": "grace@example.com", "seats": 12.0, "roles": []any{"admin", "billing", "dev"}, "ok": false},
		Pins:   pinList{{"account", "q3cKp0S0mZ8yW1vN4xT7uA"}, {"team", "Rk9PQkFSQkFaUVVYUVVVWA"}, {"confirm", "cGlubmVkLXN0ZXAtZGlnZXN0"}}}},
}

func flowStateGoldenBind(name string, path Path) string {
	return BindTo("user-"+name, "signup", "digest-of-"+name, path.tag())
}

// TestFlowStateGolden verifies the flow states minted by the code before
// encoding/json took over their encoding (signed and sealed, on the
// native, view and model paths) and decodes them to the states they
// carried.
func TestFlowStateGolden(t *testing.T) {
	b, err := os.ReadFile(flowStateGoldenFile)
	require.NoError(t, err)
	var g flowStateGolden
	require.NoError(t, json.Unmarshal(b, &g))
	require.Len(t, g.Tokens, 2*len(flowStateGoldens), "a golden token per state, signed and sealed")
	key, err := hex.DecodeString(g.KeyHex)
	require.NoError(t, err)
	c, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{key}, TTL: time.Duration(g.TTL) * time.Second,
		Bind: true, Now: fixedClock(time.Unix(g.Now, 0))})
	require.NoError(t, err)
	for _, tok := range g.Tokens {
		want, ok := flowStateGoldens[tok.Name]
		require.True(t, ok, tok.Name)
		require.Equal(t, flowStateGoldenBind(tok.Name, want.path), tok.Bind, tok.Name)
		var got flowState
		require.NoError(t, c.verify(tok.Token, tok.Bind, &got, tok.Sealed), tok.Name)
		require.Equal(t, want.st, got, tok.Name)
		if !tok.Sealed { // the payload as minted is the payload encoding/json mints now
			body, err := base64.RawURLEncoding.DecodeString(strings.Split(tok.Token, ".")[1])
			require.NoError(t, err)
			var env struct{ P json.RawMessage }
			require.NoError(t, json.Unmarshal(body, &env))
			now, err := json.Marshal(&want.st)
			require.NoError(t, err)
			require.Equal(t, string(env.P), string(now), tok.Name)
		}
	}
}
