package hostconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/toolpack-go/toolpack/internal/regfile"
)

// Limits applied when LoadOptions leaves them zero.
const (
	// DefaultMaxFileBytes caps each file read.
	DefaultMaxFileBytes = 1 << 20
	// DefaultMaxIncludeDepth caps the nesting of include: (the main file
	// is depth 0, the files it includes depth 1, …).
	DefaultMaxIncludeDepth = 8
	// DefaultMaxFiles caps the number of distinct files one load reads
	// (a file included from several places is read once).
	DefaultMaxFiles = 64
)

// Caps of ${VAR} expansion: a few references to a long variable would
// otherwise turn a small file into gigabytes (8,000 references to a
// 131,000-byte variable in a 32 KB file: 1 GB). Going over either is a
// problem naming the file, line, key and the variable, never its value.
const (
	// MaxExpandedValueBytes caps one value once its ${VAR}s are expanded
	// (the size of a file at DefaultMaxFileBytes) when
	// LoadOptions.MaxExpandedValueBytes is zero, and always for Expand.
	MaxExpandedValueBytes = DefaultMaxFileBytes
	// MaxExpandedBytes caps the text of all the values holding a ${VAR}
	// in one load, once expanded (include paths, server entries, snippet
	// defaults and every other value; a value a YAML alias repeats is
	// counted each time).
	MaxExpandedBytes = 16 << 20
)

// maxValueNodes caps the nodes one snippet parameter's default or example
// may expand to (YAML aliases can make a small file describe a huge
// value).
const maxValueNodes = 10000

// maxDefaultBytes caps the JSON of one snippet parameter's default, and
// of its example.
const maxDefaultBytes = 64 << 10

// LoadOptions configure Load. The zero value reads the environment with
// os.LookupEnv, puts default directories beside the main file, and
// applies the Default… limits.
type LoadOptions struct {
	// LookupEnv looks up the variables of ${VAR}; nil means os.LookupEnv.
	LookupEnv func(name string) (string, bool)
	// DataDir holds the default directories (stats, results, reports) of
	// keys the files leave out; "" means the main file's directory. A
	// relative DataDir is relative to the working directory.
	DataDir string
	// MaxFileBytes caps each file; zero means DefaultMaxFileBytes. These
	// limits are never negative (Load refuses them).
	MaxFileBytes int
	// MaxIncludeDepth caps include nesting; zero means
	// DefaultMaxIncludeDepth.
	MaxIncludeDepth int
	// MaxFiles caps the distinct files one load reads; zero means
	// DefaultMaxFiles.
	MaxFiles int
	// MaxExpandedValueBytes caps one value once its ${VAR}s are expanded;
	// zero means MaxExpandedValueBytes (1 MiB). It does not follow
	// MaxFileBytes: a host that raises that for long files whose values
	// come from long variables (a certificate, a prompt) raises this too.
	// All the expanded values of one load stay capped at MaxExpandedBytes
	// together, whatever this is.
	MaxExpandedValueBytes int
	// RefuseEmpty refuses a main file that holds no configuration — zero
	// bytes, only whitespace and comments, a lone "---" or null — with a
	// problem naming it, instead of reading it as every default. Host.Reload
	// sets it once a configuration is in force: an empty file then is
	// nearly always one an editor has truncated or a shell redirection
	// has not written yet, and applying it would turn statistics off, drop
	// the notify topics and move the directories. A file of {} still
	// means every default. Included files may always be empty.
	RefuseEmpty bool
}

func (o LoadOptions) withDefaults() LoadOptions {
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxIncludeDepth <= 0 {
		o.MaxIncludeDepth = DefaultMaxIncludeDepth
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = DefaultMaxFiles
	}
	if o.MaxExpandedValueBytes <= 0 {
		o.MaxExpandedValueBytes = MaxExpandedValueBytes
	}
	return o
}

// Load reads the configuration file at path and the files it includes,
// merges them, expands ${VAR}, decodes every key and checks every value
// (see the package documentation for the format). Keys the files leave
// out hold their defaults (Default, with LoadOptions.DataDir).
//
// Every problem found is reported at once: the error joins one *Problem
// per problem (Problems lists them), each naming file, line and key, and
// wraps ErrInvalid. A file that cannot be read also wraps the
// *fs.PathError. On error the returned Config is nil.
//
// Load checks what it can know from the files alone; whether an alias's
// target is a tool is checked by Host, which knows the registry.
func Load(path string, opts LoadOptions) (*Config, error) {
	return load(path, opts, runtime.GOOS)
}

// load is Load for the operating system goos (runtime.GOOS), whose rules
// for environment variable names (sameEnvName) the checks of servers'
// env and inherit_env follow.
func load(path string, opts LoadOptions, goos string) (*Config, error) {
	for _, o := range []struct {
		field string
		v     int
	}{{"MaxFileBytes", opts.MaxFileBytes}, {"MaxIncludeDepth", opts.MaxIncludeDepth}, {"MaxFiles", opts.MaxFiles},
		{"MaxExpandedValueBytes", opts.MaxExpandedValueBytes}} {
		if o.v < 0 {
			return nil, fmt.Errorf("hostconfig: LoadOptions.%s: expected zero (the default) or a positive value, got %d", o.field, o.v)
		}
	}
	opts = opts.withDefaults()
	l := &loader{opts: opts, goos: goos, origin: map[*yaml.Node]*source{}, read: map[string]*yaml.Node{}, height: map[string]int{}, dropped: map[string]bool{},
		expandLeft: MaxExpandedBytes}
	root, _ := l.readFile(path, nil, nil, 0)
	structural := len(l.probs.list)
	if structural > 0 && root == nil {
		return nil, l.probs.err(l.files)
	}
	dataDir := opts.DataDir
	if dataDir == "" {
		dataDir = l.mainDir
	}
	if abs, err := filepath.Abs(dataDir); err == nil {
		dataDir = abs
	}
	cfg := Default(dataDir)
	cfg.Files = append([]string(nil), l.uniqueFiles()...)
	d := &decoder{l: l}
	if root != nil {
		// Decoded even after problems of the files' structure (a key
		// given twice, a merge key, a file that did not parse), so that
		// every problem is reported at once; a line already reported is
		// not reported again by the decoding.
		d.root(root, cfg)
		l.probs.dropRepeatedLines(structural)
	}
	if len(l.probs.list) > 0 {
		return nil, l.probs.err(l.files)
	}
	return cfg, nil
}

// source is the file a node comes from.
type source struct {
	file string // as opened (shown in problems)
	dir  string // absolute directory, for relative paths
}

type loader struct {
	opts    LoadOptions
	goos    string // the operating system whose variable names the checks follow
	probs   problems
	files   []string // every file read, in order
	origin  map[*yaml.Node]*source
	mainDir string
	read    map[string]*yaml.Node // absolute path → its merged mapping, each file read once
	height  map[string]int        // absolute path → the levels of include below it
	dropped map[string]bool       // named entries an empty entry dropped (entryKey)
	// expandLeft is what the load has left of MaxExpandedBytes.
	expandLeft int
}

// entryKey names the entry key of the named-entries mapping at path.
func entryKey(path []string, key string) string {
	return strings.Join(append(path[:len(path):len(path)], key), "\x00")
}

func (l *loader) uniqueFiles() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range l.files {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// at returns the file and line of n.
func (l *loader) at(n *yaml.Node) (string, int) {
	if s := l.origin[n]; s != nil {
		return s.file, n.Line
	}
	return "", n.Line
}

func (l *loader) dirOf(n *yaml.Node) string {
	if s := l.origin[n]; s != nil {
		return s.dir
	}
	return l.mainDir
}

// from is the node (include entry) that named the file being read, for
// locating problems about reading it; nil for the main file.
type from struct {
	node *yaml.Node
	key  string
	// shown is the entry as the file writes it when ${VAR}s made the
	// path: messages about reading the file name it so, since a value
	// taken from the environment never appears in an error.
	shown string
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// readFile reads one file and what it includes and returns the merged
// mapping (nil when the file is empty or broken) and the levels of
// include below it. chain holds the absolute paths of the files
// including this one.
func (l *loader) readFile(file string, chain []string, inc *from, depth int) (*yaml.Node, int) {
	name := file // the file as messages about reading it name it
	if inc != nil && inc.shown != "" {
		name = strconv.Quote(inc.shown)
	}
	report := func(format string, err error, a ...any) {
		p := &Problem{Message: fmt.Sprintf(format, a...), Err: err}
		if inc != nil {
			p.File, p.Line = l.at(inc.node)
			p.Key = inc.key
		} else {
			p.File = file
		}
		l.probs.list = append(l.probs.list, p)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		report("cannot resolve %s: %v", err, name, err)
		return nil, 0
	}
	for i, c := range chain {
		if c == abs {
			cycle := make([]string, 0, len(chain)-i+1)
			for _, x := range chain[i:] {
				cycle = append(cycle, filepath.Base(x))
			}
			report("include cycle: %s → %s; a file cannot include itself, directly or through others", nil,
				strings.Join(cycle, " → "), filepath.Base(abs))
			return nil, 0
		}
	}
	// A file read before (two files share an include) brings the levels
	// of include below it: they count from here, as if read again.
	if depth+l.height[abs] > l.opts.MaxIncludeDepth {
		report("includes nested deeper than %d files (%s); expected at most %d levels of include", nil,
			l.opts.MaxIncludeDepth, name, l.opts.MaxIncludeDepth)
		return nil, 0
	}
	if n, ok := l.read[abs]; ok {
		// Merge what it gave the first time. Its own includes could not
		// reach a file of chain without the first read reporting the cycle.
		return n, l.height[abs]
	}
	if len(l.read) >= l.opts.MaxFiles {
		report("more than %d files to read (%s); expected at most %d files in all", nil, l.opts.MaxFiles, name, l.opts.MaxFiles)
		return nil, 0
	}
	data, err := readCapped(file, l.opts.MaxFileBytes)
	if err != nil {
		var pe *fs.PathError
		switch {
		case errors.Is(err, regfile.ErrTooLarge):
			report("%s is larger than %d bytes; expected a smaller configuration file", nil, name, l.opts.MaxFileBytes)
		case name != file && errors.As(err, &pe):
			// The OS's message names the expanded path: give its reason alone.
			report("cannot read %s: %v", pe.Err, name, pe.Err)
		default:
			report("cannot read %s: %v", err, name, err)
		}
		return nil, 0
	}
	l.files = append(l.files, file)
	l.read[abs] = nil // counted, and read once even when broken
	src := &source{file: file, dir: filepath.Dir(abs)}
	if inc == nil {
		l.mainDir = src.dir
	}
	doc, ok := l.parse(file, data)
	if !ok {
		return nil, 0
	}
	if doc == nil {
		if inc == nil && l.opts.RefuseEmpty {
			report("the file is empty (no configuration keys, only whitespace or comments): taken for a file still being written, so not applied; write {} in it to reload with every default", nil)
		}
		return nil, 0 // empty file
	}
	l.mark(doc, src)
	if doc.Kind != yaml.MappingNode {
		l.probs.add(file, doc.Line, "", "expected a mapping of configuration keys at the top level, got %s", kindOf(doc))
		return nil, 0
	}
	l.checkKeys(doc, "")

	// include: first, in order, then this file's own keys on top.
	var merged *yaml.Node
	own := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: doc.Line, Column: doc.Column}
	l.origin[own] = src
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		if k.Value != "include" {
			own.Content = append(own.Content, k, v)
			continue
		}
		for _, e := range l.includes(v) {
			sub, below := l.readFile(e.path, append(chain[:len(chain):len(chain)], abs), &from{node: e.node, key: e.key, shown: e.shown}, depth+1)
			if sub != nil {
				merged = l.merge(merged, sub, nil)
			}
			l.height[abs] = max(l.height[abs], below+1)
		}
	}
	out := l.merge(merged, own, nil)
	l.read[abs] = out
	return out, l.height[abs]
}

// readCapped reads at most max bytes of a regular file (regfile.ReadFile:
// past them an error wrapping regfile.ErrTooLarge). Anything else (a
// directory, a device, a pipe that would block) is refused without
// waiting (a FIFO swapped in after a check is caught too).
func readCapped(file string, max int) ([]byte, error) {
	b, err := regfile.ReadFile(file, int64(max))
	if errors.Is(err, regfile.ErrNotRegular) {
		msg := "is not a regular file"
		if st, serr := os.Stat(file); serr == nil && st.IsDir() {
			msg = "is a directory"
		}
		return nil, &os.PathError{Op: "read", Path: file, Err: errors.New(msg)}
	}
	return b, err
}

// syntaxError returns the line (1-based; 0 when unknown) and the message
// of the YAML library's error err for data. The library's line is often
// not the mistake's: for the parser's errors (a key where none may be, an
// unclosed bracket) it is the line before the enclosing construct's
// start, or none; for a tab in a mapping the line before; for a bad byte
// or an unknown anchor there is none. The line is therefore found as the
// first line whose prefix of the file fails with the same message
// (binary search, on the error path only): the line where the mistake
// is, or where the construct it leaves unclosed opens. A line starting
// with a tab gets a hint, since YAML indents with spaces.
func syntaxError(data []byte, err error) (int, string) {
	line, msg := stripLine(err.Error())
	// An unexpected end of the file (an unclosed quote) is where the
	// library says: every prefix cut inside a valid multi-line value ends
	// the same way, so the prefixes cannot tell.
	if line == 0 || !strings.Contains(msg, "end of stream") {
		if at := firstFailingLine(data, msg); at > 0 {
			line = at
		}
	}
	if line > 0 {
		if text := lineText(data, line); strings.HasPrefix(strings.TrimLeft(text, " "), "\t") {
			msg += " (this line is indented with a tab; YAML indents with spaces)"
		}
	}
	return line, msg
}

// firstFailingLine is the smallest n such that the first n lines of data
// fail to decode with the error message want (its "yaml: line N: "
// removed; 0 when none does).
func firstFailingLine(data []byte, want string) int {
	var ends []int // ends[i]: the offset just after line i+1
	for i, c := range data {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		ends = append(ends, len(data))
	}
	fails := func(n int) bool {
		var doc yaml.Node
		err := yaml.NewDecoder(bytes.NewReader(data[:ends[n-1]])).Decode(&doc)
		if err == nil {
			return false
		}
		_, msg := stripLine(err.Error())
		return msg == want
	}
	n := sort.Search(len(ends), func(i int) bool { return fails(i + 1) }) + 1
	if n > len(ends) {
		return 0
	}
	return n
}

// stripLine splits the library's "yaml: line N: message" into N (0 when
// absent) and the message.
func stripLine(s string) (int, string) {
	if m := yamlLineRE.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, m[2]
	}
	return 0, strings.TrimPrefix(s, "yaml: ")
}

// lineText is line n (1-based) of data, without its line break.
func lineText(data []byte, n int) string {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return ""
		}
		data = data[j+1:]
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	return string(data)
}

// parse decodes one YAML document; ok is false after a problem. A file
// with no document (empty, comments only) gives nil, true.
func (l *loader) parse(file string, data []byte) (*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, true
		}
		line, msg := syntaxError(data, err)
		l.probs.add(file, line, "", "invalid YAML: %s", msg)
		return nil, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		line := 0
		if err == nil {
			line = extra.Line
		}
		l.probs.add(file, line, "", "expected one YAML document, found another (remove the --- separator)")
		return nil, false
	}
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil, true
		}
		root := doc.Content[0]
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
			return nil, true
		}
		return root, true
	}
	return &doc, true
}

// mark records src as the origin of every node of the tree.
func (l *loader) mark(n *yaml.Node, src *source) {
	if n == nil || l.origin[n] != nil {
		return
	}
	l.origin[n] = src
	for _, c := range n.Content {
		l.mark(c, src)
	}
}

// checkKeys reports, in every mapping of one file's tree, keys that are
// not strings, keys given twice and merge keys (<<).
func (l *loader) checkKeys(n *yaml.Node, key string) {
	if n == nil || n.Kind == yaml.AliasNode {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			file, line := l.at(k)
			if k.Kind != yaml.ScalarNode {
				l.probs.add(file, line, key, "expected a string key, got %s", kindOf(k))
				continue
			}
			if k.Tag == "!!merge" || k.Value == "<<" && k.Style == 0 {
				l.probs.add(file, line, join(key, "<<"), "merge keys (<<) are not supported; repeat the keys or use include")
				continue
			}
			if first, dup := seen[k.Value]; dup {
				l.probs.add(file, line, join(key, k.Value), "key given twice in one mapping (first at line %d)", first)
				continue
			}
			seen[k.Value] = k.Line
			l.checkKeys(n.Content[i+1], join(key, k.Value))
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			l.checkKeys(c, fmt.Sprintf("%s[%d]", key, i))
		}
	}
}

type includeEntry struct {
	path  string
	node  *yaml.Node
	key   string
	shown string // the entry as written, when ${VAR}s made path
}

// includes returns the files an include: value names, resolved against
// the directory of the file that names them.
func (l *loader) includes(v *yaml.Node) []includeEntry {
	v = deref(v)
	var items []*yaml.Node
	var keys []string
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		return nil
	case v.Kind == yaml.ScalarNode:
		items, keys = []*yaml.Node{v}, []string{"include"}
	case v.Kind == yaml.SequenceNode:
		for i, c := range v.Content {
			items = append(items, deref(c))
			keys = append(keys, fmt.Sprintf("include[%d]", i))
		}
	default:
		file, line := l.at(v)
		l.probs.add(file, line, "include", "expected a file name or a list of file names, got %s", kindOf(v))
		return nil
	}
	var out []includeEntry
	for i, it := range items {
		file, line := l.at(it)
		if it.Kind != yaml.ScalarNode || it.Tag == "!!null" {
			l.probs.add(file, line, keys[i], "expected a file name, got %s", kindOf(it))
			continue
		}
		p, expanded, problem := expand(it.Value, l.opts.LookupEnv, l.opts.MaxExpandedValueBytes, &l.expandLeft)
		if problem != "" {
			l.probs.add(file, line, keys[i], "%s", problem)
			continue
		}
		if strings.TrimSpace(p) == "" {
			l.probs.add(file, line, keys[i], "expected a file name, got an empty string")
			continue
		}
		if !filepath.IsAbs(p) {
			if s := l.origin[it]; s != nil {
				p = filepath.Join(filepath.Dir(s.file), p)
			}
		}
		e := includeEntry{path: p, node: it, key: keys[i]}
		if expanded {
			e.shown = it.Value
		}
		out = append(out, e)
	}
	return out
}

// merge returns b merged onto a: two mappings are merged key by key
// (recursively; keys of a first, in their order, then b's new keys); in
// any other case b replaces a. Neither input is modified.
func (l *loader) merge(a, b *yaml.Node, path []string) *yaml.Node {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	da, db := deref(a), deref(b)
	if da.Kind != yaml.MappingNode || db.Kind != yaml.MappingNode {
		return b
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: db.Line, Column: db.Column}
	l.origin[out] = l.origin[db]
	index := map[string]int{}
	for i := 0; i+1 < len(da.Content); i += 2 {
		index[da.Content[i].Value] = len(out.Content)
		out.Content = append(out.Content, da.Content[i], da.Content[i+1])
	}
	drops := namedEntries(path)
	var dropped map[int]bool
	for i := 0; i+1 < len(db.Content); i += 2 {
		k, v := db.Content[i], db.Content[i+1]
		if j, ok := index[k.Value]; ok {
			if drops && isNull(v) {
				// A later file's empty entry drops the entry an earlier
				// one made (aliases: {plus: null}).
				l.dropped[entryKey(path, k.Value)] = true
				if dropped == nil {
					dropped = map[int]bool{}
				}
				dropped[j] = true
				continue
			}
			delete(dropped, j)
			out.Content[j] = k
			out.Content[j+1] = l.merge(out.Content[j+1], v, append(path[:len(path):len(path)], k.Value))
			continue
		}
		if drops && isNull(v) && l.dropped[entryKey(path, k.Value)] {
			continue // dropped already (a shared include read twice): nothing left to drop
		}
		index[k.Value] = len(out.Content)
		out.Content = append(out.Content, k, v)
	}
	if len(dropped) > 0 {
		kept := out.Content[:0:0]
		for j := 0; j+1 < len(out.Content); j += 2 {
			if !dropped[j] {
				kept = append(kept, out.Content[j], out.Content[j+1])
			}
		}
		out.Content = kept
	}
	return out
}

// namedEntries reports whether path is a mapping whose keys are names the
// user chooses (aliases, snippets, servers, …): in it a later file's
// empty entry drops an earlier file's entry of that name, where in any
// other mapping an empty value resets the key to its default (a snippet
// parameter's `default: null` keeps its meaning).
func namedEntries(path []string) bool {
	switch len(path) {
	case 1:
		switch path[0] {
		case "aliases", "snippets", "servers", "instructions":
			return true
		}
	case 2:
		return (path[0] == "docs" && path[1] == "slugs") || (path[0] == "catalogue" && path[1] == "secrets")
	case 3:
		return path[0] == "servers" && (path[2] == "env" || path[2] == "headers")
	}
	return false
}

// deref follows alias nodes to what they name.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// kindOf describes a node for messages: a mapping, a list, or the scalar
// as written.
func kindOf(n *yaml.Node) string {
	n = deref(n)
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode && len(n.Content) == 0:
		return "an empty mapping"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode && len(n.Content) == 0:
		return "an empty list"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return "an empty value"
	case n.Kind == yaml.ScalarNode:
		return quote(n.Value)
	}
	return "an unsupported YAML node"
}

// join appends a key to a key path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
