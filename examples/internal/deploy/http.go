package deploy

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"time"
)

// Listen listens on addr, which defaults to loopback: a bare port or
// ":port" listens on 127.0.0.1 only. Port 0 picks a free port.
func Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = "", addr // a bare port, such as "8080"
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

// OnLoopback reports whether a secret page on ln answers this machine
// alone: ln listens on a loopback address, and pageURL, which the person's
// browser opens, names a loopback host.
func OnLoopback(ln net.Listener, pageURL string) bool {
	tcp, ok := ln.Addr().(*net.TCPAddr)
	u, err := url.Parse(pageURL)
	if !ok || !tcp.IP.IsLoopback() || err != nil {
		return false
	}
	if u.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.IsLoopback()
}

// NewHTTPServer returns an HTTP server for h. It has no ReadTimeout or
// WriteTimeout: an older client's event stream, and a call waiting on a
// person, stay open for minutes; headers (up to maxHeader bytes) and idle
// connections are bounded.
func NewHTTPServer(h http.Handler, maxHeader int) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: maxHeader}
}

// Serve serves hs on ln until ctx is done, then shuts it down, giving
// what is open grace to finish before closing it.
func Serve(ctx context.Context, hs *http.Server, ln net.Listener, grace time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	gctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := hs.Shutdown(gctx); err != nil {
		hs.Close()
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
