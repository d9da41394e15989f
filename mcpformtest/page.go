package mcpformtest

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
)

// What the person's browser reads of a secret page's HTML (mcpform's
// internal/secretpage): each field's name, the form's hidden fields (the link,
// and the form's token), and the problems it names.
var (
	fieldRe   = regexp.MustCompile(`<input id="f-[0-9]+" name="([^"]*)"`)
	hiddenRe  = regexp.MustCompile(`<input type="hidden" name="([^"]*)" value="([^"]*)">`)
	problemRe = regexp.MustCompile(`role="alert">([^<]*)<`)
)

// page plays the person's browser on round's secret page: when a accepts
// with secrets, it opens the link and posts them on its form, and
// records the status and what the page refused.
func (c *Client) page(ctx context.Context, round *Round, a Answer) {
	c.t.Helper()
	if a.Secrets == nil || a.action() != "accept" || round.Link == "" {
		return
	}
	status, body := c.browse(ctx, http.MethodGet, round.Link, nil)
	if status != http.StatusOK {
		round.Page = status
		return
	}
	form := url.Values{}
	for _, m := range hiddenRe.FindAllStringSubmatch(body, -1) {
		form.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	for _, m := range fieldRe.FindAllStringSubmatch(body, -1) {
		name := html.UnescapeString(m[1])
		form.Set(name, a.Secrets[name])
	}
	round.Page, body = c.browse(ctx, http.MethodPost, round.Link, form)
	for _, m := range problemRe.FindAllStringSubmatch(body, -1) {
		round.Problems = append(round.Problems, html.UnescapeString(m[1]))
	}
}

// browse requests link as a browser on the page would, posting form if it
// is not nil, keeping cookies across the client's rounds.
func (c *Client) browse(ctx context.Context, method, link string, form url.Values) (int, string) {
	c.t.Helper()
	if c.browser == nil {
		jar, _ := cookiejar.New(nil)
		c.browser = &http.Client{Jar: jar}
		if c.Pages != nil {
			c.browser.Transport = handlerTransport{c.Pages}
		}
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, link, body)
	if err != nil {
		c.t.Fatalf("mcpformtest: the page's link: %v", err)
	}
	if form != nil {
		// A browser says where a form comes from; the page checks it.
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", req.URL.Scheme+"://"+req.URL.Host)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	resp, err := c.browser.Do(req)
	if err != nil {
		c.t.Fatalf("mcpformtest: opening the page: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		c.t.Fatalf("mcpformtest: reading the page: %v", err)
	}
	return resp.StatusCode, string(b)
}

// handlerTransport serves requests with a handler, in process.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.RemoteAddr, r.RequestURI = "192.0.2.1:1234", req.URL.RequestURI()
	if r.Body == nil {
		r.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}
