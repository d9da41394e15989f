package mcpform

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"sync"
)

// memPacker compresses the outcomes MemoryOutcomes keeps: a server keeps
// one for every run its state may still replay, thousands a second, and
// an outcome's JSON is mostly what every outcome of its tool says. So
// each is compressed with DEFLATE against a dictionary, a recent outcome
// (a signup's 230 bytes keep as 50), and kept as it is when that is no
// smaller.
//
// The dictionary is an outcome of a run, so it is replaced after the
// store's keep: it stays in memory only until the outcomes compressed
// against it expire, at most twice the keep after its own run.
type memPacker struct {
	mu   sync.Mutex
	dict *memDict
	w    *flate.Writer // against dict; nil until the first outcome
	buf  bytes.Buffer
}

// A memDict is a dictionary of memPacker's, with the Unix nanoseconds at
// which a new one replaces it.
type memDict struct {
	data  []byte
	until int64
}

// memPackLevel is DEFLATE's level for outcomes: level 1 ignores a
// dictionary, and higher levels cost the same on outcomes this small.
const memPackLevel = 2

// maxPackDict bounds a dictionary: DEFLATE looks back 32 KiB at most.
const maxPackDict = 32 << 10

// pack returns blob as it is to be kept, and the dictionary it is
// compressed against, nil when it is kept as it is. now and keep are in
// nanoseconds.
func (p *memPacker) pack(blob []byte, now, keep int64) ([]byte, *memDict) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if (p.dict == nil || now >= p.dict.until) && len(blob) <= maxPackDict {
		// A copy: the caller gets blob back, and may hold it.
		p.dict = &memDict{data: bytes.Clone(blob), until: now + keep}
		w, err := flate.NewWriterDict(&p.buf, memPackLevel, p.dict.data)
		if err != nil {
			panic(err) // only for a level out of range
		}
		p.w = w
	}
	if p.w == nil {
		return blob, nil
	}
	p.buf.Reset()
	p.w.Reset(&p.buf)
	p.w.Write(blob) // to a bytes.Buffer: never fails
	p.w.Close()
	if p.buf.Len() >= len(blob) {
		return blob, nil
	}
	return bytes.Clone(p.buf.Bytes()), p.dict
}

// readers are flate readers for unpack, which runs on replays only.
var readers sync.Pool

// unpack returns the outcome pack kept as kept against dict.
func unpack(kept []byte, dict *memDict) ([]byte, error) {
	if dict == nil {
		return bytes.Clone(kept), nil
	}
	src := bytes.NewReader(kept)
	r, ok := readers.Get().(io.ReadCloser)
	if ok {
		r.(flate.Resetter).Reset(src, dict.data)
	} else {
		r = flate.NewReaderDict(src, dict.data)
	}
	defer readers.Put(r)
	blob, err := io.ReadAll(r)
	if err != nil {
		return nil, errors.New("mcpform: a kept outcome does not decompress")
	}
	return blob, nil
}

// memArena keeps outcomes back to back in chunks of memory, each one
// compressed against its chunk's dictionary or kept as it is, so that
// what the store keeps for a run is no object of its own: the collector
// marks a chunk, never each outcome in it, and never scans its bytes. A
// chunk is freed once all its outcomes have expired.
type memArena struct {
	chunks []*memChunk // oldest first
	first  uint32      // the number of chunks[0]
}

// A memChunk is outcomes back to back, and when the last of them expires.
type memChunk struct {
	data    []byte
	dict    *memDict // of the compressed outcomes in it
	expires int64
}

// A memDone locates a decided run's outcome in a memArena, and says when
// the run expires.
type memDone struct {
	expires int64
	chunk   uint32
	off, n  uint32
	raw     bool // kept as it is, not against the chunk's dictionary
}

// memChunkSize is the size of a chunk, a few hundred outcomes.
const memChunkSize = 32 << 10

// add keeps b, compressed against dict or, for nil, as it is, for a run
// that expires then.
func (a *memArena) add(b []byte, dict *memDict, expires int64) memDone {
	var c *memChunk
	if n := len(a.chunks); n > 0 {
		c = a.chunks[n-1]
	}
	if c == nil || len(c.data)+len(b) > cap(c.data) || (dict != nil && c.dict != nil && c.dict != dict) {
		c = &memChunk{data: make([]byte, 0, max(memChunkSize, len(b)))}
		a.chunks = append(a.chunks, c)
	}
	if dict != nil {
		c.dict = dict
	}
	d := memDone{expires: expires, chunk: a.first + uint32(len(a.chunks)-1),
		off: uint32(len(c.data)), n: uint32(len(b)), raw: dict == nil}
	c.data = append(c.data, b...)
	c.expires = max(c.expires, expires)
	return d
}

// get returns the outcome d locates, as add kept it, and its dictionary,
// or false when its chunk is freed. The bytes are never written again.
func (a *memArena) get(d memDone) ([]byte, *memDict, bool) {
	i := int64(d.chunk) - int64(a.first)
	if i < 0 || i >= int64(len(a.chunks)) {
		return nil, nil, false
	}
	c := a.chunks[i]
	b := c.data[d.off : d.off+d.n : d.off+d.n]
	if d.raw {
		return b, nil, true
	}
	return b, c.dict, true
}

// sweep frees the oldest chunks whose outcomes have all expired by now.
func (a *memArena) sweep(now int64) {
	n := 0
	for n < len(a.chunks) && a.chunks[n].expires <= now {
		n++
	}
	if n > 0 {
		clear(a.chunks[:n])
		a.chunks = a.chunks[n:]
		a.first += uint32(n)
	}
}
