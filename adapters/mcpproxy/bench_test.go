package mcpproxy

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/internal/benchtool"
)

// benchRedactor has the secrets of a typical configuration: a bearer
// token, an API key, a URL with a query key, two environment values.
func benchRedactor() *redactor {
	return newRedactor(Config{
		URL:     "https://mcp.example.com/mcp?key=query-key-5544aa",
		Headers: map[string]string{"Authorization": "Bearer PROXY-SECRET-123-abcdef", "X-Api-Key": "api-key-99887766"},
		Env:     map[string]string{"TOKEN": "env-token-55667788", "OTHER": "other-value-1122"},
	})
}

// benchText is about 64 KiB of log-like text holding two secrets.
func benchText() string {
	var b strings.Builder
	for i := 0; b.Len() < 64<<10; i++ {
		fmt.Fprintf(&b, "line %d: request to tool search_%d took %dms with status ok\n", i, i%7, i%100)
		if i == 300 {
			b.WriteString("upstream said: you sent Bearer PROXY-SECRET-123-abcdef\n")
		}
		if i == 600 {
			b.WriteString("env-token-\n55667788 wrapped\n")
		}
	}
	return b.String()
}

// BenchmarkRedactText measures redaction of a 64 KiB text against the
// floor of any substring redactor: one strings.Contains per secret form
// (ratio = ours / floor). The difference is the price of finding secrets
// split across lines.
func BenchmarkRedactText(b *testing.B) {
	r, text := benchRedactor(), benchText()
	forms := append(append(append([]string{}, r.exact...), r.words...), r.split...)
	var sink bool
	benchtool.Interleave(b, func() {
		_ = r.text(text)
	}, func() {
		for _, f := range forms {
			sink = sink != strings.Contains(text, f)
		}
	})
	b.SetBytes(int64(len(text)))
}

// BenchmarkStructuredFromRaw measures reading the structured content of a
// 64 KiB result from the raw answer (json.Number numbers) and redacting it,
// against the decode the SDK already makes of the same bytes
// (json.Unmarshal into any): ratio = ours / SDK decode.
func BenchmarkStructuredFromRaw(b *testing.B) {
	var items []map[string]any
	for i := 0; i < 700; i++ {
		items = append(items, map[string]any{"id": int64(9007199254740993) + int64(i), "name": fmt.Sprintf("item %d", i), "score": 0.5, "tags": []string{"a", "b"}})
	}
	sc, err := json.Marshal(map[string]any{"items": items})
	if err != nil {
		b.Fatal(err)
	}
	raw := json.RawMessage(`{"content":[],"structuredContent":` + string(sc) + `}`)
	r := benchRedactor()
	res := &mcp.CallToolResult{StructuredContent: map[string]any{}}
	benchtool.Interleave(b, func() {
		v, _, err := structuredContent(res, raw)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = r.value(v)
	}, func() {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			b.Fatal(err)
		}
	})
	b.SetBytes(int64(len(raw)))
}
