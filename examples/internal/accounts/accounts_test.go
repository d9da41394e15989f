package accounts

import (
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"golang.org/x/text/language"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreatedText(t *testing.T) {
	for _, tt := range []struct {
		a    Record
		want string
	}{
		{Record{Email: "a@x.org", Plan: "free"}, "Signup complete: created a@x.org on the Free plan."},
		{Record{Email: "a@x.org", FullName: "Ada", Plan: "pro"}, "Signup complete: created Ada <a@x.org> on the Pro plan."},
		{Record{Email: "a@x.org", Plan: "team", TeamName: "E", Seats: 3}, `Signup complete: created a@x.org on the Team plan for "E", 3 seats.`},
	} {
		assert.Equal(t, tt.want, CreatedText(language.English, tt.a))
	}
}

// TestHashPassword: the hash is PBKDF2 of the password with the salt, and
// each call draws a new salt.
func TestHashPassword(t *testing.T) {
	salt, hash := HashPassword("correct horse battery")
	s, err := hex.DecodeString(salt)
	require.NoError(t, err)
	want, err := pbkdf2.Key(sha256.New, "correct horse battery", s, PasswordIterations, sha256.Size)
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(want), hash)
	salt2, _ := HashPassword("correct horse battery")
	assert.NotEqual(t, salt, salt2)
}
