package deploy

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListenDefaultsToLoopback(t *testing.T) {
	for _, addr := range []string{"0", ":0", "127.0.0.1:0"} {
		ln, err := Listen(addr)
		require.NoError(t, err, addr)
		assert.True(t, ln.Addr().(*net.TCPAddr).IP.IsLoopback(), addr)
		ln.Close()
	}
}

func TestOnLoopback(t *testing.T) {
	ln, err := Listen("0")
	require.NoError(t, err)
	defer ln.Close()
	for url, want := range map[string]bool{
		"http://127.0.0.1:1/secret": true, "http://localhost/secret": true, "http://[::1]/secret": true,
		"https://example.com/secret": false, "http://10.0.0.1/secret": false, "::": false,
	} {
		assert.Equal(t, want, OnLoopback(ln, url), url)
	}
}

// TestServe: Serve serves until its context ends, then returns nil.
func TestServe(t *testing.T) {
	ln, err := Listen("0")
	require.NoError(t, err)
	hs := NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }), 1<<10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, hs, ln, time.Second) }()
	res, err := http.Get("http://" + ln.Addr().String())
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	cancel()
	assert.NoError(t, <-done)
}
