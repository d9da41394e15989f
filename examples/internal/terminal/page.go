package terminal

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// openPage answers a URL-mode request as a person with a browser would. It
// shows the link; then, since the demo plays the browser too, it opens the
// page, asks for its fields in the terminal, and posts them to the page,
// never to the client, until the page takes them. It returns what the
// client sends back: the person's consent, or the decline or cancel typed
// instead. The page's own checks speak, as the server's do for forms. An
// empty answer leaves the page for later: the client consents and retries,
// and the server says the page is still waiting.
func (p *prompter) openPage(ctx context.Context, ep Request) (Answer, error) {
	fmt.Fprintln(p.out)
	for _, line := range strings.Split(ep.Message, "\n") {
		if line != "" {
			line = "  " + line
		}
		fmt.Fprintln(p.out, line)
	}
	fmt.Fprintf(p.out, "\n  "+p.w.link+"\n", ep.URL)
	fmt.Fprintf(p.out, "  %s\n", p.w.playsBrowser)
	status, page, err := browse(ctx, http.MethodGet, ep.URL, nil, p.lang)
	for err == nil {
		if status != http.StatusOK && status != http.StatusUnprocessableEntity {
			fmt.Fprintf(p.out, "\n  "+p.w.pageSays+"\n", pageText(page))
			return Answer{Action: "cancel"}, nil
		}
		for _, m := range problemRe.FindAllStringSubmatch(page, -1) {
			fmt.Fprintf(p.out, "\n  "+p.w.pageSays+"\n", html.UnescapeString(m[1]))
		}
		fields := labelRe.FindAllStringSubmatch(page, -1)
		if len(fields) == 0 {
			// Not the form: done already, or a link someone else used.
			fmt.Fprintf(p.out, "\n  "+p.w.pageSays+"\n", pageText(page))
			return Answer{Action: "accept"}, nil
		}
		form := url.Values{}
		for _, m := range hiddenRe.FindAllStringSubmatch(page, -1) {
			form.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
		}
		for _, f := range fields {
			fmt.Fprintf(p.out, "\n  "+p.w.onThePage+"\n", html.UnescapeString(f[1]))
			if f[2] != "" {
				fmt.Fprintf(p.out, "    %s\n", html.UnescapeString(f[2]))
			}
			fmt.Fprintf(p.out, "  > ")
			line := p.read(true)
			if line == "" {
				fmt.Fprintf(p.out, "\n  %s\n", p.w.leftToBrowser)
				return Answer{Action: "accept"}, nil
			}
			if l := strings.ToLower(line); l == "decline" || l == "cancel" {
				fmt.Fprintf(p.out, "\n  → %s\n", l)
				return Answer{Action: l}, nil
			}
			form.Set(html.UnescapeString(f[3]), line)
		}
		status, page, err = browse(ctx, http.MethodPost, ep.URL, form, p.lang)
		if err == nil {
			p.trace("\nbrowser → POST %s: %d %s\n", strings.SplitN(ep.URL, "?", 2)[0], status, http.StatusText(status))
		}
		if status == http.StatusOK {
			fmt.Fprintf(p.out, "  %s\n", pageText(page))
			return Answer{Action: "accept"}, nil
		}
	}
	return Answer{}, err
}

// What openPage reads of the page's HTML (mcpform's internal/secretpage): each
// field's label, hint and name (its problem, if any, sits between the two),
// the form's hidden fields (the link, and the form's token), the problems,
// and the message.
var (
	labelRe   = regexp.MustCompile(`<label for="f-[0-9]+">([^<]*)</label>(?:<div class="help" id="[^"]*">([^<]*)</div>)?(?:<div class="problem"[^>]*>[^<]*</div>)?\s*<input id="f-[0-9]+" name="([^"]*)"`)
	hiddenRe  = regexp.MustCompile(`<input type="hidden" name="([^"]*)" value="([^"]*)">`)
	problemRe = regexp.MustCompile(`role="alert">([^<]*)<`)
	textRe    = regexp.MustCompile(`<p>([^<]*)</p>`)
)

// pageText is the page's message.
func pageText(page string) string {
	if m := textRe.FindStringSubmatch(page); m != nil {
		return html.UnescapeString(m[1])
	}
	return "(nothing)"
}

// demoBrowser is the browser the demo plays. It keeps the page's cookies,
// as a browser does: the page takes what is sent on it only from the
// browser that first posted on the link.
var demoBrowser = func() *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		panic(err) // only for options, and there are none
	}
	return &http.Client{Jar: jar}
}()

// browse requests link as a browser on the page would, posting form if it
// is not nil, and returns the status and the page.
func browse(ctx context.Context, method, link string, form url.Values, lang string) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, link, body)
	if err != nil {
		return 0, "", err
	}
	if lang != "" {
		req.Header.Set("Accept-Language", lang) // as a browser set to it does
	}
	if form != nil {
		// A browser says where a form comes from; the page checks it.
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", req.URL.Scheme+"://"+req.URL.Host)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	resp, err := demoBrowser.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b), err
}
