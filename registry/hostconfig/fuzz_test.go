package hostconfig_test

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// fuzzSecret is the value of $SECRET while fuzzing: it may appear in an
// error only if the files themselves hold it.
const fuzzSecret = "fz-s3cret-9d1c"

// fuzzLong is the value of $LONG while fuzzing: 131,000 bytes, so that a
// few references reach the caps of expansion (MaxExpandedValueBytes,
// MaxExpandedBytes); it never appears in an error either.
var fuzzLong = "fz-long-" + strings.Repeat("L", 131000-8)

// FuzzLoad loads arbitrary bytes as a main file that may include
// "more.yaml" (the second input), which may include "main.yaml" or
// "sub/x.yaml" (a copy of the main file) back: arbitrary content and
// include graphs, cycles included. Load must never panic; it either
// returns a Config or an error made of *Problem values wrapping
// ErrInvalid, each naming a file and saying what is wrong, never
// showing the value of an environment variable; and loading the same
// files twice gives the same answer. Expansion is capped (many references
// to $LONG).
func FuzzLoad(f *testing.F) {
	f.Add([]byte(issueExample), []byte("aliases: {m: add}\n"))
	f.Add([]byte("include: [more.yaml]\n"), []byte("include: [main.yaml]\n"))
	f.Add([]byte("include: more.yaml\nstats: {flush_interval: \"${SECRET}\"}\n"), []byte("include: [sub/x.yaml]\n"))
	f.Add([]byte("include: more.yaml\nstats: {keep_days: \"${SECRET}\"}\n"), []byte("stats: {keep_days: 36501, enabled: true}\n"))
	f.Add([]byte("snippets: {s: {body: x, params: {p: {default: [1, {a: .inf}]}}}}\n"), []byte(""))
	f.Add([]byte("a: &a [x, *a]\n"), []byte("--- \n---\n"))
	f.Add([]byte("servers: {s: {url: \"${SECRET}\", headers: {\"K\": \"${SECRET}\\r\\n\"}}}\n"), []byte("\t- :"))
	f.Add([]byte("catalogue: {allowed_hosts: [\"${SECRET}\", \"x${SECRET}:1\"], schema: \"${SECRET}\"}\nsearch_web: {base_url: \"${SECRET}\", search_tool: \"a/${SECRET}\"}\n"), []byte("mlx: {models: [a], command: [\"${EMPTY}\"]}\ndocs: {base_url: \"x${SECRET}\"}\nstats: {schema: \"${SECRET}\"}\n"))
	f.Add([]byte("include: more.yaml\nweb_fetch: {allow_addrs: [10.1.2.3/8, \"${SECRET}\", \"::ffff:10.0.0.1/128\"]}\n"), []byte("catalogue: {allow_addrs: [10.0.0.0/8, fe80::1%eth0]}\n"))
	f.Add([]byte("instructions: {x: \""+strings.Repeat("${LONG}", 10)+"\"}\n"), []byte(""))
	f.Add([]byte("include: more.yaml\ninstructions:\n  a: &v \""+strings.Repeat("${LONG}", 8)+"\"\n  b: *v\n  c: [*v, *v]\n"),
		[]byte("servers: {s: {url: \"https://x.test/${LONG}\", headers: {K: \"${LONG}${LONG}\"}}}\nsnippets: {s: {body: x, params: {p: {default: [\"${LONG}\", \"${LONG}\"]}}}}\n"))
	// One directory per fuzzing process, its files rewritten for each
	// input, in memory (/dev/shm) where there is one: creating and removing
	// a directory per input on a busy disk would be most of the cost.
	base := ""
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		base = "/dev/shm"
	}
	dir, err := os.MkdirTemp(base, "FuzzLoad")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, main, more []byte) {
		for name, content := range map[string][]byte{"main.yaml": main, "more.yaml": more, "sub/x.yaml": main} {
			if err := os.WriteFile(filepath.Join(dir, name), content, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		opts := hostconfig.LoadOptions{
			LookupEnv:    env(map[string]string{"SECRET": fuzzSecret, "EMPTY": "", "LONG": fuzzLong}),
			MaxFileBytes: 64 << 10,
		}
		cfg, err := hostconfig.Load(filepath.Join(dir, "main.yaml"), opts)
		cfg2, err2 := hostconfig.Load(filepath.Join(dir, "main.yaml"), opts)
		if (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() {
			t.Fatalf("two loads of the same files differ: %v / %v", err, err2)
		}
		if err == nil {
			if cfg == nil || cfg.Aliases == nil || cfg.Snippets == nil || cfg.Servers == nil || len(cfg.Files) == 0 {
				t.Fatalf("Load returned no error and an incomplete config: %+v", cfg)
			}
			if cfg2 == nil || len(cfg2.Aliases) != len(cfg.Aliases) {
				t.Fatal("two loads of the same files differ")
			}
			return
		}
		if cfg != nil {
			t.Fatal("Load returned a config with an error")
		}
		if !errors.Is(err, hostconfig.ErrInvalid) {
			t.Fatalf("error does not wrap ErrInvalid: %v", err)
		}
		ps := hostconfig.Problems(err)
		if len(ps) == 0 {
			t.Fatalf("error holds no *Problem: %v", err)
		}
		for _, p := range ps {
			if p.File == "" || p.Message == "" {
				t.Fatalf("problem without file or message: %#v", p)
			}
		}
		if strings.Contains(err.Error(), fuzzSecret) && !strings.Contains(string(main)+string(more), fuzzSecret) {
			t.Fatalf("the value of $SECRET appears in the error: %v", err)
		}
		if strings.Contains(err.Error(), fuzzLong[:16]) && !strings.Contains(string(main)+string(more), fuzzLong[:16]) {
			t.Fatalf("the value of $LONG appears in the error: %.200v", err)
		}
	})
}

// FuzzExpander_Server expands arbitrary server entries (a description, a
// command argument, a url and a header value) as the -proxy file's are.
// It must never panic; an error is made of *Problem values wrapping
// ErrInvalid, each naming the field, never showing an environment
// variable's value; a success has each value expanded as Expand expands
// it alone, a url without user information, and Secrets that are values
// the environment gave.
func FuzzExpander_Server(f *testing.F) {
	f.Add("via ${SECRET}", "--key=${SECRET}", "https://${HOST}:8443/${SECRET}/mcp", "Bearer ${SECRET}")
	f.Add("costs $$5", "$SECRET", "https://u:${SECRET}@x.test/mcp", "Bearer $S")
	f.Add("${UNSET:-d}", "${LONG}${LONG}${LONG}${LONG}${LONG}${LONG}${LONG}${LONG}${LONG}", "ftp://x", "${SECRET:-${X}}")
	f.Add("", "${", "${HOST}", "a$")
	f.Fuzz(func(t *testing.T, desc, arg, rawURL, header string) {
		lookup := env(map[string]string{"SECRET": fuzzSecret, "HOST": "x.test", "EMPTY": "", "LONG": fuzzLong})
		in := hostconfig.Server{Name: "s", Description: desc, Command: []string{"run", arg}, Headers: map[string]string{"K": header}}
		if rawURL != "" {
			in.Command, in.URL = nil, rawURL
		}
		x, err := (&hostconfig.Expander{LookupEnv: lookup}).Server(in)
		inputs := desc + arg + rawURL + header
		if err != nil {
			if !errors.Is(err, hostconfig.ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			for _, p := range hostconfig.Problems(err) {
				if p.Key == "" || p.Message == "" {
					t.Fatalf("problem without key or message: %#v", p)
				}
			}
			if strings.Contains(err.Error(), fuzzSecret) && !strings.Contains(inputs, fuzzSecret) {
				t.Fatalf("the value of $SECRET appears in the error: %v", err)
			}
			if strings.Contains(err.Error(), fuzzLong[:16]) && !strings.Contains(inputs, fuzzLong[:16]) {
				t.Fatalf("the value of $LONG appears in the error: %.200v", err)
			}
			return
		}
		if want, err := hostconfig.Expand(header, lookup); err != nil || x.Headers["K"] != want {
			t.Fatalf("the header is not expanded as Expand expands it alone (%v)", err)
		}
		if u, err := url.Parse(x.URL); x.URL != "" && (err != nil || u.User != nil) {
			t.Fatal("a url with user information was accepted")
		}
		for _, s := range x.Secrets {
			if s != fuzzSecret && s != "x.test" && s != fuzzLong {
				t.Fatalf("a secret that is no value of the environment: %.40q", s)
			}
		}
	})
}
