package mcpform

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The performance claims of issue 9 are measured by the benchmarks next to
// their peers (BenchmarkFormRead and BenchmarkReferenceValidator,
// BenchmarkMarshalInputRequest, BenchmarkCheckScaling) and, for the
// TypeScript peer, by interop/bench-accept.mjs run in the same loop; see
// that script for the command. Only ratios from one interleaved run count:
// the machine is shared. The claim below is about memory, which a test can
// measure exactly.

// TestUnknownKeysCostNoMemory: an answer with 100,000 keys that name no
// field costs Form.Read no more memory than one with 1,000, and far less
// than the answer itself, because nothing is allocated per unknown key.
func TestUnknownKeysCostNoMemory(t *testing.T) {
	form, err := NewForm[Answers]([]AutoFormField{{Name: "email", Type: TypeEmail, Required: true}}, nil)
	require.NoError(t, err)
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.TotalAlloc
	}
	// junk returns an answer with n unknown keys and the bytes it took.
	junk := func(n int) (map[string]any, uint64) {
		before := heap()
		content := map[string]any{"email": "ada@example.com"}
		for i := range n {
			content[fmt.Sprintf("k%06d", i)] = true
		}
		return content, heap() - before
	}
	// read returns the bytes Form.Read allocates on content, on average.
	read := func(content map[string]any) uint64 {
		responses := answer(DefaultInputKey, "accept", content)
		const runs = 5
		before := heap()
		for range runs {
			r := form.Read(responses)
			require.Equal(t, ReplyAccepted, r.Status)
			require.Len(t, r.Problems, maxUnknownReported+1)
		}
		return (heap() - before) / runs
	}
	small, _ := junk(1_000)
	large, answerBytes := junk(100_000)
	readSmall, readLarge := read(small), read(large)
	t.Logf("answer: %d bytes; Form.Read: %d bytes (%d with 1,000 keys)", answerBytes, readLarge, readSmall)
	// A kilobyte of slack for what the race detector adds, not per key:
	// one byte per key would be a hundred times that.
	assert.Less(t, readLarge, readSmall+1024, "Form.Read allocates with the unknown keys")
	assert.Less(t, readLarge*100, answerBytes, "Form.Read costs more than a hundredth of the answer's memory")
}
