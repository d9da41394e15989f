package secretpage

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/mcpform/mcpform/internal/token"
)

// A Link is what a secret page's link carries, sealed with [Keys]: whose
// run and step the page belongs to. It carries no secret, and its token
// reveals nothing: not the principal, the tool or the run ID.
//
// A link is a bearer token: it rides in a URL, where proxies, logs,
// histories and link previews see it. Its records (who claimed it, why it
// was closed) live in the caller's store, under keys derived from the link
// (ClaimKey, CloseKey), beside its secrets (Key).
type Link struct {
	Principal string `json:"p"`
	Tool      string `json:"t"`
	Run       string `json:"r"`
	Step      string `json:"s"`
}

// Key returns the store key of the link's secrets: a digest, so the store
// never learns who or what it holds secrets for.
func (l *Link) Key() string { return l.keyFor("mcpform/secret") }

// ClaimKey returns the store key of the link's claim: the tag of the one
// browser that may post on it.
func (l *Link) ClaimKey() string { return l.keyFor("mcpform/secret-opened") }

// CloseKey returns the store key of why the link was closed.
func (l *Link) CloseKey() string { return l.keyFor("mcpform/secret-refused") }

// CookieName names the page cookie of this link: one per link, so that two
// pages open in one browser keep their own.
func (l *Link) CookieName() string {
	return "mcpform-secret-" + l.keyFor("mcpform/secret-cookie")[:16]
}

func (l *Link) keyFor(purpose string) string {
	sum := sha256.Sum256([]byte(token.BindTo(purpose, l.Principal, l.Tool, l.Run, l.Step)))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Keys seal and open links, and make and check the page's MACs, under
// keys derived from a request-state codec's keys with HKDF-SHA256, apart
// from the state's: what one seals or MACs no other use opens or checks.
// The first key seals and MACs, and every key opens and checks, so
// rotating the codec's keys rotates these. Keys are safe for concurrent
// use.
type Keys struct {
	sealer *token.Sealer
	nonce  []byte   // derives a link's nonce from what it seals
	macs   [][]byte // the page's MAC keys
	ttl    int64    // the codec's, in seconds
	now    func() time.Time
}

// linkVersion is the version of a link's format, and of the page's MACs
// and cookies, that this release seals: it is in the labels the keys are
// derived under, so a link of another version does not open, rather than
// open misread. Version 1's plaintext is padded as a whole to LinkBucket;
// Open reads as well the links of the mains before versions (7850258 on),
// which padded the principal alone and differ only in the zeros after the
// parts.
//
// The rule, for every format a run crosses replicas in: a release reads
// the version before its own and its own, and seals what the release
// before it reads, until the next. So a link minted by one release opens
// on the page of the next, or the one before, for as long as it lives. A
// later version seals under labels of its own, which a release opens
// beside version 1's before the next seals under them.
const linkVersion = "v1"

// HKDF labels of the link keys, and the additional data a link is sealed
// under, so that nothing else sealed with the same keys opens as a link.
const (
	sealLabel  = "mcpform secret link " + linkVersion
	nonceLabel = "mcpform secret link nonce " + linkVersion
	macLabel   = "mcpform secret page " + linkVersion
	linkBind   = "mcpform/secret-link"
)

// NewKeys derives the link keys from a codec's keys, whose tokens live
// ttl, by the clock now.
func NewKeys(keys [][]byte, ttl time.Duration, now func() time.Time) *Keys {
	k := &Keys{sealer: token.NewSealer(keys, sealLabel), nonce: derive(keys[0], nonceLabel),
		ttl: int64(ttl / time.Second), now: now}
	for _, key := range keys {
		k.macs = append(k.macs, derive(key, macLabel))
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

// Life is how long a link lives at most; see expiry.
func (k *Keys) Life() time.Duration { return time.Duration(2*max(k.ttl, 1)) * time.Second }

// expiry returns when a link minted at now expires: the end of the
// TTL-long window after now's. Every round of a run mints the link of its
// step anew, and the link must stay the same from round to round, so that
// a client on 2025-11-25 sees one elicitation: so its expiry moves once
// per TTL, not every second. A link lives between one and two TTLs.
func (k *Keys) expiry(now int64) int64 {
	q := max(k.ttl, 1)
	return (now/q + 2) * q
}

// LinkBucket is the size a link's plaintext is padded to, as a whole: the
// expiry, each part's length and the parts themselves. It fits a run ID
// as a flow makes it (24 bytes) with 95 bytes of principal, tool and step
// together, say a UUID principal, a 40-byte tool name and a 19-byte step
// key, or a 58-byte email address, "wipe_all_customer_records" and
// "confirmation": every such link seals to a token of one length, 211
// characters. A link whose parts take more is padded to the next multiple
// of the bucket, so that its length tells only how many buckets it takes.
const LinkBucket = 128

// oldPadBlock is the block the principal alone was padded to before the
// whole link was (see Open).
const oldPadBlock = 32

// Seal returns l's token, sealed text (see token.Sealer): the expiry, then
// each of l's parts as its length and itself, as uvarints, and zeros that
// pad all of it to whole buckets of LinkBucket bytes, so that the token's
// length says of the principal, the tool, the run ID and the step no more
// than how many buckets they take together. The nonce is an HMAC of what
// it seals, so that the same link at the same expiry seals to the same
// token (a synthetic nonce: two tokens share a nonce only when they seal
// the same bytes, so the nonce never repeats under different plaintexts).
func (k *Keys) Seal(l *Link) string {
	n := binary.MaxVarintLen64 * 5
	for _, s := range [...]string{l.Principal, l.Tool, l.Run, l.Step} {
		n += len(s)
	}
	plain := binary.AppendUvarint(make([]byte, 0, bucketed(n)), uint64(k.expiry(k.now().Unix())))
	for _, s := range [...]string{l.Principal, l.Tool, l.Run, l.Step} {
		plain = binary.AppendUvarint(plain, uint64(len(s)))
		plain = append(plain, s...)
	}
	plain = plain[:bucketed(len(plain))] // zeros: the array is new, and written only up to len
	m := hmac.New(sha256.New, k.nonce)
	m.Write(plain)
	raw := make([]byte, token.NonceSize, token.NonceSize+len(plain)+token.TagSize)
	var sum [sha256.Size]byte
	copy(raw, m.Sum(sum[:0]))
	raw = k.sealer.AEAD().Seal(raw, raw, plain, []byte(linkBind))
	return token.SealedPrefix + base64.RawURLEncoding.EncodeToString(raw)
}

// bucketed returns n rounded up to whole buckets.
func bucketed(n int) int { return (n + LinkBucket - 1) / LinkBucket * LinkBucket }

// Open returns the link tok seals, and false when it does not open, is
// malformed or has expired. It opens links of both forms: padded as a
// whole to buckets, as Seal makes them, and, minted before, with only the
// principal padded, to 32-byte blocks. The two differ only in how many
// zeros follow the parts.
func (k *Keys) Open(tok string) (*Link, bool) {
	plain, err := k.sealer.Open(nil, []byte(tok), []byte(linkBind))
	if err != nil {
		return nil, false
	}
	size := len(plain)
	exp, n := binary.Uvarint(plain)
	now, leeway := k.now().Unix(), int64(token.Leeway/time.Second)
	if n <= 0 || exp > token.MaxExp || int64(exp) < now-leeway || int64(exp) > now+int64(k.Life()/time.Second)+leeway {
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
	if !zeros(plain) || (len(plain) >= oldPadBlock && size%LinkBucket != 0) || parts[2] == "" {
		return nil, false // more than padding after the parts
	}
	return &Link{Principal: parts[0], Tool: parts[1], Run: parts[2], Step: parts[3]}, true
}

// zeros reports whether b holds only zero bytes.
func zeros(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// A Cookie is what a browser on the page holds for one link: a random
// value of its own (N), made when it first opens the page, and, once it
// has claimed the link, the proof of its Stage.
type Cookie struct {
	N     string
	Stage byte // 0, StageClaimed or StageSent
}

// The stages of a page cookie, and the purposes of the page's MACs.
const (
	StageClaimed = 'c' // this browser claimed the link
	StageSent    = 'd' // this browser sent the link's secret
	MACForm      = 'f' // the form's token, bound to the cookie's N
	MACClaim     = 'o' // the tag a claim records, bound to the cookie's N
)

// NewCookie returns a cookie with a fresh random value.
func NewCookie() Cookie {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return Cookie{N: base64.RawURLEncoding.EncodeToString(b[:])}
}

// MAC returns the page's MAC for purpose, over l's key and the cookie
// value n, under the first key.
func (k *Keys) MAC(purpose byte, l *Link, n string) string {
	return base64.RawURLEncoding.EncodeToString(pageMAC(k.macs[0], purpose, l, n))
}

// CheckMAC reports whether got is the page's MAC for purpose under any
// key.
func (k *Keys) CheckMAC(purpose byte, l *Link, n, got string) bool {
	raw, err := token.StrictBase64URL.DecodeString(got)
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

func pageMAC(key []byte, purpose byte, l *Link, n string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte{purpose})
	m.Write([]byte(l.Key()))
	m.Write([]byte{0})
	m.Write([]byte(n))
	return m.Sum(nil)[:16]
}

// Encode returns the cookie's value: N, then "." and the stage's MAC.
func (k *Keys) Encode(l *Link, c Cookie) string {
	if c.Stage == 0 {
		return c.N
	}
	return c.N + "." + string(c.Stage) + k.MAC(c.Stage, l, c.N)
}

// Decode reads a cookie's value, and returns the zero cookie when it is
// not one the page made for l.
func (k *Keys) Decode(l *Link, v string) Cookie {
	n, proof, staged := strings.Cut(v, ".")
	if len(n) != 22 {
		return Cookie{}
	}
	if !staged {
		return Cookie{N: n}
	}
	if len(proof) < 2 || (proof[0] != StageClaimed && proof[0] != StageSent) || !k.CheckMAC(proof[0], l, n, proof[1:]) {
		return Cookie{N: n}
	}
	return Cookie{N: n, Stage: proof[0]}
}

// PageKey names the page a URL-mode request links to, for its
// elicitationId: for a link whose token is signed (a v1 token carrying a
// Link), the page's URL, run and step, which stay the same while the
// token is minted anew each round; for any other URL, the URL. (A sealed
// link stays the same from round to round by itself: see expiry.)
func PageKey(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return link
	}
	t := u.Query().Get("t")
	if !strings.HasPrefix(t, token.Prefix) || strings.Count(t, ".") != 2 {
		return link
	}
	var env struct {
		P Link `json:"p"`
	}
	body := t[len(token.Prefix):strings.LastIndexByte(t, '.')]
	if b, err := base64.RawURLEncoding.DecodeString(body); err != nil || json.Unmarshal(b, &env) != nil || env.P.Run == "" {
		return link
	}
	return token.BindTo(u.Scheme+"://"+u.Host+u.Path, env.P.Run, env.P.Step)
}
