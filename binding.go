package mcpform

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
)

// argumentsDigest returns a digest of a tool call's arguments that does not
// depend on their spelling: key order, white space and the spelling of a
// number (1, 1.0, 1e0) do not change it, and absent, null and {} arguments
// are alike. encoding/json writes map keys sorted and each float64 one way,
// so a decode and an encode make the canonical form.
func argumentsDigest(raw json.RawMessage) (string, error) {
	var v any
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", err
		}
	}
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		v = nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}
