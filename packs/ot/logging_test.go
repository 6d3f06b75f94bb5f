package ot_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/packs/ot"
)

func TestLogging_SpanNaming(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, func(f *fixture, _ *ot.Config) {
		f.topics = []ot.Topic{{Pattern: "*", File: filepath.Join(dir, "n.yaml")}}
		f.results.stored["abc123"] = []string{"a"}
	})
	calls := map[string]string{
		"ot.tools": `{"pattern":"brave"}`, "ot.packs": `{}`, "ot.aliases": `{}`, "ot.snippets": `{}`,
		"ot.help": `{"query":"web"}`, "ot.config": `{}`, "ot.health": `{}`, "ot.version": `{}`,
		"ot.reload": `{}`, "ot.notify": `{"topic":"t","message":"m"}`, "ot.stats": `{}`, "ot.result": `{"handle":"abc123"}`,
	}
	for name, args := range calls {
		f.ok(t, name, args)
		spans := f.logs.spans(t, name)
		require.Len(t, spans, 1, name)
		r := spans[0]
		assert.Equal(t, name, r["msg"], "the record is named ot.{function}")
		assert.Equal(t, name, r["tool"], "registry.Logger adds the tool")
		assert.Equal(t, "DEBUG", r["level"])
		assert.Equal(t, true, r["success"])
		assert.Contains(t, r, "duration_ms")
	}
	tools := f.logs.spans(t, "ot.tools")[0]
	assert.Equal(t, "brave", tools["pattern"])
	assert.Equal(t, "min", tools["info"])
	assert.Equal(t, float64(2), tools["count"])
	assert.Equal(t, "web", f.logs.spans(t, "ot.help")[0]["query"])

	// A failure carries its error type.
	f.call(t, "ot.stats", `{"period":"year"}`)
	failed := f.logs.spans(t, "ot.stats")[1]
	assert.Equal(t, false, failed["success"])
	assert.Equal(t, "validation_error", failed["error_type"])
	assert.Equal(t, "year", failed["period"])
}

func TestResultLogging_SpanNaming(t *testing.T) {
	f := newFixture(t, func(f *fixture, _ *ot.Config) { f.results.stored["abc123"] = []string{"error one", "fine"} })
	f.ok(t, "ot.result", `{"handle":"abc123","offset":1,"limit":5,"search":"error"}`)
	f.ok(t, "ot.result", `{"handle":"abc123"}`)
	spans := f.logs.spans(t, "ot.result")
	require.Len(t, spans, 2)
	assert.Equal(t, "abc123", spans[0]["handle"])
	assert.Equal(t, float64(1), spans[0]["offset"])
	assert.Equal(t, float64(5), spans[0]["limit"])
	assert.Equal(t, "error", spans[0]["search"])
	// Without a search, no search attribute; the defaults are logged.
	assert.NotContains(t, spans[1], "search")
	assert.Equal(t, float64(1), spans[1]["offset"])
	assert.Equal(t, float64(100), spans[1]["limit"])
}

func TestLogging_NoMessageTextOrLines(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, func(f *fixture, _ *ot.Config) {
		f.topics = []ot.Topic{{Pattern: "*", File: filepath.Join(dir, "n.yaml")}}
		f.results.stored["h"] = []string{"stored-line-secret-7f3a"}
	})
	f.ok(t, "ot.notify", `{"topic":"t","message":"message-secret-9c2e"}`)
	f.ok(t, "ot.result", `{"handle":"h"}`)
	all := f.logs.String()
	assert.False(t, strings.Contains(all, "message-secret-9c2e"), "notification text not logged")
	assert.False(t, strings.Contains(all, "stored-line-secret-7f3a"), "stored lines not logged")
	assert.Equal(t, float64(len("message-secret-9c2e")), f.logs.spans(t, "ot.notify")[0]["message_bytes"])
}
