package mcpform

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/secretpage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The keys of a rotation, and the codec of each step of it (issue 33,
// item 2): before, Keys old; step 1 adds new as verify-only; step 2
// promotes new and keeps old verify-only; step 3 retires old.
var (
	rotOld = bytes.Repeat([]byte{0x0d}, MinRequestStateKeySize)
	rotNew = bytes.Repeat([]byte{0x4e}, MinRequestStateKeySize)
)

type rotationStep struct {
	name         string
	keys, verify [][]byte
}

var rotationSteps = []rotationStep{
	{"before", [][]byte{rotOld}, nil},
	{"step 1: new verify-only", [][]byte{rotOld}, [][]byte{rotNew}},
	{"step 2: new promoted", [][]byte{rotNew}, [][]byte{rotOld}},
	{"step 3: old retired", [][]byte{rotNew}, nil},
}

func (s rotationStep) codec(t *testing.T, seal bool) *RequestStateCodec {
	t.Helper()
	c, err := NewRequestStateCodec(RequestStateOptions{Keys: s.keys, VerifyKeys: s.verify, Bind: true, Seal: seal,
		Now: fixedClock(time.Unix(1_800_000_000, 0))})
	require.NoError(t, err)
	return c
}

// TestVerifyKeysNeverMint: a codec with a verify-only key mints, signed
// or sealed, under its Keys[0] alone, so a replica that lacks the
// verify-only key still opens what it mints.
func TestVerifyKeysNeverMint(t *testing.T) {
	for _, seal := range []bool{false, true} {
		t.Run(map[bool]string{false: "signed", true: "sealed"}[seal], func(t *testing.T) {
			step1 := rotationSteps[1].codec(t, seal)
			tok, err := step1.Mint("payload", "bind")
			require.NoError(t, err)
			var got string
			require.NoError(t, rotationSteps[0].codec(t, seal).Verify(tok, "bind", &got), "a replica with the old key alone")
			assert.Equal(t, "payload", got)
			assert.ErrorIs(t, rotationSteps[3].codec(t, seal).Verify(tok, "bind", nil), ErrMAC,
				"minted under the verify-only key")
		})
	}
}

// TestRotationAcrossReplicas: during each step of the rotation, what a
// replica on the step mints opens on a replica still on the step before,
// and the other way round, for a state, signed or sealed, and for what a
// flow seals at rest: its outcomes, its secrets and its page links. A
// one-step rotation, the new key first, does not.
func TestRotationAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	// mint makes one of each under codec c; open opens them under c.
	type made struct {
		state, sealedState string
		outcome            []byte
		secrets            SecretStore
		link               string
	}
	const run = "run-1"
	mint := func(t *testing.T, c *RequestStateCodec) made {
		var m made
		var err error
		m.state, err = c.Mint("state", "bind")
		require.NoError(t, err)
		m.sealedState, err = c.mint("state", "bind", true)
		require.NoError(t, err)
		seal, err := checkStores(c, &FlowOptions{Outcomes: sealingOutcomes{NewMemoryOutcomes(0)}})
		require.NoError(t, err)
		require.NotNil(t, seal)
		m.outcome, err = seal.Seal(nil, []byte(`{"status":"created"}`), []byte(run))
		require.NoError(t, err)
		m.secrets = NewMemorySecretStore()
		require.NoError(t, SealSecrets(m.secrets, c).PutSecret(ctx, "k", "correct horse", time.Now().Add(time.Hour)))
		m.link = newLinkKeys(c).Seal(&secretpage.Link{Principal: "ada", Tool: "t", Run: run, Step: "password"})
		return m
	}
	open := func(c *RequestStateCodec, m made) error {
		var errs []error
		if err := c.Verify(m.state, "bind", nil); err != nil {
			errs = append(errs, errors.New("state: "+err.Error()))
		}
		if err := c.verify(m.sealedState, "bind", nil, true); err != nil {
			errs = append(errs, errors.New("sealed state: "+err.Error()))
		}
		seal, _ := checkStores(c, &FlowOptions{Outcomes: sealingOutcomes{NewMemoryOutcomes(0)}})
		if _, err := openOutcome(seal, m.outcome, run); err != nil {
			errs = append(errs, errors.New("outcome: "+err.Error()))
		}
		if _, _, err := SealSecrets(m.secrets, c).GetSecret(ctx, "k"); err != nil {
			errs = append(errs, errors.New("secret: "+err.Error()))
		}
		if _, ok := newLinkKeys(c).Open(m.link); !ok {
			errs = append(errs, errors.New("link: does not open"))
		}
		return errors.Join(errs...)
	}
	for i := 1; i < len(rotationSteps); i++ {
		before, after := rotationSteps[i-1], rotationSteps[i]
		t.Run(after.name, func(t *testing.T) {
			b, a := before.codec(t, false), after.codec(t, false)
			assert.NoError(t, open(b, mint(t, a)), "minted on a replica that took the step, opened on one that has not")
			assert.NoError(t, open(a, mint(t, b)), "minted on a replica that has not taken the step, opened on one that has")
		})
	}
	t.Run("one step, new key first", func(t *testing.T) {
		before := rotationSteps[0].codec(t, false)
		oneStep, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{rotNew, rotOld}, Bind: true})
		require.NoError(t, err)
		err = open(before, mint(t, oneStep))
		for _, use := range []string{"state", "sealed state", "outcome", "secret", "link"} {
			assert.ErrorContains(t, err, use+": ", "a replica with the old key alone opens no %s", use)
		}
	})
}

// sealingOutcomes is an Outcomes that keeps them at rest, as a SQLStore
// does, so that a flow seals them.
type sealingOutcomes struct{ Outcomes }

func (sealingOutcomes) sealsOutcomes() bool { return true }

// TestVerifyKeysErrors: a short verify-only key is a KeySizeError that
// says so, and verify-only keys alone are no codec.
func TestVerifyKeysErrors(t *testing.T) {
	key := bytes.Repeat([]byte{1}, MinRequestStateKeySize)
	for _, tt := range []struct {
		name string
		opts RequestStateOptions
		want KeySizeError
		msg  string
	}{
		{"short key", RequestStateOptions{Keys: [][]byte{key, key[:31]}, VerifyKeys: [][]byte{key}},
			KeySizeError{Index: 1, Size: 31}, "mcpform: request-state key 1 has 31 bytes; want at least 32"},
		{"short verify-only key", RequestStateOptions{Keys: [][]byte{key}, VerifyKeys: [][]byte{key, key[:16]}},
			KeySizeError{Index: 1, Size: 16, VerifyOnly: true}, "mcpform: request-state verify-only key 1 has 16 bytes; want at least 32"},
		{"empty verify-only key", RequestStateOptions{Keys: [][]byte{key}, VerifyKeys: [][]byte{nil}},
			KeySizeError{Index: 0, Size: 0, VerifyOnly: true}, "mcpform: request-state verify-only key 0 has 0 bytes; want at least 32"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRequestStateCodec(tt.opts)
			var kse KeySizeError
			require.ErrorAs(t, err, &kse)
			assert.Equal(t, tt.want, kse)
			assert.EqualError(t, err, tt.msg)
		})
	}
	t.Run("verify-only keys alone", func(t *testing.T) {
		_, err := NewRequestStateCodec(RequestStateOptions{VerifyKeys: [][]byte{key}})
		assert.ErrorIs(t, err, errNoKeys)
	})
	t.Run("the caller's slices are copied", func(t *testing.T) {
		k := bytes.Clone(key)
		c, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{rotOld}, VerifyKeys: [][]byte{k}})
		require.NoError(t, err)
		other, err := NewRequestStateCodec(RequestStateOptions{Keys: [][]byte{key}})
		require.NoError(t, err)
		tok, err := other.Mint(1, "")
		require.NoError(t, err)
		k[0] ^= 0xff
		assert.NoError(t, c.Verify(tok, "", nil))
	})
}
