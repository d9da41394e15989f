package terminal

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"
)

// ReadResult notes the order of the forms' fields in a tools/call
// result's JSON, which a client decodes into maps that forget it: a
// client transport calls it on each response's result.
func (d *Demo) ReadResult(result []byte) {
	var r struct {
		InputRequests map[string]struct {
			Params struct {
				RequestedSchema struct {
					Properties orderedKeys `json:"properties"`
				} `json:"requestedSchema"`
			} `json:"params"`
		} `json:"inputRequests"`
	}
	if json.Unmarshal(result, &r) == nil {
		d.forms.mu.Lock()
		for key, ir := range r.InputRequests {
			d.forms.orders[key] = ir.Params.RequestedSchema.Properties
		}
		d.forms.mu.Unlock()
	}
}

// formOrder keeps the property order of each form the server sends, by
// input key: an SDK decodes a requested schema into a map, which forgets
// the order the server asked in.
type formOrder struct {
	mu     sync.Mutex
	orders map[string][]string
}

func (f *formOrder) order(key string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.orders[key]
}

// orderedKeys unmarshals the keys of a JSON object in document order.
type orderedKeys []string

func (k *orderedKeys) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("properties is not an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		*k = append(*k, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}
