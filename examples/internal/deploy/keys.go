package deploy

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpform/mcpform"
)

// KeyEnv names the environment variable that holds the request-state keys:
// the first mints and seals, and every one opens.
const KeyEnv = "MCPFORM_STATE_KEY"

// VerifyKeyEnv names the environment variable that holds the keys that
// only open, never mint or seal (mcpform.RequestStateOptions.VerifyKeys).
// Rotate keys across replicas in three rolling restarts, each finished on
// every replica before the next begins:
//
//  1. MCPFORM_STATE_KEY=old MCPFORM_STATE_VERIFY_KEY=new
//  2. MCPFORM_STATE_KEY=new MCPFORM_STATE_VERIFY_KEY=old
//  3. MCPFORM_STATE_KEY=new, once twice StateTTL (20 minutes) have passed
//     since the last replica took step 2.
//
// So every replica opens what any other mints, at every moment, and no run
// in flight is lost. Putting the new key first in one restart loses the
// runs that cross a replica that has only the old one.
const VerifyKeyEnv = "MCPFORM_STATE_VERIFY_KEY"

// StateTTL is how long a request state stays valid: the time a person has
// to answer a round. Outcomes kept in memory last as long.
const StateTTL = 10 * time.Minute

// parseKeys reads the value v of the environment variable env: one or more
// hex keys of at least mcpform.MinRequestStateKeySize bytes, separated by
// commas.
func parseKeys(env, v string) ([][]byte, error) {
	var keys [][]byte
	for i, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("%s: key %d is empty", env, i)
		}
		k, err := hex.DecodeString(part)
		if err != nil {
			// Don't quote the value: it is a secret.
			return nil, fmt.Errorf("%s: key %d is not hex", env, i)
		}
		if len(k) < mcpform.MinRequestStateKeySize {
			return nil, fmt.Errorf("%s: key %d has %d bytes; want at least %d (%d hex digits)",
				env, i, len(k), mcpform.MinRequestStateKeySize, 2*mcpform.MinRequestStateKeySize)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// NewCodec returns the codec that seals the server's request state, bound
// to tool and principal, from the KeyEnv and VerifyKeyEnv values getenv
// returns (os.Getenv, say). With KeyEnv unset it makes a random key and
// warns on warn, as server, since no other replica can then read this
// one's state; VerifyKeyEnv is then refused, as a rotation that has no
// key to rotate from.
func NewCodec(getenv func(string) string, warn io.Writer, server string) (*mcpform.RequestStateCodec, error) {
	var keys, verify [][]byte
	env, verifyEnv := getenv(KeyEnv), getenv(VerifyKeyEnv)
	var err error
	switch {
	case env == "" && verifyEnv != "":
		return nil, errors.New(VerifyKeyEnv + " is set without " + KeyEnv + ", the key that seals")
	case env == "":
		k := make([]byte, mcpform.MinRequestStateKeySize)
		rand.Read(k) // never fails; see crypto/rand.Read
		keys = [][]byte{k}
		fmt.Fprintf(warn, "%s: warning: %s is not set; using a random request-state key. "+
			"Replicas won't read each other's state, and a restart breaks signups in progress.\n", server, KeyEnv)
	default:
		if keys, err = parseKeys(KeyEnv, env); err != nil {
			return nil, err
		}
		if verifyEnv != "" {
			if verify, err = parseKeys(VerifyKeyEnv, verifyEnv); err != nil {
				return nil, err
			}
		}
	}
	return mcpform.NewRequestStateCodec(mcpform.RequestStateOptions{Keys: keys, VerifyKeys: verify, Bind: true, TTL: StateTTL})
}
