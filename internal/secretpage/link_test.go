package secretpage

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/token"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLinkGolden: links minted by the code before it moved here (c5217d2,
// testdata/links.json) open to the links they sealed, under the key that
// sealed them or a rotated one, and seal, key, name and MAC to the same
// bytes: a link in a person's chat stays good across the deploy.
func TestLinkGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/links.json")
	require.NoError(t, err)
	var golden struct {
		Now   int64    `json:"now"`
		TTL   int64    `json:"ttl"`
		Keys  [][]byte `json:"keys"`
		N     string   `json:"n"`
		Links []struct {
			Link           Link   `json:"link"`
			Token, Rotated string // sealed under keys, and under the second key alone
			Key            string `json:"key"`
			Opened         string `json:"openedKey"`
			Closed         string `json:"closedKey"`
			Cookie         string `json:"cookieName"`
			Form           string `json:"formMAC"`
			Claim          string `json:"claimMAC"`
			Claimed        string `json:"claimedCookie"`
			Sent           string `json:"sentCookie"`
		} `json:"links"`
	}
	require.NoError(t, json.Unmarshal(raw, &golden))
	require.NotEmpty(t, golden.Links)
	now := func() time.Time { return time.Unix(golden.Now, 0) }
	ttl := time.Duration(golden.TTL) * time.Second
	keys, old := NewKeys(golden.Keys, ttl, now), NewKeys(golden.Keys[1:], ttl, now)
	for _, g := range golden.Links {
		l := g.Link
		opened, ok := keys.Open(g.Token)
		require.True(t, ok, "%+v", l)
		assert.Equal(t, l, *opened)
		opened, ok = keys.Open(g.Rotated)
		require.True(t, ok, "%+v under the rotated key", l)
		assert.Equal(t, l, *opened)
		assert.Equal(t, g.Token, keys.Seal(&l), "the same token")
		assert.Equal(t, g.Rotated, old.Seal(&l), "the same token under the old key")
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
