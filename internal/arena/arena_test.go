package arena

import (
	"bytes"
	"fmt"
	"testing"
)

func TestPutGetFree(t *testing.T) {
	var a Arena
	refs := map[Ref][]byte{}
	for i := range 5000 { // about 8 chunks
		v := []byte(fmt.Sprintf("value %d %s", i, bytes.Repeat([]byte{'x'}, i%200)))
		refs[a.Put(v)] = v
	}
	big := bytes.Repeat([]byte{'b'}, 3*chunkSize)
	bigRef := a.Put(big)
	for r, v := range refs {
		if got := a.Get(r); !bytes.Equal(got, v) {
			t.Fatalf("Get(%v) = %q, want %q", r, got, v)
		}
	}
	if !bytes.Equal(a.Get(bigRef), big) {
		t.Fatal("the large value changed")
	}
	chunks := len(a.chunks)
	for r := range refs {
		a.Free(r)
	}
	a.Free(bigRef)
	// Every chunk but the one being filled let its memory go.
	for i, c := range a.chunks {
		if c != nil && uint32(i) != a.fill {
			t.Errorf("chunk %d still holds %d bytes", i, len(c))
		}
	}
	// Freed slots are reused before the list of chunks grows: the same
	// values again take at most one slot more (the half-filled chunk).
	for _, v := range refs {
		a.Put(v)
	}
	a.Put(big)
	if len(a.chunks) > chunks+1 {
		t.Errorf("%d chunks after reuse, want at most %d", len(a.chunks), chunks+1)
	}
}

func TestGetDoesNotReachTheNextValue(t *testing.T) {
	var a Arena
	r := a.Put([]byte("ab"))
	a.Put([]byte("cd"))
	if got := append(a.Get(r), 'z'); string(a.Get(r)) != "ab" || string(got) != "abz" {
		t.Fatalf("appending to Get's value wrote into the arena")
	}
	if got := a.Get(Ref{chunk: r.chunk, off: 2, n: 2}); string(got) != "cd" {
		t.Fatalf("the second value is %q", got)
	}
}

// TestFillChunkEmptiedThenLeft shows that a chunk whose values are all
// freed while it is still being filled lets its memory go once the arena
// moves on to the next chunk: a store whose outcomes expire faster than
// a chunk fills must not keep one chunk per fill.
func TestFillChunkEmptiedThenLeft(t *testing.T) {
	var a Arena
	v := bytes.Repeat([]byte{'v'}, 1000)
	for range 20 * chunkSize / len(v) {
		a.Free(a.Put(v))
	}
	held := 0
	for _, c := range a.chunks {
		if c != nil {
			held++
		}
	}
	if held != 1 {
		t.Errorf("%d chunks hold memory after every value was freed, want 1 (the one being filled)", held)
	}
}
