package mcpform

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"time"
)

// A secretLink is what a secret page's link carries, signed by the flow's
// codec: whose run and step the page belongs to. It carries no secret.
//
// A link is a bearer token: it rides in a URL, where proxies, logs and
// histories keep it. So the first browser that opens it claims it (see
// [Flow.SecretPage]), and its record lives in the flow's [SecretStore]
// beside the secret, under keys of its own, so that every replica sharing
// the store agrees on who claimed a link and whether it was refused:
//
//   - opened: used once, ever, by the first GET, whose browser alone gets
//     the proof, a cookie signed by the codec.
//   - refused: set when anyone else used the link, or the page refused a
//     post. The page then refuses the link for good, and the flow takes
//     nothing from it and ends ([ErrSecretRefused]).
type secretLink struct {
	Principal string `json:"p"`
	Tool      string `json:"t"`
	Run       string `json:"r"`
	Step      string `json:"s"`
}

// secretLinkBind keeps a link from verifying as a flow's state, and a
// flow's state from verifying as a link.
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
	linkOpened  = "mcpform/secret-opened"
	linkRefused = "mcpform/secret-refused"
	linkCookie  = "mcpform/secret-cookie"
)

// cookieName names the cookie that proves the browser opened this link:
// one per link, so that two pages open in one browser keep their proofs.
func (l *secretLink) cookieName() string { return "mcpform-secret-" + l.keyFor(linkCookie)[:16] }

// secretProofBind keeps a proof from verifying as a link or a flow's state.
const secretProofBind = "mcpform/secret-proof"

// A secretProof is what the cookie of the browser that opened a link
// carries, signed by the flow's codec: the link's store key, not whose
// link it is.
type secretProof struct {
	Key string `json:"k"`
}

// claim records in store that the link was opened, and returns the proof
// to give the browser that opened it. It returns ErrSecretUsed when the
// link was opened before.
//
// The record is the store's own, that a key was used: claim puts a value
// under the opened key and deletes it at once, leaving no value behind.
// The proof is signed, so checking it needs no store.
func (l *secretLink) claim(ctx context.Context, store SecretStore, codec *RequestStateCodec, expires time.Time) (string, error) {
	key := l.keyFor(linkOpened)
	if err := store.Put(ctx, key, "opened", expires); err != nil {
		return "", err
	}
	if err := store.Delete(ctx, key); err != nil {
		return "", err
	}
	return codec.Mint(secretProof{Key: l.key()}, BindTo(secretProofBind))
}

// holds reports whether r carries the proof that its browser opened the
// link first.
func (l *secretLink) holds(r *http.Request, codec *RequestStateCodec) bool {
	c, err := r.Cookie(l.cookieName())
	if err != nil {
		return false
	}
	var proof secretProof
	if codec.Verify(c.Value, BindTo(secretProofBind), &proof) != nil {
		return false
	}
	return hmac.Equal([]byte(proof.Key), []byte(l.key()))
}

// refuse records in store that the link was used by someone else, or that
// the page refused a post: from then on the page refuses it, and the flow
// takes nothing from it.
func (l *secretLink) refuse(ctx context.Context, store SecretStore, expires time.Time) error {
	err := store.Put(ctx, l.keyFor(linkRefused), "refused", expires)
	if errors.Is(err, ErrSecretUsed) {
		return nil // refused already
	}
	return err
}

// refused reports whether the link was refused.
func (l *secretLink) refused(ctx context.Context, store SecretStore) (bool, error) {
	_, ok, err := store.Get(ctx, l.keyFor(linkRefused))
	return ok, err
}
