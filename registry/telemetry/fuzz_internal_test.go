package telemetry

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
)

// FuzzArgAttrs: whatever the raw arguments, the traced arguments are read
// without a panic, only names asked for appear, each once, and strings
// are cut at MaxArgAttrBytes without splitting a rune.
func FuzzArgAttrs(f *testing.F) {
	for _, s := range []string{`{"handle":"abc","offset":3,"limit":2.5,"search":null}`, `{"search":{"a":[1,2]}}`, `[1,2]`, `{"handle":"` + strings.Repeat("é", 700) + `"}`, `{"offset":99999999999999999999}`, `{"handle":true}`, `nul`} {
		f.Add([]byte(s))
	}
	names := []string{"handle", "offset", "limit", "search"}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := argAttrs(json.RawMessage(raw), names, nil)
		seen := map[attribute.Key]bool{}
		for _, kv := range got {
			if seen[kv.Key] || !strings.Contains(" handle offset limit search ", " "+string(kv.Key)+" ") {
				t.Fatalf("unexpected attribute %q in %v", kv.Key, got)
			}
			seen[kv.Key] = true
			if kv.Value.Type() == attribute.STRING {
				s := kv.Value.AsString()
				if len(s) > MaxArgAttrBytes {
					t.Fatalf("%s: %d bytes", kv.Key, len(s))
				}
				if utf8.ValidString(string(raw)) && !utf8.ValidString(s) {
					t.Fatalf("%s: cut inside a rune", kv.Key)
				}
			}
		}
	})
}

// fuzzEnvVars are the variables FuzzSetupEnv sets, one at a time, over an
// OTLP setup that is otherwise well-formed.
var fuzzEnvVars = []string{
	"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_ENDPOINT",
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_RESOURCE_ATTRIBUTES",
	"OTEL_SERVICE_NAME", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG", "OTEL_BSP_SCHEDULE_DELAY", "OTEL_BSP_EXPORT_TIMEOUT",
	"OTEL_BSP_MAX_QUEUE_SIZE", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT",
	"OTEL_METRIC_EXPORT_INTERVAL", "OTEL_METRIC_EXPORT_TIMEOUT", "OTEL_METRICS_EXEMPLAR_FILTER",
}

// FuzzSetupEnv: whatever one OTEL_* variable holds, Setup either refuses
// it with an error naming a variable or makes providers that shut down;
// it never panics (the SDK itself panics on some values), and a header
// value never appears in its error.
func FuzzSetupEnv(f *testing.F) {
	for i, v := range []string{"otlp", "console", "grpc", "localhost:4318", "Authorization=Bearer%zzsecret", "10s", "zstd",
		"a=1,b", "svc", "bogus", "1.5", "-1", "0", "-5", "2000000000", "-1", "abc", "99999999999999999999", "always_off"} {
		f.Add(uint8(i), v)
	}
	f.Fuzz(func(t *testing.T, which uint8, val string) {
		if strings.ContainsRune(val, 0) {
			return // not an environment value
		}
		for _, v := range fuzzEnvVars {
			t.Setenv(v, "")
		}
		t.Setenv("OTEL_SDK_DISABLED", "")
		t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
		t.Setenv("OTEL_METRICS_EXPORTER", "otlp")
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
		name := fuzzEnvVars[int(which)%len(fuzzEnvVars)]
		if (name == "OTEL_TRACES_EXPORTER" || name == "OTEL_METRICS_EXPORTER") && strings.Contains(strings.ToLower(val), "console") {
			return // console exporters write to the test's stdout
		}
		t.Setenv(name, val)
		p, err := Setup(context.Background(), SetupOptions{})
		if err != nil {
			if !strings.Contains(err.Error(), "OTEL_") {
				t.Fatalf("%s=%q: the error names no variable: %v", name, val, err)
			}
			if name == "OTEL_EXPORTER_OTLP_HEADERS" && len(val) >= 8 {
				if _, v, ok := strings.Cut(val, "="); ok && len(v) >= 8 && strings.Contains(err.Error(), v) {
					t.Fatalf("a header value is repeated: %v", err)
				}
			}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_ = p.Shutdown(ctx)
	})
}
