package hostconfig

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/netip"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/toolpack-go/toolpack/internal/pgschema"
	"github.com/toolpack-go/toolpack/internal/topicglob"
	"github.com/toolpack-go/toolpack/netguard"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/snippet"
)

// Name rules.
var (
	serverNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	paramNameRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
	headerNameRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

// Keys of each section, in the order messages list them.
var (
	rootKeys    = []string{"include", "aliases", "snippets", "servers", "instructions", "notify", "stats", "output", "docs", "catalogue", "transcript", "search_web", "web_fetch", "mlx"}
	snippetKeys = []string{"description", "params", "body"}
	paramKeys   = []string{"description", "default", "example"}
	serverKeys  = []string{"command", "url", "env", "inherit_env", "headers", "description", "dir"}
	notifyKeys  = []string{"topics", "max_file_bytes"}
	topicKeys   = []string{"pattern", "file"}
	statsKeys   = append([]string{"enabled", "dir", "flush_interval", "context_per_call", "time_per_call_ms", "keep_days"}, pgKeys...)
	outputKeys  = append([]string{"max_inline_bytes", "dir", "ttl", "reports_dir"}, pgKeys...)
	docsKeys    = []string{"base_url", "slugs"}
	catKeys     = append([]string{"dir", "allowed_hosts", "allow_private", "allow_addrs", "secrets"}, pgKeys...)
	trKeys      = []string{"base_url", "api_key", "model", "context_tokens", "timeout"}
	mlxKeys     = []string{"command", "models", "start_timeout"}
	swKeys      = []string{"base_url", "api_key", "search_tool", "timeout"}
	wfKeys      = []string{"allow_private", "allow_addrs", "max_bytes", "max_redirects", "timeout", "max_concurrent_extractions"}

	// pgKeys are the keys of Postgres, shared by the catalogue, stats and
	// output sections and decoded by decoder.postgres.
	pgKeys = []string{"dsn", "schema", "max_conns", "statement_timeout"}
)

// decoder turns the merged tree into a Config, reporting every problem.
type decoder struct {
	l *loader
	// aliasAt locates each alias for the checks made after decoding.
	aliasAt map[string]*yaml.Node
	// pos records where each key path was set.
	pos map[string]position
	// order records the names of each top-level section of named
	// entries (aliases, snippets, …) in the merged tree's order.
	order map[string][]string
	// envValues, when set, collects the values ${VAR}s expand to.
	envValues *[]string
}

// note records where the value of key path p is.
func (d *decoder) note(p string, v *yaml.Node) {
	if d.pos == nil {
		return
	}
	file, line := d.l.at(v)
	d.pos[p] = position{file: file, line: line}
}

func (d *decoder) bad(n *yaml.Node, key, format string, a ...any) {
	file, line := d.l.at(n)
	d.l.probs.add(file, line, key, format, a...)
}

func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// fields walks a mapping with a fixed set of keys, calling fn for each
// known key whose value is not null, and reporting unknown keys.
func (d *decoder) fields(n *yaml.Node, key string, known []string, fn func(k string, kn, vn *yaml.Node, path string)) {
	m := deref(n)
	if m.Kind != yaml.MappingNode {
		d.bad(n, key, "expected a mapping with keys %s, got %s", strings.Join(known, ", "), kindOf(m))
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn, vn := m.Content[i], m.Content[i+1]
		if kn.Kind != yaml.ScalarNode {
			continue // reported by checkKeys
		}
		p := join(key, kn.Value)
		if !slices.Contains(known, kn.Value) {
			d.bad(kn, p, "unknown key %s; expected one of %s", quote(kn.Value), strings.Join(known, ", "))
			continue
		}
		if isNull(vn) {
			continue // an empty value keeps the default
		}
		d.note(p, vn)
		fn(kn.Value, kn, vn, p)
	}
}

// entries walks a mapping whose keys are names the user chooses.
func (d *decoder) entries(n *yaml.Node, key, what string, fn func(name string, kn, vn *yaml.Node, path string)) {
	m := deref(n)
	if m.Kind != yaml.MappingNode {
		d.bad(n, key, "expected a mapping of %s, got %s", what, kindOf(m))
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn, vn := m.Content[i], m.Content[i+1]
		if kn.Kind != yaml.ScalarNode {
			continue
		}
		d.note(join(key, kn.Value), vn)
		if d.order != nil && !strings.Contains(key, ".") {
			d.order[key] = append(d.order[key], kn.Value)
		}
		before := len(d.l.probs.list)
		fn(kn.Value, kn, vn, join(key, kn.Value))
		if isNull(vn) && what != paramEntries && len(d.l.probs.list) > before {
			// Left after merging: no earlier file made an entry of that
			// name for it to drop (a parameter written `n:` is one
			// without a description, not a drop).
			last := d.l.probs.list[len(d.l.probs.list)-1]
			last.Message += fmt.Sprintf(" (an empty entry drops the entry of that name an earlier file made, and none made %s)", quote(kn.Value))
		}
	}
}

// paramEntries is what a snippet's params map holds: an empty entry there
// is a parameter without description, not a drop.
const paramEntries = "parameter names to parameters"

// text returns a scalar's text with ${VAR} expanded (when expandEnv),
// reporting a problem and returning ok false otherwise.
func (d *decoder) text(n *yaml.Node, key string, expandEnv bool) (string, bool) {
	return d.scalar(n, key, "a string", expandEnv)
}

// scalar is text for a value that must be written as a scalar: a list, a
// mapping or an empty value is reported as not being what is expected (a
// duration, a whole number, …).
func (d *decoder) scalar(n *yaml.Node, key, expected string, expandEnv bool) (string, bool) {
	s := deref(n)
	if s == nil || s.Kind != yaml.ScalarNode || s.Tag == "!!null" {
		d.bad(n, key, "expected %s, got %s", expected, kindOf(s))
		return "", false
	}
	if !expandEnv {
		return s.Value, true
	}
	v, _, problem := expand(s.Value, d.lookupEnv(), d.l.opts.MaxExpandedValueBytes, &d.l.expandLeft)
	if problem != "" {
		d.bad(n, key, "%s", problem)
		return "", false
	}
	return v, true
}

// lookupEnv is the loader's LookupEnv, also noting the values it gives in
// d.envValues while that is set (a server entry, or a URL or key of
// transcript: or search_web:, being read).
func (d *decoder) lookupEnv() func(string) (string, bool) {
	lookup := d.l.opts.LookupEnv
	if d.envValues == nil {
		return lookup
	}
	return func(name string) (string, bool) {
		v, ok := lookup(name)
		if ok && v != "" && !slices.Contains(*d.envValues, v) {
			*d.envValues = append(*d.envValues, v)
		}
		return v, ok
	}
}

// noting runs fn noting in *dst the values the environment gives the
// ${VAR}s it expands (a section's base_url and api_key), as a server
// entry's are noted in Server.Secrets.
func (d *decoder) noting(dst *[]string, fn func()) {
	prev := d.envValues
	d.envValues = dst
	defer func() { d.envValues = prev }()
	fn()
}

// notingURL is noting for a URL (fn returns it, "" when refused): a value
// that lies wholly within the URL's scheme, host and port (https, 8080,
// whisper) is no secret, and redacting it would garble every message
// naming the endpoint; any other (a token in the path, query or fragment,
// the whole URL, a host with its path) is noted.
func (d *decoder) notingURL(dst *[]string, fn func() string) {
	var vals []string
	var raw string
	d.noting(&vals, func() { raw = fn() })
	addURLSecrets(dst, raw, vals)
}

// addURLSecrets adds to *dst (once each) the values vals the environment
// gave the ${VAR}s of the URL raw, but for those that lie wholly within
// its scheme, host and port; all of them when raw is "" (refused) or
// does not parse.
func addURLSecrets(dst *[]string, raw string, vals []string) {
	u, err := url.Parse(raw)
	authority, rest := "", raw
	if err == nil && raw != "" && u.Host != "" {
		// The URL as written up to its host and port (a scheme may be
		// written in capitals; url.Parse lowers it): what follows is the
		// path, query and fragment.
		from := strings.Index(raw, "://") + 3 // absent: 2, past a scheme-relative "//"
		if i := strings.Index(raw[from:], u.Host); i >= 0 {
			end := from + i + len(u.Host)
			authority, rest = raw[:end], raw[end:]
		}
	}
	for _, v := range vals {
		// A value also found past the authority is a secret there (a
		// token that happens to spell part of the host or port).
		inAuthorityOnly := authority != "" && strings.Contains(authority, v) && !strings.Contains(rest, v)
		if !slices.Contains(*dst, v) && !inAuthorityOnly {
			*dst = append(*dst, v)
		}
	}
}

// shown quotes a scalar's value for a problem as the file writes it: a
// ${VAR} reference is named, never the value it expands to, which may be
// a secret.
func shown(n *yaml.Node) string { return quote(deref(n).Value) }

// fromEnv reports whether the text t of n came (in part) from the
// environment, so that nothing derived from it may be shown.
func fromEnv(n *yaml.Node, t string) bool { return deref(n).Value != t }

// secretText is text for values that may be secrets: the messages never
// show the value.
func (d *decoder) secretText(n *yaml.Node, key string) (string, bool) {
	s := deref(n)
	if s == nil || s.Kind != yaml.ScalarNode || s.Tag == "!!null" {
		what := "an empty value"
		if s != nil && s.Kind != yaml.ScalarNode {
			what = kindOf(s) // a list or a mapping: no value shown
		}
		d.bad(n, key, "expected a string, got %s", what)
		return "", false
	}
	return d.text(n, key, true)
}

func (d *decoder) boolean(n *yaml.Node, key string) (bool, bool) {
	v, ok := d.scalar(n, key, "true or false", true)
	if !ok {
		return false, false
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	d.bad(n, key, "expected true or false, got %s", shown(n))
	return false, false
}

func (d *decoder) integer(n *yaml.Node, key string, min, max int, example string) (int, bool) {
	expected := fmt.Sprintf("a whole number from %d to %d such as %s", min, max, example)
	v, ok := d.scalar(n, key, expected, true)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || i < min || i > max {
		d.bad(n, key, "expected %s, got %s", expected, shown(n))
		return 0, false
	}
	return i, true
}

func (d *decoder) duration(n *yaml.Node, key string, least, most time.Duration) (time.Duration, bool) {
	v, ok := d.scalar(n, key, "a duration such as 1s", true)
	if !ok {
		return 0, false
	}
	dur, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || dur <= 0 {
		d.bad(n, key, "expected a duration such as 1s, got %s", shown(n))
		return 0, false
	}
	if dur < least {
		d.bad(n, key, "expected a duration of at least %s, got %s", least, shown(n))
		return 0, false
	}
	if dur > most {
		d.bad(n, key, "expected a duration of at most %s, got %s", most, shown(n))
		return 0, false
	}
	return dur, true
}

// The shortest durations the keys take: a flush or a sweep a few
// nanoseconds apart would spin a core, an output that expires as it is
// stored is never readable, and PostgreSQL reads a statement timeout below
// a millisecond as none at all.
const (
	leastInterval  = 10 * time.Millisecond
	leastTTL       = time.Second
	leastStatement = 10 * time.Millisecond
	leastTimeout   = time.Millisecond
)

// The longest durations and largest numbers the keys take: beyond them a
// value is a slip (100000h, a digit too many) that would silently stop a
// flush or overflow a total, not a setting.
const (
	mostInterval  = time.Hour
	mostTTL       = 365 * 24 * time.Hour
	mostStatement = time.Hour
	mostTimeout   = time.Hour

	mostContextPerCall = 10_000_000          // tokens
	mostTimePerCallMS  = 24 * 60 * 60 * 1000 // a day
	mostInlineBytes    = 1 << 30
	mostConns          = 1000
	mostContextTokens  = 10_000_000
	mostFetchBytes     = 1 << 30
	mostRedirects      = 100
	mostExtractions    = 1024 // web_fetch.max_concurrent_extractions
)

// pathValue returns a path, joined to the directory of the file that set
// it when relative.
func (d *decoder) pathValue(n *yaml.Node, key string) (string, bool) {
	v, ok := d.scalar(n, key, "a path", true)
	if !ok {
		return "", false
	}
	if strings.TrimSpace(v) == "" {
		d.bad(n, key, "expected a path, got an empty string")
		return "", false
	}
	if strings.ContainsRune(v, 0) {
		d.bad(n, key, "expected a path, got a text with a NUL byte")
		return "", false
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(d.l.dirOf(deref(n)), v)
	}
	return filepath.Clean(v), true
}

func (d *decoder) root(n *yaml.Node, cfg *Config) {
	d.aliasAt = map[string]*yaml.Node{}
	d.pos = map[string]position{}
	cfg.pos = d.pos
	d.order = map[string][]string{}
	cfg.order = d.order
	d.fields(n, "", rootKeys, func(k string, _, v *yaml.Node, p string) {
		switch k {
		case "include":
			// read by the loader
		case "aliases":
			d.aliases(v, p, cfg)
		case "snippets":
			d.entries(v, p, "snippet names to snippets", func(name string, kn, vn *yaml.Node, p string) {
				if s, ok := d.snippet(name, kn, vn, p); ok {
					cfg.Snippets[name] = s
				}
			})
		case "servers":
			d.entries(v, p, "server names to servers", func(name string, kn, vn *yaml.Node, p string) {
				if s, ok := d.server(name, kn, vn, p); ok {
					cfg.Servers[name] = s
				}
			})
		case "instructions":
			d.entries(v, p, "pack names to instructions", func(name string, kn, vn *yaml.Node, p string) {
				if !registry.ValidName(name) {
					d.bad(kn, p, "expected a pack name of 1 to 128 characters from [A-Za-z0-9_.-], got %s", quote(name))
					return
				}
				if t, ok := d.text(vn, p, true); ok {
					cfg.Instructions[name] = t
				}
			})
		case "notify":
			d.fields(v, p, notifyKeys, func(k string, _, v *yaml.Node, p string) {
				switch k {
				case "topics":
					cfg.Notify.Topics = d.topics(v, p)
				case "max_file_bytes":
					if i, ok := d.integer(v, p, 1, mostNotifyFileBytes, "67108864"); ok {
						cfg.Notify.MaxFileBytes = int64(i)
					}
				}
			})
		case "stats":
			d.stats(v, p, &cfg.Stats)
		case "output":
			d.output(v, p, &cfg.Output)
		case "docs":
			d.docs(v, p, &cfg.Docs)
		case "catalogue":
			d.catalogue(v, p, &cfg.Catalogue)
		case "transcript":
			d.transcript(v, p, &cfg.Transcript)
		case "search_web":
			d.searchWeb(v, p, &cfg.SearchWeb)
		case "web_fetch":
			d.webFetch(v, p, &cfg.WebFetch)
		case "mlx":
			d.mlx(v, p, &cfg.MLX)
		}
	})
	d.checkAliasChains(cfg)
}

func (d *decoder) aliases(n *yaml.Node, key string, cfg *Config) {
	d.entries(n, key, "alias names to tool names", func(name string, kn, vn *yaml.Node, p string) {
		if !registry.ValidName(name) {
			d.bad(kn, p, "expected an alias name of 1 to 128 characters from [A-Za-z0-9_.-], got %s", quote(name))
			return
		}
		t, ok := d.text(vn, p, true)
		if !ok {
			return
		}
		if !registry.ValidName(t) {
			d.bad(vn, p, "expected a tool name (1 to 128 characters from [A-Za-z0-9_.-]) as the target, got %s", quote(deref(vn).Value))
			return
		}
		cfg.Aliases[name] = t
		d.aliasAt[name] = vn
		if fromEnv(vn, t) {
			if cfg.written == nil {
				cfg.written = map[string]string{}
			}
			cfg.written[p] = deref(vn).Value
		}
	})
}

// checkAliasChains refuses cycles and chains longer than
// registry.MaxAliasDepth, as Registry.SetAliases would.
func (d *decoder) checkAliasChains(cfg *Config) {
	names := make([]string, 0, len(cfg.Aliases))
	for a := range cfg.Aliases {
		names = append(names, a)
	}
	slices.Sort(names)
	for _, a := range names {
		chain := []string{a}
		seen := map[string]bool{a: true}
		cur := cfg.Aliases[a]
		for {
			if seen[cur] {
				d.bad(d.aliasAt[a], join("aliases", a), "alias cycle %s → %s; an alias must end at a tool", strings.Join(chain, " → "), cur)
				break
			}
			next, ok := cfg.Aliases[cur]
			if !ok {
				break
			}
			if len(chain) >= registry.MaxAliasDepth {
				d.bad(d.aliasAt[a], join("aliases", a), "chain of more than %d aliases; expected a shorter chain", registry.MaxAliasDepth)
				break
			}
			seen[cur] = true
			chain = append(chain, cur)
			cur = next
		}
	}
}

func (d *decoder) snippet(name string, kn, vn *yaml.Node, key string) (Snippet, bool) {
	if err := snippet.CheckName(name); err != nil {
		d.bad(kn, key, "%v", err)
		return Snippet{}, false
	}
	file, line := d.l.at(kn)
	s := Snippet{Name: name, File: file, Line: line}
	ok := true
	if isNull(vn) {
		d.bad(vn, key, "expected a mapping with keys %s, got an empty value", strings.Join(snippetKeys, ", "))
		return Snippet{}, false
	}
	hasBody := false
	d.fields(vn, key, snippetKeys, func(k string, _, v *yaml.Node, p string) {
		switch k {
		case "description":
			t, good := d.text(v, p, true)
			s.Description, ok = t, ok && good
		case "body":
			t, good := d.text(v, p, false)
			if good && strings.TrimSpace(t) == "" {
				d.bad(v, p, "expected the snippet's calls, got an empty body")
				good = false
			}
			dv := deref(v)
			s.Body, s.BodyLine, hasBody, ok = t, dv.Line, good, ok && good
			if dv.Style&yaml.LiteralStyle != 0 {
				s.BodyLine++ // a literal block starts on the line after its indicator, one file line per body line
			}
			// A folded block (>) joins lines and a quoted body's lines are
			// not the file's: BodyLine stays the key's line.
		case "params":
			d.entries(v, p, paramEntries, func(pn string, pk, pv *yaml.Node, pp string) {
				if !paramNameRE.MatchString(pn) {
					d.bad(pk, pp, "expected a parameter name matching [A-Za-z_][A-Za-z0-9_]{0,63}, got %s", quote(pn))
					ok = false
					return
				}
				prm := Param{Name: pn}
				if !isNull(pv) {
					d.fields(pv, pp, paramKeys, func(k string, _, v *yaml.Node, p string) {
						switch k {
						case "description":
							t, good := d.text(v, p, true)
							prm.Description, ok = t, ok && good
						case "default":
							raw, good := d.jsonValue(v, p, "default")
							prm.Default, ok = raw, ok && good
						case "example":
							raw, good := d.jsonValue(v, p, "example")
							prm.Example, ok = raw, ok && good
						}
					})
					if dv, has := mapValue(pv, "default"); has && isNull(dv) {
						prm.Default = json.RawMessage("null")
					}
					if ev, has := mapValue(pv, "example"); has && prm.Default != nil && !isNull(ev) {
						// The examples call with the defaults: this one
						// would be shown nowhere.
						d.bad(ev, join(pp, "example"), "the parameter has a default, which the examples show; expected example only on a parameter without default (a required one)")
						ok = false
					}
				}
				s.Params = append(s.Params, prm)
			})
		}
	})
	if !hasBody && deref(vn).Kind == yaml.MappingNode {
		if _, present := mapValue(vn, "body"); !present {
			d.bad(kn, join(key, "body"), "expected the snippet's calls; body is missing")
		}
		ok = false
	}
	return s, ok
}

// mapValue returns the value of key in mapping n.
func mapValue(n *yaml.Node, key string) (*yaml.Node, bool) {
	m := deref(n)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1], true
		}
	}
	return nil, false
}

// jsonValue converts a YAML value (strings ${VAR}-expanded) to JSON;
// what names the value in a problem ("default", "example").
func (d *decoder) jsonValue(n *yaml.Node, key, what string) (json.RawMessage, bool) {
	budget := maxValueNodes
	v, ok := d.toJSON(n, key, &budget)
	if budget < 0 {
		d.bad(n, key, "value has more than %d parts (YAML aliases included); expected a smaller %s", maxValueNodes, what)
		return nil, false
	}
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		d.bad(n, key, "expected a JSON-compatible value: %v", err)
		return nil, false
	}
	if len(b) > maxDefaultBytes {
		d.bad(n, key, "value is larger than %d bytes as JSON; expected a smaller %s", maxDefaultBytes, what)
		return nil, false
	}
	return b, true
}

// jsonNumberRE is JSON's number grammar.
var jsonNumberRE = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$`)

func (d *decoder) toJSON(n *yaml.Node, key string, budget *int) (any, bool) {
	*budget--
	if *budget < 0 {
		return nil, false // reported by jsonValue
	}
	s := deref(n)
	switch s.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		ok := true
		for i := 0; i+1 < len(s.Content); i += 2 {
			k := s.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, false
			}
			v, good := d.toJSON(s.Content[i+1], join(key, k.Value), budget)
			m[k.Value], ok = v, ok && good
		}
		return m, ok
	case yaml.SequenceNode:
		out := make([]any, 0, len(s.Content))
		ok := true
		for i, c := range s.Content {
			v, good := d.toJSON(c, fmt.Sprintf("%s[%d]", key, i), budget)
			out, ok = append(out, v), ok && good
		}
		return out, ok
	case yaml.ScalarNode:
		switch s.Tag {
		case "!!null":
			return nil, true
		case "!!bool":
			var b bool
			if err := s.Decode(&b); err != nil {
				d.bad(n, key, "expected true or false, got %s", quote(s.Value))
				return nil, false
			}
			return b, true
		case "!!int", "!!float":
			var f float64
			if err := s.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				d.bad(n, key, "expected a number JSON can hold, got %s", quote(s.Value))
				return nil, false
			}
			if !jsonNumberRE.MatchString(s.Value) {
				// 0500 (octal to the YAML library, 500 to a reader),
				// 0x1F, 1_000, .5, +1: not numbers as JSON writes them.
				d.bad(n, key, "expected a number as JSON writes it (such as 500, -2.5 or 1e3), got %s; quote it for a string", quote(s.Value))
				return nil, false
			}
			// As written: 1.0 stays a float (a snippet parameter of type
			// number), a long integer keeps its digits.
			return json.Number(s.Value), true
		case "!!str":
			if s.Style&(yaml.TaggedStyle|yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 && jsonNumberRE.MatchString(s.Value) {
				// A plain number past float64 (1e400): the YAML library
				// makes it a string, which would pass silently as one.
				d.bad(n, key, "expected a number JSON can hold, got %s; quote it for a string", quote(s.Value))
				return nil, false
			}
			v, _, problem := expand(s.Value, d.l.opts.LookupEnv, d.l.opts.MaxExpandedValueBytes, &d.l.expandLeft)
			if problem != "" {
				d.bad(n, key, "%s", problem)
				return nil, false
			}
			return v, true
		}
		d.bad(n, key, "expected a JSON value (string, number, true, false, null, list or mapping), got a YAML %s", s.Tag)
		return nil, false
	}
	d.bad(n, key, "expected a JSON value, got %s", kindOf(s))
	return nil, false
}

func (d *decoder) server(name string, kn, vn *yaml.Node, key string) (Server, bool) {
	if !serverNameRE.MatchString(name) {
		d.bad(kn, key, msgServerName, quote(name))
		return Server{}, false
	}
	file, line := d.l.at(kn)
	s := Server{Name: name, File: file, Line: line}
	if isNull(vn) {
		d.bad(vn, key, "expected a mapping with command or url, got an empty value")
		return s, false
	}
	ok := true
	var cmdNode, urlNode *yaml.Node
	var envKey, inheritKey, dirKey, headersKey *yaml.Node
	inherited := map[string]*yaml.Node{} // inherit_env's names, each at its entry
	d.envValues = &s.Secrets
	defer func() { d.envValues = nil }()
	d.fields(vn, key, serverKeys, func(k string, knode, v *yaml.Node, p string) {
		switch k {
		case "description":
			t, good := d.text(v, p, true)
			s.Description, ok = t, ok && good
		case "command":
			cmdNode = knode
			good := d.eachText(v, p, "a list of strings such as [uvx, mcp-package-version]", true, func(i int, c *yaml.Node, cp, t string) {
				if i == 0 && strings.TrimSpace(t) == "" {
					d.bad(c, cp, "expected the program to run, got an empty string")
					ok = false
				}
				s.Command = append(s.Command, t)
			})
			ok = ok && good
		case "url":
			urlNode = knode
			// A ${VAR} wholly within the scheme, host and port is no
			// secret (it would garble every message naming the server);
			// one in the path or query is (urlSecrets).
			d.notingURL(&s.Secrets, func() string {
				t, good := d.text(v, p, true)
				if good {
					if problem := checkServerURL(t); problem != "" {
						d.bad(v, p, "%s", problem)
						good = false
					}
				}
				s.URL, ok = t, ok && good
				if !good {
					return ""
				}
				return t
			})
		case "dir":
			dirKey = knode
			t, good := d.pathValue(v, p)
			s.Dir, ok = t, ok && good
		case "env":
			envKey = knode
			s.Env = map[string]string{}
			d.entries(v, p, "variable names to values", func(en string, ek, ev *yaml.Node, ep string) {
				if !validEnvName(en) {
					d.bad(ek, ep, msgEnvName, quote(en))
					ok = false
					return
				}
				for _, other := range slices.Sorted(maps.Keys(s.Env)) {
					if other != en && sameEnvName(d.l.goos, other, en) {
						// Which of the two the command would get is not known.
						d.bad(ek, ep, msgSetTwice, en, caseNote(en, other))
						ok = false
						return
					}
				}
				t, good := d.secretText(ev, ep)
				s.Env[en], ok = t, ok && good
			})
		case "inherit_env":
			// Names, not values: never expanded, and quoted in problems.
			inheritKey = knode
			seq := deref(v)
			if seq.Kind != yaml.SequenceNode {
				d.bad(v, p, "expected a list of variable names such as [LANG, HTTP_PROXY], got %s", kindOf(seq))
				ok = false
				return
			}
			s.InheritEnv = []string{}
			for i, e := range seq.Content {
				ep := fmt.Sprintf("%s[%d]", p, i)
				en, good := d.text(e, ep, false)
				switch {
				case !good:
				case !validEnvName(en):
					d.bad(e, ep, msgEnvName, quote(en))
					good = false
				case inheritedAs(d.l.goos, inherited, en) != "":
					d.bad(e, ep, msgNamedTwice, en, caseNote(en, inheritedAs(d.l.goos, inherited, en)))
					good = false
				case CredentialEnvName(en):
					d.bad(e, ep, msgInheritCredential, en, en, en)
					good = false
				}
				if !good {
					ok = false
					continue
				}
				inherited[en] = e
				s.InheritEnv = append(s.InheritEnv, en)
			}
		case "headers":
			headersKey = knode
			s.Headers = map[string]string{}
			d.entries(v, p, "header names to values", func(hn string, hk, hv *yaml.Node, hp string) {
				if !headerNameRE.MatchString(hn) {
					d.bad(hk, hp, "expected an HTTP header name (an RFC 9110 token), got %s", quote(hn))
					ok = false
					return
				}
				t, good := d.secretText(hv, hp)
				if good && strings.ContainsAny(t, "\r\n\x00") {
					d.bad(hv, hp, msgHeaderValue)
					good = false
				}
				s.Headers[hn], ok = t, ok && good
			})
		}
	})
	switch {
	case cmdNode != nil && urlNode != nil:
		cf, cl := d.l.at(cmdNode)
		uf, ul := d.l.at(urlNode)
		if cf != uf {
			// Merged from two files: a later file switching the server's
			// kind must drop the other key.
			d.bad(urlNode, key, "expected exactly one of command and url, got both: command from %s:%d, url from %s:%d; a file replacing one with the other writes the other as null (command: null)",
				filepath.Base(cf), cl, filepath.Base(uf), ul)
		} else {
			d.bad(urlNode, key, msgCommandAndURL)
		}
		ok = false
	case cmdNode == nil && urlNode == nil && deref(vn).Kind == yaml.MappingNode:
		d.bad(kn, key, msgNeither)
		ok = false
	}
	// A key left from an earlier file that described the server otherwise
	// says so: the later file must drop it (key: null).
	from := func(n, other *yaml.Node) string {
		if other == nil {
			return ""
		}
		nf, _ := d.l.at(n)
		of, _ := d.l.at(other)
		if nf == of {
			return ""
		}
		return fmt.Sprintf(" (it comes from %s; %s makes this a server of the other kind: write the key as null there to drop it)", filepath.Base(nf), filepath.Base(of))
	}
	if cmdNode == nil {
		if envKey != nil {
			d.bad(envKey, join(key, "env"), msgOnlyCommand+"%s", from(envKey, urlNode))
			ok = false
		}
		if dirKey != nil {
			d.bad(dirKey, join(key, "dir"), msgOnlyCommand+"%s", from(dirKey, urlNode))
			ok = false
		}
		if inheritKey != nil {
			d.bad(inheritKey, join(key, "inherit_env"), msgOnlyCommand+"%s", from(inheritKey, urlNode))
			ok = false
		}
	}
	for _, en := range s.InheritEnv {
		for _, other := range slices.Sorted(maps.Keys(s.Env)) {
			if sameEnvName(d.l.goos, en, other) {
				d.bad(inherited[en], join(key, "inherit_env"), msgAlsoInEnv, en, caseNote(en, other))
				ok = false
				break
			}
		}
	}
	if urlNode == nil && headersKey != nil {
		d.bad(headersKey, join(key, "headers"), msgOnlyURL+"%s", from(headersKey, cmdNode))
		ok = false
	}
	return s, ok
}

// sameEnvName reports whether a and b name the same environment variable
// on the operating system goos (runtime.GOOS): on Windows names are
// case-insensitive (Path and PATH are one variable), elsewhere they are
// not.
func sameEnvName(goos, a, b string) bool {
	return a == b || goos == "windows" && strings.EqualFold(a, b)
}

// inheritedAs is the name of inherited that names the variable en on goos,
// "" when none does.
func inheritedAs(goos string, inherited map[string]*yaml.Node, en string) string {
	if inherited[en] != nil {
		return en
	}
	for _, k := range slices.Sorted(maps.Keys(inherited)) {
		if sameEnvName(goos, k, en) {
			return k
		}
	}
	return ""
}

// The problems of a servers: entry, in the words both its readers use —
// the decoder of a configuration file and Expander.Server (the -proxy
// file) — so that the two say the same.
const (
	msgServerName        = "expected a server name of 1 to 64 characters from [A-Za-z0-9_.-], got %s"
	msgEnvName           = "expected a variable name matching [A-Za-z_][A-Za-z0-9_]*, got %s"
	msgSetTwice          = "%s is set twice%s; expected each variable once"
	msgNamedTwice        = "%s is named twice%s; expected each variable once"
	msgInheritCredential = "%s holds a credential by its name; inherit_env passes plain settings, never redacted: pass it with env: {%s: \"${%s}\"}, which redacts it"
	msgAlsoInEnv         = "%s is set in env too%s; expected each variable in one of them (env for a secret, inherit_env for a plain setting passed as the host has it)"
	msgHeaderValue       = "expected a value without CR, LF or NUL (value not shown)"
	msgCommandAndURL     = "expected exactly one of command and url, got both"
	msgNeither           = "expected command (a local server over stdio) or url (a streamable HTTP server), got neither"
	msgOnlyCommand       = "only applies to a server with command"
	msgOnlyURL           = "only applies to a server with url"
)

// caseNote tells, in a problem about the variable a, that it was found as
// b, written in other letters (on Windows, where case does not count).
func caseNote(a, b string) string {
	if a == b {
		return ""
	}
	return fmt.Sprintf(" (as %s: on Windows names are the same whatever their case)", b)
}

// checkServerURL is checkURL for a server's url: user information
// (user:password@) is refused too, a credential outside the headers that
// are redacted. The URL is never quoted.
func checkServerURL(raw string) string {
	if p := checkURL(raw); p != "" {
		return p
	}
	if u, _ := url.Parse(raw); u.User != nil {
		return "expected a URL without user information (user:password@); send credentials in headers (Authorization: \"Basic ${VAR}\" or \"Bearer ${VAR}\"), which are redacted (value not shown)"
	}
	return ""
}

// checkURL returns the problem with raw, or "". The URL is never quoted
// (it may carry credentials).
func checkURL(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "expected an absolute http or https URL; it does not parse (value not shown)"
	case u.Scheme != "http" && u.Scheme != "https":
		return "expected an http or https URL (value not shown)"
	case u.Host == "":
		return "expected an absolute http or https URL with a host"
	}
	return ""
}

func (d *decoder) topics(n *yaml.Node, key string) []Topic {
	seq := deref(n)
	if seq.Kind != yaml.SequenceNode {
		d.bad(n, key, "expected a list of {pattern, file} entries, got %s", kindOf(seq))
		return nil
	}
	var out []Topic
	for i, c := range seq.Content {
		p := fmt.Sprintf("%s[%d]", key, i)
		var t Topic
		ok := true
		d.fields(c, p, topicKeys, func(k string, _, v *yaml.Node, kp string) {
			switch k {
			case "pattern":
				s, good := d.text(v, kp, true)
				if good {
					if !topicglob.Valid(s) || strings.TrimSpace(s) == "" {
						d.bad(v, kp, "expected a glob pattern such as \"notes*\", got %s", shown(v))
						good = false
					}
				}
				t.Pattern, ok = s, ok && good
			case "file":
				s, good := d.pathValue(v, kp)
				t.File, ok = s, ok && good
			}
		})
		if deref(c).Kind == yaml.MappingNode {
			for _, req := range topicKeys {
				if v, has := mapValue(c, req); !has || isNull(v) {
					d.bad(c, join(p, req), "is missing; expected a topic with a pattern and a file")
					ok = false
				}
			}
		}
		if ok {
			out = append(out, t)
		}
	}
	return out
}

func (d *decoder) stats(n *yaml.Node, key string, s *Stats) {
	d.fields(n, key, statsKeys, func(k string, _, v *yaml.Node, p string) {
		switch k {
		case "enabled":
			if b, ok := d.boolean(v, p); ok {
				s.Enabled = b
			}
		case "dir":
			if t, ok := d.pathValue(v, p); ok {
				s.Dir = t
			}
		case "flush_interval":
			if dur, ok := d.duration(v, p, leastInterval, mostInterval); ok {
				s.FlushInterval = dur
			}
		case "context_per_call":
			if i, ok := d.integer(v, p, 0, mostContextPerCall, "2000"); ok {
				s.ContextPerCall = i
			}
		case "time_per_call_ms":
			if i, ok := d.integer(v, p, 0, mostTimePerCallMS, "3000"); ok {
				s.TimePerCallMS = i
			}
		case "keep_days":
			if i, ok := d.integer(v, p, 0, MaxKeepDays, "90"); ok {
				s.KeepDays = i // 0 keeps every record
			}
		default: // one of pgKeys
			d.postgres(k, v, p, &s.Postgres, 1)
		}
	})
}

func (d *decoder) output(n *yaml.Node, key string, o *Output) {
	d.fields(n, key, outputKeys, func(k string, _, v *yaml.Node, p string) {
		switch k {
		case "max_inline_bytes":
			if i, ok := d.integer(v, p, 1, mostInlineBytes, "50000"); ok {
				o.MaxInlineBytes = i
			}
		case "dir":
			if t, ok := d.pathValue(v, p); ok {
				o.Dir = t
			}
		case "ttl":
			if dur, ok := d.duration(v, p, leastTTL, mostTTL); ok {
				o.TTL = dur
			}
		case "reports_dir":
			if t, ok := d.pathValue(v, p); ok {
				o.ReportsDir = t
			}
		default: // one of pgKeys
			d.postgres(k, v, p, &o.Postgres, 2) // one connection stays for reading pages
		}
	})
}

func (d *decoder) docs(n *yaml.Node, key string, o *Docs) {
	d.fields(n, key, docsKeys, func(k string, _, v *yaml.Node, p string) {
		switch k {
		case "base_url":
			t, ok := d.text(v, p, true)
			if !ok {
				return
			}
			if problem := checkURL(t); problem != "" {
				d.bad(v, p, "%s", problem)
				return
			}
			if pu, _ := url.Parse(t); pu.User != nil {
				// ot.help shows the documentation links to every client.
				d.bad(v, p, "expected a URL without user information (user:password@): documentation links are shown to every client (ot.help), so the URL may hold no credential (value not shown)")
				return
			}
			if strings.ContainsAny(t, "?#") {
				// A pack's slug is added after the URL: behind a query or
				// a fragment it would not name a page. (Every '?' of a URL
				// checkURL accepts begins its query or is in its fragment.)
				d.bad(v, p, "expected an http or https URL without a query (?…) or fragment (#…): each pack's page is its slug added after it (value not shown)")
				return
			}
			o.BaseURL = t
		case "slugs":
			d.entries(v, p, "pack names to documentation slugs", func(name string, kn, vn *yaml.Node, sp string) {
				t, ok := d.text(vn, sp, true)
				if !ok {
					return
				}
				if t == "" || strings.ContainsAny(t, "/?#") || strings.TrimSpace(t) != t {
					d.bad(vn, sp, "expected a slug (a URL path segment without /, ? or #), got %s", quote(deref(vn).Value))
					return
				}
				o.Slugs[name] = t
			})
		}
	})
}

// postgres decodes one of a section's PostgreSQL keys (dsn, schema,
// max_conns, statement_timeout) into pg.
func (d *decoder) postgres(k string, v *yaml.Node, p string, pg *Postgres, leastConns int) {
	switch k {
	case "dsn":
		if t, ok := d.secretText(v, p); ok {
			if t == "" && fromEnv(v, t) {
				// ${DSN:-} unset or empty: no database (files), so that
				// one file serves hosts with and without one.
				pg.DSN = ""
				return
			}
			if !strings.HasPrefix(t, "postgres://") && !strings.HasPrefix(t, "postgresql://") && !strings.Contains(t, "=") {
				d.bad(v, p, "expected a PostgreSQL DSN (postgres://user:password@host:port/db or key=value pairs) written as ${ENV}")
				return
			}
			pg.DSN = t
		}
	case "schema":
		if t, ok := d.text(v, p, true); ok {
			if !pgschema.Valid(t) {
				d.bad(v, p, "expected %s, got %s", pgschema.Expected, shown(v))
				return
			}
			pg.Schema = t
		}
	case "max_conns":
		if i, ok := d.integer(v, p, leastConns, mostConns, "10"); ok {
			pg.MaxConns = i
		}
	case "statement_timeout":
		if dur, ok := d.duration(v, p, leastStatement, mostStatement); ok {
			pg.StatementTimeout = dur
		}
	}
}

func (d *decoder) catalogue(n *yaml.Node, key string, c *Catalogue) {
	d.fields(n, key, catKeys, func(k string, _, v *yaml.Node, p string) {
		switch k {
		case "dir":
			if t, ok := d.pathValue(v, p); ok {
				c.Dir = t
			}
		case "allow_private":
			if b, ok := d.boolean(v, p); ok {
				c.AllowPrivate = b
			}
		case "allow_addrs":
			c.AllowAddrs = d.prefixes(v, p)
		case "allowed_hosts":
			hosts := []string{}
			d.eachText(v, p, "a list of hosts (exact host, host:port or *.suffix)", false, func(_ int, e *yaml.Node, ep, t string) {
				if strings.Contains(t, "@") {
					// user:password@host: what follows the user may be a
					// password, which neither the entry nor the checker's
					// reason (it quotes the "port") may show.
					d.bad(e, ep, "expected an exact host, host:port or *.suffix without user information (user:password@); an http tool's credentials go in catalogue.secrets (value not shown)")
					return
				}
				if err := netguard.CheckAllowedHost(t); err != nil {
					if fromEnv(e, t) {
						d.bad(e, ep, "expected an exact host, host:port or *.suffix, got %s", shown(e))
					} else {
						d.bad(e, ep, "expected an exact host, host:port or *.suffix, got %s: %v", shown(e), err)
					}
					return
				}
				hosts = append(hosts, t)
			})
			c.AllowedHosts = hosts
		case "secrets":
			c.Secrets = map[string]string{}
			d.entries(v, p, "secret names to values", func(name string, kn, vn *yaml.Node, sp string) {
				if !validEnvName(name) || len(name) > 128 {
					d.bad(kn, sp, "expected a secret name of at most 128 characters matching [A-Za-z_][A-Za-z0-9_]*, got %s", quote(name))
					return
				}
				if t, ok := d.secretText(vn, sp); ok {
					c.Secrets[name] = t
				}
			})
		default: // one of pgKeys
			d.postgres(k, v, p, &c.Postgres, 1)
		}
	})
}

// prefixes reads allow_addrs: a list of address prefixes (10.1.0.0/16,
// fd00::/8) or single addresses (10.1.2.3, a /32 or /128). A prefix with
// bits set past its length (10.1.2.3/8) is refused rather than masked:
// what was meant is not known.
func (d *decoder) prefixes(v *yaml.Node, p string) []netip.Prefix {
	out := []netip.Prefix{}
	d.eachText(v, p, "a list of addresses or prefixes (10.1.2.3, 10.1.0.0/16, fd00::/8)", false, func(_ int, e *yaml.Node, ep, t string) {
		if !strings.Contains(t, "/") {
			a, err := netip.ParseAddr(t)
			if err != nil || a.Zone() != "" {
				d.bad(e, ep, "expected an IP address or a prefix such as 10.1.0.0/16, got %s", shown(e))
				return
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			return
		}
		pf, err := netip.ParsePrefix(t)
		if err != nil {
			d.bad(e, ep, "expected an IP address or a prefix such as 10.1.0.0/16, got %s", shown(e))
			return
		}
		if m := pf.Masked(); m != pf {
			if fromEnv(e, t) {
				d.bad(e, ep, "%s has address bits set past its prefix length; expected a prefix such as 10.1.0.0/16", shown(e))
			} else {
				d.bad(e, ep, "%s has address bits set past its /%d; expected %s (or the single address %s)", shown(e), pf.Bits(), m, pf.Addr())
			}
			return
		}
		out = append(out, pf)
	})
	return out
}

// eachText walks a list of strings (${VAR} expanded), calling fn with each
// element that is one: its index, node, key and text. Anything but a list
// (or, with nonEmpty, an empty list) is a problem saying that expected was.
// It reports whether v was such a list of strings only; fn reports its own
// problems.
func (d *decoder) eachText(v *yaml.Node, p, expected string, nonEmpty bool, fn func(i int, e *yaml.Node, ep, t string)) bool {
	seq := deref(v)
	if seq.Kind != yaml.SequenceNode || (nonEmpty && len(seq.Content) == 0) {
		d.bad(v, p, "expected %s, got %s", expected, kindOf(seq))
		return false
	}
	ok := true
	for i, e := range seq.Content {
		ep := fmt.Sprintf("%s[%d]", p, i)
		t, good := d.text(e, ep, true)
		if !good {
			ok = false
			continue
		}
		fn(i, e, ep, t)
	}
	return ok
}

// baseURL reads an endpoint's base URL: http or https with a host and
// without user information (the key goes in api_key), as the packs
// require, so that a URL they would refuse is a problem naming file, line
// and key here. Like checkURL's, the problem never quotes the URL: a
// query, fragment, path or password written in the file may be a key.
func (d *decoder) baseURL(n *yaml.Node, key string) (string, bool) {
	u, ok := d.text(n, key, true)
	if !ok {
		return "", false
	}
	if problem := checkURL(u); problem != "" {
		d.bad(n, key, "%s", problem)
		return "", false
	}
	if pu, _ := url.Parse(u); pu.User != nil {
		d.bad(n, key, "expected a URL without user information (user:password@); write the key as api_key (value not shown)")
		return "", false
	}
	return u, true
}

func (d *decoder) transcript(n *yaml.Node, key string, t *Transcript) {
	modelSet := false
	defer func() {
		// The pack refuses a base_url without a model: say so here, with
		// the file and line, rather than when the pack is built.
		if t.BaseURL != "" && !modelSet {
			d.bad(n, join(key, "model"), "expected a model name with base_url, got none")
		}
	}()
	d.fields(n, key, trKeys, func(k string, _, v *yaml.Node, p string) {
		switch k {
		case "base_url":
			d.notingURL(&t.Secrets, func() string {
				if u, ok := d.baseURL(v, p); ok {
					t.BaseURL = u
				}
				return t.BaseURL
			})
		case "api_key":
			d.noting(&t.Secrets, func() {
				if s, ok := d.secretText(v, p); ok {
					t.APIKey = s
				}
			})
		case "model":
			modelSet = true
			if s, ok := d.text(v, p, true); ok {
				if strings.TrimSpace(s) == "" {
					d.bad(v, p, "expected a model name, got an empty string")
					return
				}
				t.Model = s
			}
		case "context_tokens":
			if i, ok := d.integer(v, p, 256, mostContextTokens, "8192"); ok {
				t.ContextTokens = i
			}
		case "timeout":
			if dur, ok := d.duration(v, p, leastTimeout, mostTimeout); ok {
				t.Timeout = dur
			}
		}
	})
}

func (d *decoder) mlx(n *yaml.Node, key string, m *MLX) {
	d.fields(n, key, mlxKeys, func(k string, _, v *yaml.Node, p string) {
		switch k {
		case "command":
			if words, ok := d.words(v, p, "[mlx_lm.server, --model, \"{model}\", --port, \"{port}\"]"); ok {
				m.Command = words
			}
		case "models":
			if words, ok := d.words(v, p, "[mlx-community/Qwen3-4B-4bit]"); ok {
				m.Models = words
			}
		case "start_timeout":
			if dur, ok := d.duration(v, p, leastTimeout, mostTimeout); ok {
				m.StartTimeout = dur
			}
		}
	})
}

// words reads a non-empty list of non-empty strings (${VAR} expanded).
func (d *decoder) words(n *yaml.Node, key, example string) ([]string, bool) {
	var out []string
	ok := d.eachText(n, key, "a list of strings such as "+example, true, func(_ int, e *yaml.Node, ep, t string) {
		if strings.TrimSpace(t) == "" {
			d.bad(e, ep, "expected a non-empty string, got %s", shown(e))
			return
		}
		out = append(out, t)
	})
	return out, ok && len(out) == len(deref(n).Content)
}

func (d *decoder) searchWeb(n *yaml.Node, key string, s *SearchWeb) {
	toolSet := false
	defer func() {
		// The pack refuses a base_url without a search tool: say so
		// here, with the file and line, rather than when the pack is
		// built.
		if s.BaseURL != "" && !toolSet {
			d.bad(n, join(key, "search_tool"), "expected the gateway's search tool name (for example tavily-search) with base_url, got none")
		}
	}()
	d.fields(n, key, swKeys, func(k string, _, v *yaml.Node, p string) {
		switch k {
		case "base_url":
			d.notingURL(&s.Secrets, func() string {
				if u, ok := d.baseURL(v, p); ok {
					s.BaseURL = u
				}
				return s.BaseURL
			})
		case "api_key":
			d.noting(&s.Secrets, func() {
				if t, ok := d.secretText(v, p); ok {
					s.APIKey = t
				}
			})
		case "search_tool":
			toolSet = true
			if t, ok := d.text(v, p, true); ok {
				if strings.TrimSpace(t) == "" || strings.ContainsAny(t, "/?#") {
					d.bad(v, p, "expected the gateway's search tool name (for example tavily-search), got %s", shown(v))
					return
				}
				s.SearchTool = t
			}
		case "timeout":
			if dur, ok := d.duration(v, p, leastTimeout, mostTimeout); ok {
				s.Timeout = dur
			}
		}
	})
}

func (d *decoder) webFetch(n *yaml.Node, key string, w *WebFetch) {
	d.fields(n, key, wfKeys, func(k string, _, v *yaml.Node, p string) {
		switch k {
		case "allow_private":
			if b, ok := d.boolean(v, p); ok {
				w.AllowPrivate = b
			}
		case "allow_addrs":
			w.AllowAddrs = d.prefixes(v, p)
		case "max_bytes":
			if i, ok := d.integer(v, p, 1024, mostFetchBytes, "5242880"); ok {
				w.MaxBytes = i
			}
		case "max_redirects":
			if i, ok := d.integer(v, p, 0, mostRedirects, "10"); ok {
				w.MaxRedirects = i
			}
		case "timeout":
			if dur, ok := d.duration(v, p, leastTimeout, mostTimeout); ok {
				w.Timeout = dur
			}
		case "max_concurrent_extractions":
			if i, ok := d.integer(v, p, 1, mostExtractions, "4"); ok {
				w.MaxConcurrentExtractions = i
			}
		}
	})
}
