package mcpform

import (
	"context"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash"
	"strings"
	"sync"
	"time"
)

// A secretLink is what a secret page's link carries, sealed with keys
// derived from the flow's codec: whose run and step the page belongs to.
// It carries no secret, and reveals nothing: not the principal, the tool
// or the run ID.
//
// A link is a bearer token: it rides in a URL, where proxies, logs,
// histories and link previews see it. So opening it changes nothing (see
// [Flow.SecretPage]); the first POST from a browser claims it, and its
// records live in the flow's [SecretStore] beside the secret, under keys
// of its own, so that every replica sharing the store agrees:
//
//   - opened: used once, ever, by the first POST, whose browser alone gets
//     the proof, in its page cookie.
//   - closed: set when anyone else posted on the link, the page refused a
//     post, or a person who did not send the secret stopped the link
//     ("refused"), or when the flow ended without taking the
//     secret ("ended"). The page then refuses the link for good, and the
//     flow takes nothing from it.
type secretLink struct {
	Principal string `json:"p"`
	Tool      string `json:"t"`
	Run       string `json:"r"`
	Step      string `json:"s"`
}

// secretLinkBind is the additional data a link is sealed under, so that
// nothing else sealed with the same keys opens as a link.
const secretLinkBind = "mcpform/secret-link"

// key is the store key of the link's secrets: a digest, so the store never
// learns who or what it holds secrets for.
func (l *secretLink) key() string { return l.keyFor("mcpform/secret") }

func (l *secretLink) keyFor(purpose string) string {
	sum := sha256.Sum256([]byte(BindTo(purpose, l.Principal, l.Tool, l.Run, l.Step)))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Purposes of the link's other store keys, and of its cookie's name.
const (
	linkOpened = "mcpform/secret-opened"
	linkClosed = "mcpform/secret-refused"
	linkCookie = "mcpform/secret-cookie"
)

// Why a link was closed: the values under its closed key.
const (
	closedRefused = "refused" // someone else posted on it, or the page refused a post
	closedEnded   = "ended"   // the flow ended without taking its secret
	closedDone    = "done"    // the flow took its secret and finished
)

// cookieName names the page cookie of this link: one per link, so that two
// pages open in one browser keep their own.
func (l *secretLink) cookieName() string { return "mcpform-secret-" + l.keyFor(linkCookie)[:16] }

// claim records in store that the browser whose claim tag is tag posted
// on the link. It returns ErrSecretUsed when another browser did before;
// a second claim with the same tag, as a double submit or a retry makes
// before the first one's answer reached the browser, is the first.
func (l *secretLink) claim(ctx context.Context, store SecretStore, tag string, expires time.Time) error {
	key := l.keyFor(linkOpened)
	err := store.PutSecret(ctx, key, tag, expires)
	if !errors.Is(err, ErrSecretUsed) {
		return err
	}
	first, ok, gerr := store.GetSecret(ctx, key)
	if gerr != nil {
		return gerr
	}
	if !ok || !hmac.Equal([]byte(first), []byte(tag)) {
		return err
	}
	return nil
}

// close records in store why the link no longer takes anything: from then
// on the page refuses it, and the flow takes nothing from it. The first
// reason stays: close returns the reason that stands, which is why when
// this call closed the link, and whether it did.
func (l *secretLink) close(ctx context.Context, store SecretStore, why string, expires time.Time) (standing string, closed bool, err error) {
	key := l.keyFor(linkClosed)
	switch err := store.PutSecret(ctx, key, why, expires); {
	case err == nil:
		return why, true, nil
	case !errors.Is(err, ErrSecretUsed):
		return "", false, err
	}
	first, ok, err := store.GetSecret(ctx, key)
	if err != nil || !ok {
		return why, false, err // gone since: the link itself has expired
	}
	return first, false, nil
}

// closed returns why the link was closed, or "" when it was not.
func (l *secretLink) closed(ctx context.Context, store SecretStore) (string, error) {
	why, ok, err := store.GetSecret(ctx, l.keyFor(linkClosed))
	if err != nil || !ok {
		return "", err
	}
	return why, nil
}

// linkKeys are a flow's keys for its links and its page, derived from its
// codec's keys with HKDF-SHA256, apart from the state's: what one seals or
// MACs no other use opens or checks. The first key seals and MACs, and
// every key opens and checks, so rotating the codec's keys rotates these.
type linkKeys struct {
	sealer *sealer
	nonce  []byte // derives a link's nonce from what it seals
	// nonceMACs pools HMACs under nonce, which cost a few allocations
	// each to make.
	nonceMACs sync.Pool
	macs      [][]byte // the page's MAC keys
	ttl       int64    // the codec's, in seconds
	now       func() time.Time
}

// HKDF labels of the link keys.
const (
	linkSealLabel  = "mcpform secret link v1"
	linkNonceLabel = "mcpform secret link nonce v1"
	pageMACLabel   = "mcpform secret page v1"
)

func newLinkKeys(c *RequestStateCodec) *linkKeys {
	k := &linkKeys{sealer: newSealer(c.keys, linkSealLabel), ttl: c.ttl, now: c.now}
	k.nonce = derive(c.keys[0], linkNonceLabel)
	for _, key := range c.keys {
		k.macs = append(k.macs, derive(key, pageMACLabel))
	}
	return k
}

func derive(key []byte, label string) []byte {
	out, err := hkdf.Key(sha256.New, key, nil, label, 32)
	if err != nil {
		panic(err) // only for an output beyond 255 hashes
	}
	return out
}

// life is how long a link lives at most, in seconds; see expiry.
func (k *linkKeys) life() int64 { return 2 * max(k.ttl, 1) }

// expiry returns when a link minted at now expires: the end of the
// TTL-long window after now's. Every round of a run mints the link of its
// step anew, and the link must stay the same from round to round, so that
// a client on 2025-11-25 sees one elicitation (see urlElicitationID): so
// its expiry moves once per TTL, not every second. A link lives between
// one and two TTLs.
func (k *linkKeys) expiry(now int64) int64 {
	q := max(k.ttl, 1)
	return (now/q + 2) * q
}

// seal returns l's token: "s1." and base64url of a nonce, l sealed with
// AES-256-GCM, and its tag, as seal.go seals. The nonce is an HMAC of what
// it seals, so that the same link at the same expiry seals to the same
// token (a synthetic nonce: two tokens share a nonce only when they seal
// the same bytes, so the nonce never repeats under different plaintexts).
// linkPadBlock is the block a link's principal is padded to.
const linkPadBlock = 32

func (k *linkKeys) seal(l *secretLink) string {
	n := binary.MaxVarintLen64 * 5
	for _, s := range [...]string{l.Principal, l.Tool, l.Run, l.Step} {
		n += len(s)
	}
	buf := make([]byte, 0, 2*(n+linkPadBlock)+sealNonceSize+sealTagSize) // the plain text, then the sealed
	plain := binary.AppendUvarint(buf, uint64(k.expiry(k.now().Unix())))
	for _, s := range [...]string{l.Principal, l.Tool, l.Run, l.Step} {
		plain = binary.AppendUvarint(plain, uint64(len(s)))
		plain = append(plain, s...)
	}
	// Zeros for the principal to fill whole blocks, so that the token's
	// length says of it no more than how many blocks it takes: the tool,
	// the step and the run ID's size are no secret.
	plain = append(plain, make([]byte, (linkPadBlock-len(l.Principal)%linkPadBlock)%linkPadBlock)...)
	m, _ := k.nonceMACs.Get().(hash.Hash)
	if m == nil {
		m = hmac.New(sha256.New, k.nonce)
	}
	m.Reset()
	m.Write(plain)
	var sum [sha256.Size]byte
	nonce := m.Sum(sum[:0])[:sealNonceSize]
	k.nonceMACs.Put(m)
	raw := k.sealer.aeads[0].Seal(append(plain[len(plain):len(plain)], nonce...), nonce, plain, []byte(secretLinkBind))
	tok := make([]byte, 0, len(sealedPrefix)+base64.RawURLEncoding.EncodedLen(len(raw)))
	return string(base64.RawURLEncoding.AppendEncode(append(tok, sealedPrefix...), raw))
}

// open returns the link token seals, and false when it does not open, is
// malformed or has expired.
func (k *linkKeys) open(token string) (*secretLink, bool) {
	plain, _, err := k.sealer.open(nil, nil, []byte(token), []byte(secretLinkBind))
	if err != nil {
		return nil, false
	}
	exp, n := binary.Uvarint(plain)
	now, leeway := k.now().Unix(), int64(RequestStateLeeway/time.Second)
	if n <= 0 || exp > maxRequestStateExp || int64(exp) < now-leeway || int64(exp) > now+k.life()+leeway {
		return nil, false
	}
	plain = plain[n:]
	var parts [4]string
	for i := range parts {
		size, n := binary.Uvarint(plain)
		if n <= 0 || size > uint64(len(plain)-n) {
			return nil, false
		}
		parts[i], plain = string(plain[n:n+int(size)]), plain[n+int(size):]
	}
	if len(plain) >= linkPadBlock || strings.Trim(string(plain), "\x00") != "" || parts[2] == "" {
		return nil, false // more than padding after the parts
	}
	return &secretLink{Principal: parts[0], Tool: parts[1], Run: parts[2], Step: parts[3]}, true
}

// A page cookie is what a browser on the page holds for one link: a random
// value of its own (n), made when it first opens the page, and, once it
// has claimed the link, the proof of its stage.
type pageCookie struct {
	n     string
	stage byte // 0; stageClaimed; stageSent
}

// The stages of a page cookie, and the purposes of the page's MACs.
const (
	stageClaimed = 'c' // this browser claimed the link
	stageSent    = 'd' // this browser sent the link's secret
	macForm      = 'f' // the form's token, bound to the cookie's n
	macClaim     = 'o' // the tag a claim records, bound to the cookie's n
)

// newPageCookie returns a cookie with a fresh random value.
func newPageCookie() pageCookie {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return pageCookie{n: base64.RawURLEncoding.EncodeToString(b[:])}
}

// mac returns the page's MAC for purpose, over l's key and the cookie
// value n, under the first key.
func (k *linkKeys) mac(purpose byte, l *secretLink, n string) string {
	return base64.RawURLEncoding.EncodeToString(pageMAC(k.macs[0], purpose, l, n))
}

// checkMAC reports whether got is the page's MAC for purpose under any
// key.
func (k *linkKeys) checkMAC(purpose byte, l *secretLink, n, got string) bool {
	raw, err := strictBase64URL.DecodeString(got)
	if err != nil || n == "" {
		return false
	}
	for _, key := range k.macs {
		if hmac.Equal(raw, pageMAC(key, purpose, l, n)) {
			return true
		}
	}
	return false
}

func pageMAC(key []byte, purpose byte, l *secretLink, n string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte{purpose})
	m.Write([]byte(l.key()))
	m.Write([]byte{0})
	m.Write([]byte(n))
	return m.Sum(nil)[:16]
}

// encode returns the cookie's value: n, then "." and the stage's MAC.
func (k *linkKeys) encode(l *secretLink, c pageCookie) string {
	if c.stage == 0 {
		return c.n
	}
	return c.n + "." + string(c.stage) + k.mac(c.stage, l, c.n)
}

// decode reads a cookie's value, and returns the zero cookie when it is
// not one this page made for l.
func (k *linkKeys) decode(l *secretLink, v string) pageCookie {
	n, proof, staged := strings.Cut(v, ".")
	if len(n) != 22 {
		return pageCookie{}
	}
	if !staged {
		return pageCookie{n: n}
	}
	if len(proof) < 2 || (proof[0] != stageClaimed && proof[0] != stageSent) || !k.checkMAC(proof[0], l, n, proof[1:]) {
		return pageCookie{n: n}
	}
	return pageCookie{n: n, stage: proof[0]}
}

// linkStoreExpiry is when what the page or a round stores for a link now
// stops mattering: after any link minted until now has expired, by the
// store's own clock.
func (f *Flow) linkStoreExpiry() time.Time {
	return time.Now().Add(time.Duration(f.links.life())*time.Second + RequestStateLeeway)
}
