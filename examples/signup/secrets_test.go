package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpform/mcpform"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSecretStore checks the database's SecretStore against the interface's
// promises: a key is stored once, ever; Get finds a value until it expires
// or is deleted; Delete keeps the record that the key was used.
func TestSecretStore(t *testing.T) {
	ctx := context.Background()
	later, past := time.Now().Add(time.Minute), time.Now().Add(-time.Second)
	type want struct {
		value string
		ok    bool
	}
	for _, tt := range []struct {
		name string
		do   func(mcpform.SecretStore) error // before Get("k")
		err  error                           // what do returns
		getK want
	}{
		{"put then get", func(s mcpform.SecretStore) error { return s.Put(ctx, "k", "v", later) }, nil, want{"v", true}},
		{"missing", func(mcpform.SecretStore) error { return nil }, nil, want{}},
		{"expired", func(s mcpform.SecretStore) error { return s.Put(ctx, "k", "v", past) }, nil, want{}},
		{"deleted", func(s mcpform.SecretStore) error {
			return errors.Join(s.Put(ctx, "k", "v", later), s.Delete(ctx, "k"))
		}, nil, want{}},
		{"second put refused, first kept", func(s mcpform.SecretStore) error {
			return errors.Join(s.Put(ctx, "k", "v", later), s.Put(ctx, "k", "w", later))
		}, mcpform.ErrSecretUsed, want{"v", true}},
		{"put after delete refused", func(s mcpform.SecretStore) error {
			return errors.Join(s.Put(ctx, "k", "v", later), s.Delete(ctx, "k"), s.Put(ctx, "k", "w", later))
		}, mcpform.ErrSecretUsed, want{}},
		{"put after expiry refused", func(s mcpform.SecretStore) error {
			return errors.Join(s.Put(ctx, "k", "v", past), s.Put(ctx, "k", "w", later))
		}, mcpform.ErrSecretUsed, want{}},
		{"keys apart", func(s mcpform.SecretStore) error {
			return errors.Join(s.Put(ctx, "j", "x", later), s.Put(ctx, "k", "v", later), s.Delete(ctx, "j"))
		}, nil, want{"v", true}},
		{"delete of a missing key", func(s mcpform.SecretStore) error { return s.Delete(ctx, "k") }, nil, want{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, err := openStore(ctx, "")
			require.NoError(t, err)
			defer st.Close()
			s := st.secrets()
			err = tt.do(s)
			if tt.err == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tt.err)
			}
			v, ok, err := s.Get(ctx, "k")
			require.NoError(t, err)
			assert.Equal(t, tt.getK, want{v, ok})
		})
	}
}
