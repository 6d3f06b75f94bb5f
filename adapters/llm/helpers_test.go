package llm_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/packs/conformance"
	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/packs/oj"
	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/registry"
)

var quiet = slog.New(slog.DiscardHandler)

// allPacks is a registry holding every pack of this repository, the way
// examples/server serves them.
func allPacks(t testing.TB) *registry.Registry {
	t.Helper()
	reg := registry.New(registry.Options{Logger: quiet})
	ex, err := example.New()
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(ex))
	ojp, err := oj.New(oj.Config{BaseURL: "http://127.0.0.1:1"})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(ojp))
	conf, err := conformance.New(conformance.Options{StepDelay: -1})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(conf))
	otp, err := ot.New(ot.Config{Registry: reg})
	require.NoError(t, err)
	require.NoError(t, reg.AddPack(otp))
	return reg
}

// normJSON re-marshals JSON so that key order and spacing do not count.
func normJSON(t testing.TB, b []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v), "%s", b)
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return string(out)
}

func mustJSON(t require.TestingT, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
