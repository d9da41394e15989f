package deploy

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpform/mcpform"
)

// KeyEnv names the environment variable that holds the request-state keys.
const KeyEnv = "MCPFORM_STATE_KEY"

// StateTTL is how long a request state stays valid: the time a person has
// to answer a round. Outcomes kept in memory last as long.
const StateTTL = 10 * time.Minute

// parseKeys reads a MCPFORM_STATE_KEY value: one or more hex keys of at
// least mcpform.MinRequestStateKeySize bytes, separated by commas. The first
// key mints; all of them verify. To rotate, put the new key first, deploy,
// and drop the old one once its tokens have expired (10 minutes).
func parseKeys(v string) ([][]byte, error) {
	var keys [][]byte
	for i, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("%s: key %d is empty", KeyEnv, i)
		}
		k, err := hex.DecodeString(part)
		if err != nil {
			// Don't quote the value: it is a secret.
			return nil, fmt.Errorf("%s: key %d is not hex", KeyEnv, i)
		}
		if len(k) < mcpform.MinRequestStateKeySize {
			return nil, fmt.Errorf("%s: key %d has %d bytes; want at least %d (%d hex digits)",
				KeyEnv, i, len(k), mcpform.MinRequestStateKeySize, 2*mcpform.MinRequestStateKeySize)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// NewCodec returns the codec that seals the server's request state, bound
// to tool and principal, from env, a KeyEnv value. With env "" it makes a
// random key and warns on warn, as server, since no other replica can then
// read this one's state.
func NewCodec(env string, warn io.Writer, server string) (*mcpform.RequestStateCodec, error) {
	var keys [][]byte
	if env == "" {
		k := make([]byte, mcpform.MinRequestStateKeySize)
		rand.Read(k) // never fails; see crypto/rand.Read
		keys = [][]byte{k}
		fmt.Fprintf(warn, "%s: warning: %s is not set; using a random request-state key. "+
			"Replicas won't read each other's state, and a restart breaks signups in progress.\n", server, KeyEnv)
	} else {
		var err error
		if keys, err = parseKeys(env); err != nil {
			return nil, err
		}
	}
	return mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: keys, Bind: true, TTL: StateTTL})
}
