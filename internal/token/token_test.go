package token

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

var (
	testKey = []byte(strings.Repeat("k", 32))
	testNow = time.Unix(1_767_225_600, 0)
)

func testCodec(bind bool, keys ...[]byte) *Codec {
	if len(keys) == 0 {
		keys = [][]byte{testKey}
	}
	return New(keys, DefaultTTL, bind, func() time.Time { return testNow })
}

// TestMintFormat: a signed token is the TypeScript SDK's format, byte for
// byte, built here by hand.
func TestMintFormat(t *testing.T) {
	enc := base64.RawURLEncoding
	sum := func(data string) []byte {
		h := hmac.New(sha256.New, testKey)
		h.Write([]byte(data))
		return h.Sum(nil)
	}
	tag := enc.EncodeToString(sum("mcp.requestState.bind:b")[:16])
	signed := "v1." + enc.EncodeToString([]byte(`{"p":{"x":1},"exp":1767226200,"b":"`+tag+`"}`))
	want := signed + "." + enc.EncodeToString(sum(signed))
	got, err := testCodec(true).Mint([]byte(`{"x":1}`), "b", false)
	if err != nil || got != want {
		t.Fatalf("Mint = %q, %v; want %q", got, err, want)
	}
}

func TestRoundTrip(t *testing.T) {
	old := []byte(strings.Repeat("o", 32))
	for _, sealed := range []bool{false, true} {
		for _, bind := range []bool{false, true} {
			b := ""
			if bind {
				b = "3:bob"
			}
			tok, err := testCodec(bind, old).Mint([]byte(`{"a":"é"}`), b, sealed)
			if err != nil {
				t.Fatal(err)
			}
			p, err := testCodec(bind, testKey, old).Verify(tok, b, sealed) // rotated: old still verifies
			if err != nil || string(p) != `{"a":"é"}` {
				t.Fatalf("sealed %v bind %v: Verify = %s, %v", sealed, bind, p, err)
			}
			if _, err := testCodec(bind).Verify(tok, b, sealed); !errors.Is(err, ErrMAC) {
				t.Fatalf("sealed %v bind %v: under another key: %v, want ErrMAC", sealed, bind, err)
			}
			if bind && !sealed {
				if _, err := testCodec(bind, old).Verify(tok, "3:eve", sealed); !errors.Is(err, ErrBind) {
					t.Fatalf("bound elsewhere: %v, want ErrBind", err)
				}
			}
			if _, err := testCodec(bind, old).Verify(tok, b, !sealed); !errors.Is(err, ErrMalformed) {
				t.Fatalf("sealed %v bind %v: read as the other format: %v, want ErrMalformed", sealed, bind, err)
			}
		}
	}
}

// TestLineBreaks: encoding/base64 skips \r and \n even when strict, so
// without CanonicalBase64URL a token spelled with line breaks would verify
// under the same MAC.
func TestLineBreaks(t *testing.T) {
	if _, err := StrictBase64URL.DecodeString("QUJD\nRA"); err != nil {
		t.Fatalf("encoding/base64 no longer skips line breaks (%v): CanonicalBase64URL's reason is gone", err)
	}
	for s, want := range map[string]bool{"": true, "QUJDRA": true, "QUJDRB": false, "QUJD\nRA": false, "QUJD\rRA": false,
		"QUJDRA==": false, "Q": false, "-_-_": true, "+/+/": false} {
		if got := CanonicalBase64URL(s); got != want {
			t.Errorf("CanonicalBase64URL(%q) = %v, want %v", s, got, want)
		}
	}
	c := testCodec(false)
	tok, _ := c.Mint([]byte(`1`), "", false)
	dot := strings.LastIndexByte(tok, '.')
	if _, err := c.Verify(tok[:dot]+".\n"+tok[dot+1:], "", false); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a MAC with a line break: %v, want ErrMalformed", err)
	}
	sealed, _ := c.Mint([]byte(`1`), "", true)
	if _, err := c.Verify(sealed[:10]+"\r\n"+sealed[10:], "", true); !errors.Is(err, ErrMalformed) {
		t.Fatalf("sealed text with a line break: %v, want ErrMalformed", err)
	}
}

func TestSealer(t *testing.T) {
	a, b := NewSealer([][]byte{testKey}, "a"), NewSealer([][]byte{testKey}, "b")
	text, err := a.Seal([]byte("x:"), []byte("secret"), []byte("ad"))
	if err != nil || !strings.HasPrefix(string(text), "x:"+SealedPrefix) {
		t.Fatalf("Seal = %q, %v", text, err)
	}
	text = text[2:]
	if plain, err := a.Open(nil, text, []byte("ad")); err != nil || string(plain) != "secret" {
		t.Fatalf("Open = %q, %v", plain, err)
	}
	for name, open := range map[string]func() ([]byte, error){
		"other ad":    func() ([]byte, error) { return a.Open(nil, text, []byte("ae")) },
		"other label": func() ([]byte, error) { return b.Open(nil, text, []byte("ad")) },
	} {
		if _, err := open(); !errors.Is(err, ErrMAC) {
			t.Errorf("%s: %v, want ErrMAC", name, err)
		}
	}
	if _, err := a.Open(nil, []byte(SealedPrefix+"AAAA"), nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("too short: %v, want ErrMalformed", err)
	}
}
