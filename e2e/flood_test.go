package e2e_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFloodFromManyAddresses fills -max-sessions from many addresses, each
// within its own cap, with sessions nobody uses again, some of them
// holding a call abandoned once the server asked the person, as a flood
// from 66 addresses did in 6 s (issue 33). A new older client, from an
// address of its own, is then served within seconds, and asked: at the
// cap, its initialize closes the session idle longest. Before, it got 503
// until the session timeout, 5 minutes by default, reclaimed the flood.
func TestFloodFromManyAddresses(t *testing.T) {
	const (
		addresses  = 12
		perAddress = 4 // -max-sessions-per-client
		sessions   = 40
	)
	r := startReplica(t, keyA, "-session-timeout", "5m", "-max-sessions", fmt.Sprint(sessions),
		"-max-sessions-per-client", fmt.Sprint(perAddress))
	var wg sync.WaitGroup
	for a := range addresses {
		client := fromAddress(t, fmt.Sprint("127.0.1.", 10+a))
		wg.Go(func() {
			for i := range perAddress {
				sid := openSession(t, client, r.url)
				if i == 0 { // one call each, left waiting for its person
					assert.Equal(t, "asked", callAndWalkAway(t, client, r.url, sid, 100+a))
				}
			}
		})
	}
	wg.Wait()

	start := time.Now()
	fresh := fromAddress(t, "127.0.1.99")
	code, sid := post(t, fresh, r.url, "", initialize)
	require.Equal(t, http.StatusOK, code, "a new client's initialize after the flood")
	code, _ = post(t, fresh, r.url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, http.StatusAccepted, code, "notifications/initialized")
	assert.Equal(t, "asked", callAndWalkAway(t, fresh, r.url, sid, 1), "the new client is asked")
	served := time.Since(start)
	assert.Less(t, served, 5*time.Second)
	t.Logf("after %d sessions from %d addresses, a new client was served in %v", addresses*perAddress, addresses, served.Round(time.Millisecond))
}

// TestFloodOfWaitingCalls fills the server's waiting calls from many
// addresses, each within its own caps, with calls abandoned once the
// server asked the person, and opens sessions up to -max-sessions. Once
// those calls have waited 10 s, a new client from an address of its own
// gets a session, and its call ends the oldest of them and is asked,
// within seconds. Before, it was refused until the calls' timeout, the
// session timeout: 5 minutes by default.
func TestFloodOfWaitingCalls(t *testing.T) {
	const (
		addresses  = 6
		perAddress = 4 // -max-sessions-per-client
		sessions   = 20
		calls      = sessions / 2 // -max-calls' default
	)
	r := startReplica(t, keyA, "-session-timeout", "5m", "-max-sessions", fmt.Sprint(sessions),
		"-max-sessions-per-client", fmt.Sprint(perAddress))
	var mu sync.Mutex
	outcomes := map[string]int{}
	var wg sync.WaitGroup
	for a := range addresses {
		client := fromAddress(t, fmt.Sprint("127.0.2.", 10+a))
		wg.Go(func() {
			for i := range perAddress {
				sid := openSession(t, client, r.url)
				got := callAndWalkAway(t, client, r.url, sid, 100+a*perAddress+i)
				mu.Lock()
				outcomes[got]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	flooded := time.Now()
	require.Equal(t, calls, outcomes["asked"], "calls left waiting: %v", outcomes)

	fresh := fromAddress(t, "127.0.2.99")
	sid := openSession(t, fresh, r.url)
	time.Sleep(time.Until(flooded.Add(10*time.Second + 500*time.Millisecond))) // MakeRoomAfter
	start := time.Now()
	assert.Equal(t, "asked", callAndWalkAway(t, fresh, r.url, sid, 1), "the new client is asked")
	assert.Less(t, time.Since(start), 5*time.Second)
	t.Logf("the new client was asked %v after the flood's calls had waited 10 s", time.Since(start).Round(time.Millisecond))
}
