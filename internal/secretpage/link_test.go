package secretpage

import (
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/token"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// update rewrites the padded tokens of testdata/links.json from Seal.
var update = flag.Bool("update", false, "rewrite the padded links of testdata/links.json")

// goldenLinks is testdata/links.json.
type goldenLinks struct {
	Now   int64        `json:"now"`
	TTL   int64        `json:"ttl"`
	Keys  [][]byte     `json:"keys"`
	N     string       `json:"n"`
	Links []goldenLink `json:"links"`
}

// A goldenLink is a link, its tokens and what is derived from it.
type goldenLink struct {
	Link Link `json:"link"`
	// Token and Rotated were sealed, under the keys and under the second
	// key alone, by the code before it moved here (c5217d2), which padded
	// the principal alone; Padded and PaddedRotated by Seal, padding the
	// whole link.
	Token         string `json:"token"`
	Rotated       string `json:"rotated"`
	Padded        string `json:"padded"`
	PaddedRotated string `json:"paddedRotated"`
	Key           string `json:"key"`
	Opened        string `json:"openedKey"`
	Closed        string `json:"closedKey"`
	Cookie        string `json:"cookieName"`
	Form          string `json:"formMAC"`
	Claim         string `json:"claimMAC"`
	Claimed       string `json:"claimedCookie"`
	Sent          string `json:"sentCookie"`
}

// TestLinkGolden: links minted by the code before it moved here (c5217d2,
// testdata/links.json), which padded only the principal, open to the
// links they sealed, under the key that sealed them or a rotated one, and
// key, name and MAC to the same bytes: a link in a person's chat stays
// good across the deploy. Seal now mints the whole link padded, to the
// golden's padded tokens (go test -update rewrites them).
func TestLinkGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/links.json")
	require.NoError(t, err)
	var golden goldenLinks
	require.NoError(t, json.Unmarshal(raw, &golden))
	require.NotEmpty(t, golden.Links)
	now := func() time.Time { return time.Unix(golden.Now, 0) }
	ttl := time.Duration(golden.TTL) * time.Second
	keys, old := NewKeys(golden.Keys, ttl, now), NewKeys(golden.Keys[1:], ttl, now)
	if *update {
		for i := range golden.Links {
			g := &golden.Links[i]
			g.Padded, g.PaddedRotated = keys.Seal(&g.Link), old.Seal(&g.Link)
		}
		out, err := json.MarshalIndent(golden, "", "\t")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile("testdata/links.json", append(out, '\n'), 0o644))
	}
	for _, g := range golden.Links {
		l := g.Link
		for _, tok := range []struct{ name, token string }{
			{"old", g.Token}, {"old, under the rotated key", g.Rotated},
			{"padded", g.Padded}, {"padded, under the rotated key", g.PaddedRotated},
		} {
			opened, ok := keys.Open(tok.token)
			require.True(t, ok, "%+v, %s", l, tok.name)
			assert.Equal(t, l, *opened, tok.name)
		}
		assert.Equal(t, g.Padded, keys.Seal(&l), "the same token")
		assert.Equal(t, g.PaddedRotated, old.Seal(&l), "the same token under the old key")
		assert.Equal(t, g.Key, l.Key())
		assert.Equal(t, g.Opened, l.ClaimKey())
		assert.Equal(t, g.Closed, l.CloseKey())
		assert.Equal(t, g.Cookie, l.CookieName())
		assert.Equal(t, g.Form, keys.MAC(MACForm, &l, golden.N))
		assert.Equal(t, g.Claim, keys.MAC(MACClaim, &l, golden.N))
		assert.Equal(t, g.Claimed, keys.Encode(&l, Cookie{N: golden.N, Stage: StageClaimed}))
		assert.Equal(t, g.Sent, keys.Encode(&l, Cookie{N: golden.N, Stage: StageSent}))
		assert.Equal(t, Cookie{N: golden.N, Stage: StageClaimed}, keys.Decode(&l, g.Claimed))
		assert.Equal(t, Cookie{N: golden.N, Stage: StageSent}, keys.Decode(&l, g.Sent))
		assert.Equal(t, Cookie{N: golden.N, Stage: StageSent}, keys.Decode(&l, old.Encode(&l, Cookie{N: golden.N, Stage: StageSent})),
			"checked under any key")
	}
}

// TestLinkPadded: the token of a link says nothing of its principal, tool
// or step while they fit the bucket together: links for set_password and
// wipe_all_customer_records, of short and long principals and steps, all
// have one length, and each opens to its link. A link past the bucket
// takes a whole bucket more.
func TestLinkPadded(t *testing.T) {
	keys := testKeys()
	run := "AGtJ_9w1A2Nvbz0sQ5ZTe1xI" // a run ID as a flow makes it: 24 bytes
	var tokens []string
	for _, l := range []Link{
		{Principal: "al", Tool: "set_password", Run: run, Step: "password"},
		{Principal: "alice", Tool: "wipe_all_customer_records", Run: run, Step: "confirm"},
		{Principal: "alexandra.k@example.com", Tool: "t", Run: run, Step: ""},
		{Principal: "0190d7a2-4c1e-7b3a-9f10-2c4e6a8b0d1f", Tool: strings.Repeat("t", 40), Run: run, Step: strings.Repeat("s", 19)},
		{Principal: strings.Repeat("x", 58), Tool: "wipe_all_customer_records", Run: run, Step: "confirmation"},
		{Principal: "", Tool: "", Run: "r", Step: ""},
		{Principal: "zoë 🗝", Tool: "ツール", Run: run, Step: "ステップ"},
	} {
		tok := keys.Seal(&l)
		tokens = append(tokens, tok)
		opened, ok := keys.Open(tok)
		require.True(t, ok, "%+v", l)
		assert.Equal(t, l, *opened)
	}
	for i, tok := range tokens {
		assert.Len(t, tok, 211, "link %d", i)
	}
	past := keys.Seal(&Link{Principal: strings.Repeat("x", 59), Tool: "wipe_all_customer_records", Run: run, Step: "confirmation"})
	assert.Len(t, past, len(token.SealedPrefix)+base64.RawURLEncoding.EncodedLen(token.NonceSize+2*LinkBucket+token.TagSize), "one bucket more")
	opened, ok := keys.Open(past)
	require.True(t, ok)
	assert.Equal(t, strings.Repeat("x", 59), opened.Principal)
}

func TestLinkKey(t *testing.T) {
	base := Link{Principal: "alice", Tool: "set_password", Run: "r1", Step: "password"}
	seen := map[string]bool{base.Key(): true}
	for _, l := range []Link{
		{Principal: "bob", Tool: "set_password", Run: "r1", Step: "password"},
		{Principal: "alice", Tool: "signup", Run: "r1", Step: "password"},
		{Principal: "alice", Tool: "set_password", Run: "r2", Step: "password"},
		{Principal: "alice", Tool: "set_password", Run: "r1", Step: "other"},
		{Principal: "alice\x00set_password", Tool: "", Run: "r1", Step: "password"},
	} {
		k := l.Key()
		assert.False(t, seen[k], "%+v shares a key", l)
		seen[k] = true
		assert.NotContains(t, k, "alice")
	}
}

// testKeys are link keys under the key the root's flow tests use.
func testKeys() *Keys {
	return NewKeys([][]byte{[]byte("0123456789abcdef0123456789abcdef")}, 10*time.Minute,
		func() time.Time { return time.Unix(1_800_000_000, 0) })
}

// TestPageCookie: a page cookie's stage holds only with its MAC, for its
// own link and value.
func TestPageCookie(t *testing.T) {
	keys := testKeys()
	link := &Link{Principal: "alice", Tool: "set_password", Run: "run-1", Step: "password"}
	other := &Link{Principal: "alice", Tool: "set_password", Run: "run-2", Step: "password"}
	c := NewCookie()
	claimed := Cookie{N: c.N, Stage: StageClaimed}
	for _, tt := range []struct {
		name  string
		value string
		link  *Link
		want  Cookie
	}{
		{"fresh", keys.Encode(link, c), link, c},
		{"claimed", keys.Encode(link, claimed), link, claimed},
		{"sent", keys.Encode(link, Cookie{N: c.N, Stage: StageSent}), link, Cookie{N: c.N, Stage: StageSent}},
		{"another link's proof", keys.Encode(other, claimed), link, c},
		{"a forged stage", c.N + ".dAAAAAAAAAAAAAAAAAAAAAA", link, c},
		{"another stage's proof", c.N + ".d" + keys.Encode(link, claimed)[len(c.N)+2:], link, c},
		{"not a value of ours", "hello", link, Cookie{}},
		{"empty", "", link, Cookie{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, keys.Decode(tt.link, tt.value))
		})
	}
	form := keys.MAC(MACForm, link, c.N)
	assert.True(t, keys.CheckMAC(MACForm, link, c.N, form))
	assert.False(t, keys.CheckMAC(MACForm, link, NewCookie().N, form), "another browser's token")
	assert.False(t, keys.CheckMAC(MACForm, other, c.N, form), "another link's token")
	assert.False(t, keys.CheckMAC(MACForm, link, "", form), "no cookie")
}

// TestPageKey: a signed link names its page by URL, run and step, the same
// however often it is minted; any other link by itself.
func TestPageKey(t *testing.T) {
	signed := func(l Link, exp int64, host string) string {
		p, err := json.Marshal(l)
		require.NoError(t, err)
		env := `{"p":` + string(p) + `,"exp":` + strconv.FormatInt(exp, 10) + `}`
		return "https://" + host + "/secret?t=v1." + base64.RawURLEncoding.EncodeToString([]byte(env)) + ".mac"
	}
	l := Link{Principal: "alice", Tool: "t", Run: "r1", Step: "password"}
	a := PageKey(signed(l, 100, "example.com"))
	assert.Equal(t, token.BindTo("https://example.com/secret", "r1", "password"), a)
	assert.Equal(t, a, PageKey(signed(l, 700, "example.com")), "minted anew")
	assert.NotEqual(t, a, PageKey(signed(Link{Principal: "alice", Tool: "t", Run: "r2", Step: "password"}, 100, "example.com")))
	assert.NotEqual(t, a, PageKey(signed(Link{Principal: "alice", Tool: "t", Run: "r1", Step: "other"}, 100, "example.com")))
	assert.NotEqual(t, a, PageKey(signed(l, 100, "example.org")))
	for _, link := range []string{"https://x/y", "https://x/y?t=s1.abc", "https://x/y?t=v1.e30.mac", "%zz", ""} {
		assert.Equal(t, link, PageKey(link))
	}
}

// TestLinkVersion: a link is sealed under its version's labels, which
// are version 1's of the golden links; one sealed under a later
// version's does not open on this release, rather than open misread.
func TestLinkVersion(t *testing.T) {
	assert.Equal(t, "mcpform secret link v1", sealLabel, "the label of the golden links")
	keys := [][]byte{[]byte(strings.Repeat("k", 32))}
	now := func() time.Time { return time.Unix(1_800_000_000, 0) }
	k := NewKeys(keys, time.Minute, now)
	l := &Link{Principal: "alice", Tool: "set_password", Run: "bW9kZWwtcnVuLWlkLTEyMw", Step: "password"}
	got, ok := k.Open(k.Seal(l))
	require.True(t, ok, "this version's link")
	assert.Equal(t, l, got)

	later := NewKeys(keys, time.Minute, now)
	later.sealer = token.NewSealer(keys, "mcpform secret link v2")
	_, ok = k.Open(later.Seal(l))
	assert.False(t, ok, "a later version's link")
}
