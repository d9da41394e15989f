package mcpform

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"strings"
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
func (p *memPacker) pack(blob []byte, now, keep int64) (string, *memDict) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if (p.dict == nil || now >= p.dict.until) && len(blob) <= maxPackDict {
		p.dict = &memDict{data: blob, until: now + keep}
		w, err := flate.NewWriterDict(&p.buf, memPackLevel, blob)
		if err != nil {
			panic(err) // only for a level out of range
		}
		p.w = w
	}
	if p.w == nil {
		return string(blob), nil
	}
	p.buf.Reset()
	p.w.Reset(&p.buf)
	p.w.Write(blob) // to a bytes.Buffer: never fails
	p.w.Close()
	if p.buf.Len() >= len(blob) {
		return string(blob), nil
	}
	return p.buf.String(), p.dict
}

// readers are flate readers for unpack, which runs on replays only.
var readers sync.Pool

// unpack returns the outcome pack kept as kept against dict.
func unpack(kept string, dict *memDict) ([]byte, error) {
	if dict == nil {
		return []byte(kept), nil
	}
	src := strings.NewReader(kept)
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
