package mcpform

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSecretLinkClaim: a link is claimed once, ever, and leaves no value
// in the store; it is closed once, for every replica sharing the store,
// and the first reason stays.
func TestSecretLinkClaim(t *testing.T) {
	store := NewMemorySecretStore()
	ctx := context.Background()
	expires := time.Now().Add(time.Minute)
	link := &secretLink{Principal: "alice", Tool: "set_password", Run: "run-1", Step: "password"}
	other := &secretLink{Principal: "alice", Tool: "set_password", Run: "run-2", Step: "password"}

	require.NoError(t, link.claim(ctx, store, "tag-a", expires))
	assert.ErrorIs(t, link.claim(ctx, store, "tag-b", expires), ErrSecretUsed, "another browser's claim")
	assert.NoError(t, link.claim(ctx, store, "tag-a", expires), "the same browser's claim again")
	require.NoError(t, other.claim(ctx, store, "tag-b", expires))

	why, err := link.closed(ctx, store)
	require.NoError(t, err)
	assert.Empty(t, why)
	standing, closed, err := link.close(ctx, store, closedRefused, expires)
	require.NoError(t, err)
	assert.True(t, closed)
	assert.Equal(t, closedRefused, standing)
	standing, closed, err = link.close(ctx, store, closedEnded, expires)
	require.NoError(t, err, "closing twice is closing")
	assert.False(t, closed, "the second close closes nothing")
	assert.Equal(t, closedRefused, standing, "the second close learns the first reason")
	why, err = link.closed(ctx, store)
	require.NoError(t, err)
	assert.Equal(t, closedRefused, why, "the first reason stays")
	why, err = other.closed(ctx, store)
	require.NoError(t, err)
	assert.Empty(t, why, "a link's closing is its own")
}

// TestSecretLinkSealed: the token in a link reveals nothing of whose run
// and step it names, base64url-decoded or not; it is short, the same from
// round to round, and opens only as it was sealed, before it expires.
func TestSecretLinkSealed(t *testing.T) {
	_, codec, clock := newFlowFixture(t)
	flow, err := NewFlow(codec, []Step{passwordStep}, &FlowOptions{Principal: tokenUser,
		Secrets: &SecretOptions{PageURL: "https://example.com/secret", Store: NewMemorySecretStore()}})
	require.NoError(t, err)
	r, err := flow.Next(context.Background(), secretCall("", nil))
	require.NoError(t, err)
	token := linkToken(t, pageLink(t, r))
	link, ok := flow.links.open(token)
	require.True(t, ok)
	assert.Equal(t, secretLink{Principal: "alice", Tool: "set_password", Run: r.ID, Step: "password"}, *link)

	assert.LessOrEqual(t, len(token), 180, "a short link: %s", token)

	// The principal is padded: its length shows only in 32-byte blocks.
	lengths := map[int]bool{}
	for _, principal := range []string{"al", "alice", "alexandra.k@example.com", strings.Repeat("x", 32)} {
		l := &secretLink{Principal: principal, Tool: "set_password", Run: r.ID, Step: "password"}
		tok := flow.links.seal(l)
		lengths[len(tok)] = true
		opened, ok := flow.links.open(tok)
		require.True(t, ok)
		assert.Equal(t, *l, *opened)
	}
	assert.Len(t, lengths, 1, "principals of up to 32 bytes give tokens of one length")
	long := flow.links.seal(&secretLink{Principal: strings.Repeat("x", 33), Tool: "set_password", Run: r.ID, Step: "password"})
	assert.Greater(t, len(long), len(token))
	var decoded [][]byte
	for _, part := range strings.Split(token, ".") {
		if b, err := base64.RawURLEncoding.DecodeString(part); err == nil {
			decoded = append(decoded, b)
		}
	}
	require.NotEmpty(t, decoded, "the token is base64url")
	for _, b := range append(decoded, []byte(token)) {
		for _, secret := range []string{"alice", "set_password", r.ID, "password"} {
			assert.False(t, bytes.Contains(b, []byte(secret)), "the link reveals %q", secret)
		}
	}

	next, err := flow.Next(context.Background(), secretCall(r.Result.RequestState, map[string]any{"password.secret": "accept"}))
	require.NoError(t, err)
	assert.Equal(t, token, linkToken(t, pageLink(t, next)), "the same link from round to round")

	for _, tt := range []struct{ name, token string }{
		{"a bit flipped", flipLast(token)},
		{"truncated", token[:len(token)-4]},
		{"no prefix", strings.TrimPrefix(token, "s1.")},
		{"the flow's state", r.Result.RequestState},
		{"empty", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, ok := flow.links.open(tt.token)
			assert.False(t, ok)
		})
	}
	clock.t = clock.t.Add(2*defaultRequestStateTTL + RequestStateLeeway + time.Second)
	_, ok = flow.links.open(token)
	assert.False(t, ok, "expired")
}

// flipLast changes a token's last character, keeping it base64url.
func flipLast(token string) string {
	last := token[len(token)-1]
	repl := byte('A')
	if last == 'A' {
		repl = 'B'
	}
	return token[:len(token)-1] + string(repl)
}

// TestPageCookie: a page cookie's stage holds only with its MAC, for its
// own link and value.
func TestPageCookie(t *testing.T) {
	_, codec, _ := newFlowFixture(t)
	keys := newLinkKeys(codec)
	link := &secretLink{Principal: "alice", Tool: "set_password", Run: "run-1", Step: "password"}
	other := &secretLink{Principal: "alice", Tool: "set_password", Run: "run-2", Step: "password"}
	c := newPageCookie()
	claimed := pageCookie{n: c.n, stage: stageClaimed}
	for _, tt := range []struct {
		name  string
		value string
		link  *secretLink
		want  pageCookie
	}{
		{"fresh", keys.encode(link, c), link, c},
		{"claimed", keys.encode(link, claimed), link, claimed},
		{"sent", keys.encode(link, pageCookie{n: c.n, stage: stageSent}), link, pageCookie{n: c.n, stage: stageSent}},
		{"another link's proof", keys.encode(other, claimed), link, c},
		{"a forged stage", c.n + ".dAAAAAAAAAAAAAAAAAAAAAA", link, c},
		{"another stage's proof", c.n + ".d" + keys.encode(link, claimed)[len(c.n)+2:], link, c},
		{"not a value of ours", "hello", link, pageCookie{}},
		{"empty", "", link, pageCookie{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, keys.decode(tt.link, tt.value))
		})
	}
	form := keys.mac(macForm, link, c.n)
	assert.True(t, keys.checkMAC(macForm, link, c.n, form))
	assert.False(t, keys.checkMAC(macForm, link, newPageCookie().n, form), "another browser's token")
	assert.False(t, keys.checkMAC(macForm, other, c.n, form), "another link's token")
	assert.False(t, keys.checkMAC(macForm, link, "", form), "no cookie")
}

// BenchmarkSecretFlowFirstRound is the round that asks a secret step: its
// form and its page's link, sealed.
func BenchmarkSecretFlowFirstRound(b *testing.B) {
	_, codec, _ := newFlowFixture(b)
	flow, err := NewFlow(codec, []Step{passwordStep}, &FlowOptions{Principal: tokenUser,
		Secrets: &SecretOptions{PageURL: "https://example.com/secret", Store: NewMemorySecretStore()}})
	require.NoError(b, err)
	req := secretCall("", nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := flow.Next(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
