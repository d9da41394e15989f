// Package arena keeps byte strings in large chunks that hold no pointers,
// so that a store of many small values costs the garbage collector nothing
// to mark.
package arena

import "math"

// chunkSize is the size of a chunk: large against a value, small against
// the heap. A larger value gets a chunk of its own.
const chunkSize = 64 << 10

// A Ref locates a value in an Arena. It holds no pointer, so a map of Refs
// is never scanned.
type Ref struct{ chunk, off, n uint32 }

// An Arena holds values appended to chunks. A chunk's memory goes when
// every value in it is freed, and its slot is reused, so an Arena is
// bounded by the values it holds and the chunks they are spread over. It
// is not safe for concurrent use.
type Arena struct {
	chunks [][]byte
	live   []int    // values held in each chunk
	free   []uint32 // slots of chunks whose memory has gone
	fill   uint32   // the chunk being filled, if len(chunks) > 0
}

// Put copies b into a and returns its Ref.
func (a *Arena) Put(b []byte) Ref {
	if len(b) > math.MaxUint32 {
		panic("arena: value too large")
	}
	if len(a.chunks) == 0 || len(a.chunks[a.fill])+len(b) > cap(a.chunks[a.fill]) {
		old := a.fill
		a.fill = a.slot(make([]byte, 0, max(chunkSize, len(b))))
		if len(a.chunks) > 1 && a.live[old] == 0 && old != a.fill {
			a.release(old) // emptied while it was being filled
		}
	}
	c := a.chunks[a.fill]
	r := Ref{a.fill, uint32(len(c)), uint32(len(b))}
	a.chunks[a.fill] = append(c, b...)
	a.live[a.fill]++
	return r
}

// slot places chunk c in a free slot, or a new one, and returns it.
func (a *Arena) slot(c []byte) uint32 {
	if n := len(a.free); n > 0 {
		i := a.free[n-1]
		a.free = a.free[:n-1]
		a.chunks[i] = c
		return i
	}
	a.chunks = append(a.chunks, c)
	a.live = append(a.live, 0)
	return uint32(len(a.chunks) - 1)
}

// Get returns the value r locates, in place: valid until r is freed, and
// not to be written.
func (a *Arena) Get(r Ref) []byte {
	return a.chunks[r.chunk][r.off : r.off+r.n : r.off+r.n]
}

// Free forgets the value r locates; it must not be used again. The last
// value freed in a chunk other than the one being filled lets the chunk's
// memory go.
func (a *Arena) Free(r Ref) {
	a.live[r.chunk]--
	if a.live[r.chunk] == 0 && r.chunk != a.fill {
		a.release(r.chunk)
	}
}

// release lets chunk i's memory go and frees its slot.
func (a *Arena) release(i uint32) {
	a.chunks[i] = nil
	a.free = append(a.free, i)
}
