package mcpform

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"time"

	"github.com/mcpform/mcpform/internal/token"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// RequestStateLeeway is how far apart Verify lets the clocks of the minter
// and the verifier be, either way. A token still verifies RequestStateLeeway
// after its expiry, for a verifier whose clock runs ahead of the minter's;
// and its expiry may lie up to the codec's TTL plus RequestStateLeeway after
// the verifier's now, for a minter whose clock runs ahead. Verify refuses a
// token whose expiry lies further ahead as expired: a longer TTL or a wrong
// clock minted it, and honouring it would let it live too long.
const RequestStateLeeway = 5 * time.Second

// MinRequestStateKeySize is the least number of bytes in a request-state
// key, the same floor as the TypeScript SDK's.
const MinRequestStateKeySize = 32

// The four ways a token fails [RequestStateCodec.Verify]. Verify's errors
// wrap exactly one of them, so test with [errors.Is]; their messages never
// contain the token, the payload, the bind string or a key. Hand any of
// them to [RejectState] to answer the client.
var (
	// ErrMalformed means the token is not "v1." body "." MAC, a part is not
	// canonical unpadded base64url, the MAC-checked body is not a UTF-8
	// JSON object with an "exp" of whole seconds (digits only, at most
	// 2^53-1), or its payload does not decode. For a sealed token (see
	// [RequestStateOptions.Seal]): it is not "s1." and canonical base64url
	// of room for a nonce and tag, what it seals has no exp up to 2^53-1,
	// or its payload does not decode.
	ErrMalformed = token.ErrMalformed
	// ErrMAC means no key in [RequestStateOptions.Keys] made the token's MAC:
	// it was altered, or minted under another key. A sealed token (see
	// [RequestStateOptions.Seal]) that opens under no key is ErrMAC too,
	// a wrong binding included: its binding is sealed with it.
	ErrMAC = token.ErrMAC
	// ErrExpired means the token's expiry has passed, or lies further ahead
	// than the codec's TTL allows, each by more than [RequestStateLeeway].
	ErrExpired = token.ErrExpired
	// ErrBind means the signed token is bound to another bind string, or
	// its binding does not match the codec's: a binding codec got a token
	// without a bind tag, or a non-binding codec got one with a tag.
	ErrBind = token.ErrBind
)

// Misuse errors, distinct from the four verification failures above.
var (
	errNoKeys       = errors.New("mcpform: RequestStateOptions.Keys is empty")
	errNegativeTTL  = errors.New("mcpform: RequestStateOptions.TTL is negative")
	errNoCodec      = errors.New("mcpform: RequestStateCodec not made by NewRequestStateCodec")
	errBindUnused   = errors.New("mcpform: non-empty bind string for a RequestStateCodec without Bind")
	errBadPayloadTo = errors.New("mcpform: Verify needs a nil payload or a non-nil pointer")
)

// A KeySizeError reports a key in [RequestStateOptions.Keys] or
// [RequestStateOptions.VerifyKeys] shorter than [MinRequestStateKeySize]
// bytes. It carries the key's list, position and length, never its bytes.
type KeySizeError struct {
	Index      int  // position in Keys, or in VerifyKeys when VerifyOnly
	Size       int  // length in bytes
	VerifyOnly bool // the key is in VerifyKeys; false means Keys
}

// Error describes the short key by list, position and length.
func (e KeySizeError) Error() string {
	kind := "key "
	if e.VerifyOnly {
		kind = "verify-only key "
	}
	return "mcpform: request-state " + kind + strconv.Itoa(e.Index) + " has " + strconv.Itoa(e.Size) +
		" bytes; want at least " + strconv.Itoa(MinRequestStateKeySize)
}

// payloadError reports a payload that encoding/json cannot marshal (Mint) or
// unmarshal into (Verify). Its message leaves out the cause, whose text may
// quote payload values; Unwrap still reaches it.
type payloadError struct {
	msg   string
	cause error
	is    error // ErrMalformed in Verify; nil in Mint, which is misuse
}

func (e *payloadError) Error() string { return e.msg }

func (e *payloadError) Unwrap() []error {
	if e.is == nil {
		return []error{e.cause}
	}
	return []error{e.is, e.cause}
}

// RequestStateOptions configures [NewRequestStateCodec].
type RequestStateOptions struct {
	// Keys holds the HMAC keys, each at least MinRequestStateKeySize bytes
	// of secret randomness. Keys[0] mints and seals: the request state,
	// and a Flow's stored outcomes, secrets and page links. Every key,
	// here and in VerifyKeys, verifies and opens. Keys must not be empty.
	// The codec copies the keys. To rotate keys across replicas, see
	// VerifyKeys.
	Keys [][]byte
	// VerifyKeys holds keys that only verify and open, never mint or
	// seal, each at least MinRequestStateKeySize bytes. They are for
	// rotating keys while replicas differ: what one replica mints, every
	// other must open, so a new key verifies everywhere before any replica
	// mints with it. Rotate in three steps, each deployed to every replica
	// before the next begins:
	//
	//  1. Keys old, VerifyKeys new: every replica opens what the new key
	//     will seal, and still mints under the old.
	//  2. Keys new, VerifyKeys old: replicas mint under the new key; a
	//     replica not yet promoted opens what a promoted one minted, and
	//     the other way round.
	//  3. Keys new alone, once everything minted under the old key has
	//     expired: twice the TTL (a page link lives up to two TTLs), plus
	//     RequestStateLeeway, after the last replica took step 2.
	//
	// A key in both lists is as in Keys. Nil or empty means no
	// verify-only keys. The codec copies the keys.
	VerifyKeys [][]byte
	// TTL is how long a minted token stays valid, in whole seconds (any
	// fraction is dropped): a token is valid through the second of mint time
	// plus TTL, and RequestStateLeeway after. Verify refuses a token whose
	// expiry lies more than TTL plus RequestStateLeeway ahead, so a codec
	// that verifies the tokens of another needs a TTL at least as long.
	// Zero means 10 minutes, as in the TypeScript SDK; negative is an error.
	// A TTL under one second makes tokens expire in the second they were
	// minted in.
	TTL time.Duration
	// Bind makes tokens carry a tag of the bind string given to Mint, which
	// Verify must be given again. Binding to "" still binds: a binding codec
	// rejects unbound tokens and a non-binding codec rejects bound ones.
	// False means tokens are not bound, and the bind string must be "".
	Bind bool
	// Now is the clock for minting and expiry. Nil means time.Now.
	Now func() time.Time
	// Seal makes Mint seal tokens, not only sign them: the payload is
	// encrypted and authenticated with AES-256-GCM, so that clients,
	// proxies and logs that see a token read nothing of it but its length.
	// The sealing keys are derived from Keys with HKDF-SHA256, apart from
	// the MAC keys, so rotation works as for signed tokens: Keys[0] seals
	// and every key opens. The bind string is authenticated with the token
	// rather than tagged in it; expiry, RequestStateLeeway and the maximum
	// lifetime hold as for signed tokens. A sealing codec verifies only
	// sealed tokens, and a signing one only signed tokens. Sealed tokens are
	// mcpform's own format: TypeScript's createRequestStateCodec neither
	// reads nor mints them. False signs, in the TypeScript format. A
	// [Flow] seals its state whatever Seal says; see [Flow].
	Seal bool
}

// A RequestStateCodec mints and verifies requestState tokens for
// multi-round-trip tool calls. requestState travels through the client, so
// it comes back attacker-controlled; the codec MACs it so that a handler can
// trust what it put there. By default the payload is signed, not
// encrypted: the client can read it. [RequestStateOptions.Seal] encrypts it
// too.
//
// Tokens interoperate with createRequestStateCodec of the TypeScript SDK
// (@modelcontextprotocol/server 2.4.0) given the same key, TTL and bind
// string: each side verifies the other's tokens. Where the two differ is
// listed once, in the package documentation's section "Where mcpform
// differs from the TypeScript helpers".
//
// # Binding
//
// An unbound token can be replayed by whoever holds it: by another user of
// the same server, or on another tool that shares the keys. Set
// [RequestStateOptions.Bind] and give Mint and Verify the same
// [BindTo](principal, tool), where principal is who the server authenticated
// (such as the UserID in the request's auth.TokenInfo, never a value the
// client picked) and tool is the tool's name; add anything else the state
// must not outlive, such as a session ID. The token carries only an HMAC
// tag of the bind string. A TypeScript server sharing the keys must build
// the same bind string.
//
// A RequestStateCodec is safe for concurrent use. Its zero value and nil
// are not usable: their methods return an error.
type RequestStateCodec struct {
	tok  *token.Codec
	keys [][]byte // Keys then VerifyKeys; keys[0] alone mints and seals, and the flow's keys derive from them
	ttl  int64    // seconds
	bind bool
	seal bool // Mint and Verify seal
	now  func() time.Time
}

// NewRequestStateCodec returns a codec configured by opts. It fails with a
// [KeySizeError] for a key, in Keys or VerifyKeys, shorter than
// [MinRequestStateKeySize] bytes, and with other errors for no Keys
// (verify-only keys alone mint nothing) or a negative TTL.
func NewRequestStateCodec(opts RequestStateOptions) (*RequestStateCodec, error) {
	if len(opts.Keys) == 0 {
		return nil, errNoKeys
	}
	// keys[0] mints and seals everything the codec and a flow on it make,
	// and every key opens; so VerifyKeys follow Keys, and never come first.
	keys := make([][]byte, 0, len(opts.Keys)+len(opts.VerifyKeys))
	for i, k := range opts.Keys {
		if len(k) < MinRequestStateKeySize {
			return nil, KeySizeError{Index: i, Size: len(k)}
		}
		keys = append(keys, bytes.Clone(k))
	}
	for i, k := range opts.VerifyKeys {
		if len(k) < MinRequestStateKeySize {
			return nil, KeySizeError{Index: i, Size: len(k), VerifyOnly: true}
		}
		keys = append(keys, bytes.Clone(k))
	}
	ttl := opts.TTL
	switch {
	case ttl < 0:
		return nil, errNegativeTTL
	case ttl == 0:
		ttl = token.DefaultTTL
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &RequestStateCodec{tok: token.New(keys, ttl, opts.Bind, now), keys: keys, ttl: int64(ttl / time.Second),
		bind: opts.Bind, seal: opts.Seal, now: now}, nil
}

// check reports misuse common to Mint and Verify.
func (c *RequestStateCodec) check(bind string) error {
	if c == nil || len(c.keys) == 0 {
		return errNoCodec
	}
	if !c.bind && bind != "" {
		return errBindUnused
	}
	return nil
}

// Mint returns a token carrying payload, marshalled with encoding/json, that
// expires TTL after now: signed, or sealed with [RequestStateOptions.Seal].
// With [RequestStateOptions.Bind] set, the token is bound to bind (see
// BindTo); otherwise bind must be "". A nil payload mints JSON null.
func (c *RequestStateCodec) Mint(payload any, bind string) (string, error) {
	if c == nil {
		return "", errNoCodec
	}
	return c.mint(payload, bind, c.seal)
}

// mint is Mint, sealing or signing as sealed says.
func (c *RequestStateCodec) mint(payload any, bind string, sealed bool) (string, error) {
	if err := c.check(bind); err != nil {
		return "", err
	}
	p, err := json.Marshal(payload)
	if err != nil {
		return "", marshalError(err)
	}
	return c.tok.Mint(p, bind, sealed)
}

func marshalError(err error) error {
	return &payloadError{msg: "mcpform: requestState payload cannot be marshalled as JSON", cause: err}
}

// Verify checks token and decodes its payload into payload, which must be
// nil (don't decode) or a non-nil pointer. With [RequestStateOptions.Bind]
// set, bind must be the string the token was minted with; otherwise it must
// be "".
//
// Verify checks a signed token in this order, stopping at the first
// failure: the "v1." prefix and the structure ([ErrMalformed]); the MAC
// under each key in turn, compared with [hmac.Equal] ([ErrMAC]); that the
// body is canonical base64url of a UTF-8 JSON object whose "exp" is whole
// seconds ([ErrMalformed]); the expiry, valid through its second and
// [RequestStateLeeway] after, and no further ahead than the TTL and
// RequestStateLeeway ([ErrExpired]); and the binding ([ErrBind]). A codec
// with [RequestStateOptions.Seal] checks a sealed token in the same order,
// but the seal stands for both the MAC and the binding: the "s1." prefix
// and canonical base64url ([ErrMalformed]); that it opens, under each key
// in turn, for this bind string ([ErrMAC]); an expiry of whole seconds up
// to 2^53-1 ([ErrMalformed]); and the expiry ([ErrExpired]).
//
// Verify decodes the payload last, only from a token that passed every
// check; if that decoding fails, the error wraps ErrMalformed and payload
// may be partly written. Misuse (a nil codec, a bind string without Bind,
// a payload that is not a pointer) gives errors that wrap none of the four.
func (c *RequestStateCodec) Verify(token, bind string, payload any) error {
	if c == nil {
		return errNoCodec
	}
	return c.verify(token, bind, payload, c.seal)
}

// verify is Verify, of a sealed or a signed token as sealed says.
func (c *RequestStateCodec) verify(token, bind string, payload any, sealed bool) error {
	if err := c.check(bind); err != nil {
		return err
	}
	if err := checkPayloadPointer(payload); err != nil {
		return err
	}
	p, err := c.tok.Verify(token, bind, sealed)
	if err != nil || payload == nil {
		return err
	}
	if err := json.Unmarshal(p, payload); err != nil {
		return &payloadError{msg: ErrMalformed.Error() + ": payload does not decode", cause: err, is: ErrMalformed}
	}
	return nil
}

// checkPayloadPointer reports a payload for Verify that is neither nil nor
// a non-nil pointer.
func checkPayloadPointer(payload any) error {
	if payload == nil {
		return nil
	}
	if v := reflect.ValueOf(payload); v.Kind() == reflect.Pointer && !v.IsNil() {
		return nil
	}
	return errBadPayloadTo
}

// RejectState returns the JSON-RPC error that MCP clients expect for
// a rejected requestState when err wraps [ErrMalformed], [ErrMAC],
// [ErrExpired] or [ErrBind]: a *jsonrpc.Error with code -32602 (invalid
// params), message "Invalid or expired requestState" and data
// {"reason":"invalid_request_state"}, as the TypeScript SDK sends. It
// returns any other err unchanged, and nil for nil.
//
// Return the result from the tool handler as it is, not wrapped: go-sdk's
// mcp.AddTool passes only an unwrapped *jsonrpc.Error through as a JSON-RPC
// error (anything else becomes an isError result, which clients take as a
// completed call), and Server.AddTool's path drops the data of a wrapped
// one.
func RejectState(err error) error {
	if err == nil {
		return nil
	}
	if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrMAC) && !errors.Is(err, ErrExpired) && !errors.Is(err, ErrBind) {
		return err
	}
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeInvalidParams,
		Message: "Invalid or expired requestState",
		Data:    json.RawMessage(`{"reason":"invalid_request_state"}`),
	}
}

// BindTo returns a bind string for [RequestStateCodec.Mint] and
// [RequestStateCodec.Verify] that encodes parts unambiguously: each part is
// written as its length in bytes, a colon and the part, so BindTo("a", "bc")
// is "1:a2:bc" and differs from BindTo("ab", "c"). With no parts it returns
// "", which differs from BindTo(""), "0:". Typical parts are the
// authenticated principal and the tool name.
func BindTo(parts ...string) string { return token.BindTo(parts...) }
