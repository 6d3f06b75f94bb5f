package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadProxyFile feeds arbitrary bytes to the -proxy file reader: it
// must never panic, must reject what is not a JSON array of servers with a
// usage error naming the flag, and must never quote a header or env value
// (which may be a secret) in an error.
func FuzzReadProxyFile(f *testing.F) {
	f.Add([]byte(`[{"name":"mem","url":"http://127.0.0.1:1/mcp","headers":{"Authorization":"Bearer s3cr3t-value"}}]`))
	f.Add([]byte(`[{"name":"child","command":["srv","--stdio"],"env":{"TOKEN":"${FUZZ_UNSET_VAR}"}}]`))
	f.Add([]byte(`[{"name":"x","bogus":1}]`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[`))
	f.Add([]byte(``))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "proxy.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfgs, err := readProxyFile(path)
		if err != nil {
			if !strings.Contains(err.Error(), "flag -proxy") {
				t.Fatalf("error does not name the flag: %v", err)
			}
			if strings.Contains(err.Error(), "s3cr3t-value") {
				t.Fatalf("error quotes a header value: %v", err)
			}
			return
		}
		if cfgs == nil {
			t.Fatalf("nil configuration without an error for %q", data)
		}
	})
}
