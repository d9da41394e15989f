package e2e_test

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpform/mcpform/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemoTerminal runs the demo at a real terminal, a pseudo-terminal
// that util-linux's script(1) opens, and types each answer only once its
// prompt is on the screen, as a person would. The terminal itself echoes
// what is typed, so the password stays off the screen only if the demo
// turns the echo off while it is read. The protocol trace is shown only
// with -v.
func TestDemoTerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		testenv.Missing(t, "terminal test needs util-linux's script(1), which Debian's bsdutils installs: %v", err)
	}
	const password = "correct horse battery staple"
	for _, tt := range []struct {
		name    string
		verbose bool
	}{
		{"quiet", false},
		{"with -v", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := "-demo set_password"
			if tt.verbose {
				args += " -v"
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, script, "-qfec", signupBin(t)+" "+args, "/dev/null")
			cmd.Env = append(cmd.Environ(), "TERM=dumb")
			stdin, err := cmd.StdinPipe()
			require.NoError(t, err)
			screen := &screen{}
			cmd.Stdout, cmd.Stderr = screen, screen
			require.NoError(t, cmd.Start())
			defer cmd.Process.Kill()

			// Each answer waits for the screen to show its prompt.
			for _, step := range []struct{ prompt, answer string }{
				{"Email (required", "ada@example.com"},
				{"Full name (optional", ""},
				{"Plan (required", "pro"},
				{"The account whose password to set.", "ada@example.com"},
				{"(on the page)", password},
			} {
				require.True(t, screen.waitFor(ctx, step.prompt), "waiting for %q; the screen:\n%s", step.prompt, screen)
				_, err := io.WriteString(stdin, step.answer+"\r")
				require.NoError(t, err)
			}
			require.NoError(t, cmd.Wait(), "the screen:\n%s", screen)
			out := screen.String()
			assert.Contains(t, out, "Password set for ada@example.com.")
			assert.NotContains(t, out, password, "the terminal never shows the password")
			assert.Contains(t, out, "ada@example.com", "other answers echo as typed")
			trace := []string{"client → tools/call", "server ← input_required", "requestState", `{"email"`}
			for _, line := range trace {
				assert.Equal(t, tt.verbose, strings.Contains(out, line), "%q on the screen, verbose=%v:\n%s", line, tt.verbose, out)
			}
		})
	}
}

// A screen is what the process writes to its terminal, read while it
// writes, and how far the answers have read it.
type screen struct {
	syncBuffer
	seen int // the screen before the last prompt answered: prompts repeat
}

// waitFor reports whether text appears on the screen after what earlier
// waits found, before ctx ends.
func (s *screen) waitFor(ctx context.Context, text string) bool {
	for ctx.Err() == nil {
		if i := strings.Index(s.String()[s.seen:], text); i >= 0 {
			s.seen += i + len(text)
			time.Sleep(50 * time.Millisecond) // the prompt's "> " follows its heading
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}
