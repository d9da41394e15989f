package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/mcpform/mcpform"
)

// keyEnv names the environment variable that holds the request-state keys.
const keyEnv = "MCPFORM_STATE_KEY"

// parseKeys reads a MCPFORM_STATE_KEY value: one or more hex keys of at
// least mcpform.MinRequestStateKeySize bytes, separated by commas. The first
// key mints; all of them verify. To rotate, put the new key first, deploy,
// and drop the old one once its tokens have expired (10 minutes).
func parseKeys(v string) ([][]byte, error) {
	var keys [][]byte
	for i, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("%s: key %d is empty", keyEnv, i)
		}
		k, err := hex.DecodeString(part)
		if err != nil {
			// Don't quote the value: it is a secret.
			return nil, fmt.Errorf("%s: key %d is not hex", keyEnv, i)
		}
		if len(k) < mcpform.MinRequestStateKeySize {
			return nil, fmt.Errorf("%s: key %d has %d bytes; want at least %d (%d hex digits)",
				keyEnv, i, len(k), mcpform.MinRequestStateKeySize, 2*mcpform.MinRequestStateKeySize)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// newCodec returns the codec that seals the tools' request state,
// bound to tool and principal. With env "" it makes a random key and warns
// on warn, since no other replica can then read this one's state.
func newCodec(env string, warn io.Writer) (*mcpform.RequestStateCodec, error) {
	var keys [][]byte
	if env == "" {
		k := make([]byte, mcpform.MinRequestStateKeySize)
		rand.Read(k) // never fails; see crypto/rand.Read
		keys = [][]byte{k}
		fmt.Fprintf(warn, "mcpform mcpgo: warning: %s is not set; using a random request-state key. "+
			"Replicas won't read each other's state, and a restart breaks signups in progress.\n", keyEnv)
	} else {
		var err error
		if keys, err = parseKeys(env); err != nil {
			return nil, err
		}
	}
	return mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: keys, Bind: true})
}
