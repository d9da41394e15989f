package mcpformtest

import (
	"encoding/json"
	"testing"

	"github.com/mcpform/mcpform/internal/prefab"
	"github.com/stretchr/testify/assert"
)

// TestQuestionsOf keeps the server's order, titles and defaults, and
// reads nothing, without panicking, from a schema that is not one.
func TestQuestionsOf(t *testing.T) {
	for _, tt := range []struct {
		schema string
		want   []Question
	}{
		{`{"type":"object","properties":{"z":{"title":"Zed","default":"a"},"a":{}}}`, []Question{{"z", "Zed", "a"}, {"a", "", nil}}},
		{`{"type":"object"}`, nil},
		{`{"properties":[1,2]}`, nil},
		{`{"properties":{"a":}}`, nil},
		{`null`, nil},
		{``, nil},
	} {
		assert.Equal(t, tt.want, questionsOf(json.RawMessage(tt.schema)), tt.schema)
	}
}

// TestOutcome reads a result's text blocks and its status.
func TestOutcome(t *testing.T) {
	var r toolResult
	assert.NoError(t, json.Unmarshal([]byte(`{"content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}],`+
		`"structuredContent":{"status":"created"},"isError":true}`), &r))
	assert.Equal(t, Round{Path: PathOutcome, Text: "a\nb", Status: "created", IsError: true}, r.outcome())
	r = toolResult{StructuredContent: json.RawMessage(`[1]`)}
	assert.Equal(t, Round{Path: PathOutcome}, r.outcome(), "structuredContent that is no object has no status")
}

// TestEnded reads the tool's last result out of the view the companion
// gives it, under the key mcpform's views keep it, and nothing out of any
// other result.
func TestEnded(t *testing.T) {
	assert.Equal(t, prefab.OutcomeKey, outcomeKey)
	for _, tt := range []struct {
		name, structured string
		want             string // the last result's text; "" for none
	}{
		{"the view of the last result", `{"$prefab":{"version":"0.3"},"view":{},"state":{"mcpformResult":{"content":[{"type":"text","text":"Created."}]}}}`, "Created."},
		{"a step's view", `{"$prefab":{"version":"0.3"},"view":{},"state":{"mcpformResult":null}}`, ""},
		{"no view", `{"state":{"mcpformResult":{"content":[{"type":"text","text":"Created."}]}}}`, ""},
		{"not JSON", `[`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &toolResult{StructuredContent: json.RawMessage(tt.structured)}
			last := r.ended()
			if tt.want == "" {
				assert.Nil(t, last)
				return
			}
			if assert.NotNil(t, last) {
				assert.Equal(t, tt.want, last.text())
			}
		})
	}
}
