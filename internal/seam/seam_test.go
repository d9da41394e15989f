package seam_test

import (
	"testing"

	_ "github.com/mcpform/mcpform" // fills in the seam
	"github.com/mcpform/mcpform/internal/seam"
)

// TestFilled: importing the root package fills in every entry point, so a
// face never calls a nil function.
func TestFilled(t *testing.T) {
	if seam.Read == nil || seam.Ask == nil || seam.Reask == nil || seam.Next == nil || seam.Once == nil {
		t.Fatal("the root package left a seam function nil")
	}
}
