package hostconfig_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/hostconfig"
	"github.com/toolpack-go/toolpack/registry/snippet"
)

func TestLoad_IssueExample(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"config.yaml": issueExample,
		"more.yaml":   "aliases: {minus: subtract}\n",
	})
	cfg := mustLoad(t, dir, "config.yaml", map[string]string{"TOKEN": "tok-value", "KEY": "key-value"})

	assert.Equal(t, []string{filepath.Join(dir, "config.yaml"), filepath.Join(dir, "more.yaml")}, cfg.Files)
	assert.Equal(t, map[string]string{"plus": "add", "ws": "brave.web_search", "minus": "subtract"}, cfg.Aliases)

	require.Contains(t, cfg.Snippets, "twice")
	sn := cfg.Snippets["twice"]
	assert.Equal(t, "twice", sn.Name)
	assert.Equal(t, "Add a number to itself", sn.Description)
	require.Len(t, sn.Params, 1)
	assert.Equal(t, "n", sn.Params[0].Name)
	assert.Equal(t, "The number", sn.Params[0].Description)
	assert.JSONEq(t, "21", string(sn.Params[0].Default))
	assert.False(t, sn.Params[0].Required())
	assert.Equal(t, "r = add(a={{ n }}, b={{ n }})\n", sn.Body)
	assert.Equal(t, filepath.Join(dir, "config.yaml"), sn.File)
	assert.Equal(t, 4, sn.Line)
	assert.Equal(t, 8, sn.BodyLine, "the body's first line is line 8 of the file")

	require.Equal(t, []string{"pkgver", "remote"}, cfg.ServerNames())
	pk := cfg.Servers["pkgver"]
	assert.Equal(t, []string{"uvx", "mcp-package-version"}, pk.Command)
	assert.Equal(t, map[string]string{"TOKEN": "tok-value"}, pk.Env)
	assert.Empty(t, pk.URL)
	rm := cfg.Servers["remote"]
	assert.Equal(t, "https://example.test/mcp", rm.URL)
	assert.Equal(t, map[string]string{"Authorization": "Bearer key-value"}, rm.Headers)
	assert.Equal(t, 11, rm.Line)

	assert.Equal(t, map[string]string{"oj": "Use get_problem before find_similar_problems."}, cfg.Instructions)
	assert.Equal(t, []hostconfig.Topic{{Pattern: "notes*", File: filepath.Join(dir, "notes.yaml")}}, cfg.Notify.Topics)
	assert.Equal(t, hostconfig.Stats{Enabled: true, Dir: filepath.Join(dir, "stats"), FlushInterval: time.Second,
		ContextPerCall: 2000, TimePerCallMS: 3000}, cfg.Stats)
	assert.Equal(t, hostconfig.Output{MaxInlineBytes: 50000, Dir: filepath.Join(dir, "results"), TTL: time.Hour,
		ReportsDir: filepath.Join(dir, "reports")}, cfg.Output)
	assert.Equal(t, "https://onetool.beycom.online/reference/tools/", cfg.Docs.BaseURL)
	assert.Equal(t, hostconfig.DefaultSlugs(), cfg.Docs.Slugs)
	assert.Equal(t, "https://onetool.beycom.online/reference/tools/brave-search/", cfg.Docs.URL("brave"))
}

func TestDefault_EveryKey(t *testing.T) {
	d := hostconfig.Default("/data")
	assert.Empty(t, d.Files)
	assert.Empty(t, d.Aliases)
	assert.Empty(t, d.Snippets)
	assert.Empty(t, d.Servers)
	assert.Empty(t, d.Instructions)
	assert.Empty(t, d.Notify.Topics)
	assert.Equal(t, hostconfig.Stats{Enabled: false, Dir: "/data/stats", FlushInterval: time.Second,
		ContextPerCall: 2000, TimePerCallMS: 3000}, d.Stats, "stats are disabled unless enabled")
	assert.Equal(t, hostconfig.Output{MaxInlineBytes: 50000, Dir: "/data/results", TTL: time.Hour,
		ReportsDir: "/data/reports"}, d.Output)
	assert.Equal(t, hostconfig.DefaultDocsBaseURL, d.Docs.BaseURL)
	assert.Equal(t, map[string]string{"brave": "brave-search", "code": "code-search", "db": "database",
		"ground": "grounding-search", "llm": "transform", "web": "web-fetch"}, d.Docs.Slugs)
	assert.Equal(t, "https://onetool.beycom.online/reference/tools/excel/", d.Docs.URL("excel"), "a pack without override uses its name")
}

func TestLoad_EmptyFileGivesDefaults(t *testing.T) {
	for _, content := range []string{"", "# only a comment\n", "---\n", "null\n", "stats:\noutput: null\n"} {
		dir := writeFiles(t, map[string]string{"c.yaml": content})
		cfg := mustLoad(t, dir, "c.yaml", nil)
		want := hostconfig.Default(dir)
		assert.Equal(t, want.Stats, cfg.Stats, "%q", content)
		assert.Equal(t, want.Output, cfg.Output, "%q", content)
		assert.Equal(t, want.Docs, cfg.Docs, "%q", content)
		assert.Empty(t, cfg.Aliases)
	}
}

func TestLoad_DataDirOption(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": "stats: {dir: mine}\n"})
	cfg, err := hostconfig.Load(filepath.Join(dir, "c.yaml"), hostconfig.LoadOptions{DataDir: "/var/lib/tp"})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "mine"), cfg.Stats.Dir, "a path a file sets is relative to that file")
	assert.Equal(t, "/var/lib/tp/results", cfg.Output.Dir, "defaults go under DataDir")
}

func TestLoad_IncludeRelativeToIncludingFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.yaml":          "include: conf/a.yaml\n",
		"conf/a.yaml":        "include: [deeper/b.yaml]\nstats: {dir: s}\n",
		"conf/deeper/b.yaml": "notify: {topics: [{pattern: x, file: n.yaml}]}\noutput: {reports_dir: /abs/reports}\n",
	})
	cfg := mustLoad(t, dir, "main.yaml", nil)
	assert.Equal(t, filepath.Join(dir, "conf", "s"), cfg.Stats.Dir)
	assert.Equal(t, filepath.Join(dir, "conf", "deeper", "n.yaml"), cfg.Notify.Topics[0].File)
	assert.Equal(t, "/abs/reports", cfg.Output.ReportsDir, "an absolute path is kept")
	assert.Equal(t, []string{filepath.Join(dir, "main.yaml"), filepath.Join(dir, "conf/a.yaml"), filepath.Join(dir, "conf/deeper/b.yaml")}, cfg.Files)
}

func TestLoad_MergeOrder(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.yaml": `include: [a.yaml, b.yaml]
aliases: {x: main_x}
stats: {context_per_call: 7}
servers:
  s: {command: [main-cmd]}
`,
		"a.yaml": `aliases: {x: a_x, y: a_y, z: a_z}
stats: {enabled: true, context_per_call: 1, time_per_call_ms: 1}
servers:
  s: {command: [a-cmd, --flag], env: {A: "1"}}
notify: {topics: [{pattern: a, file: a.yaml}, {pattern: a2, file: a2.yaml}]}
output: {ttl: 2h}
`,
		"b.yaml": `aliases: {y: b_y}
stats: {time_per_call_ms: 2}
notify: {topics: [{pattern: b, file: b.yaml}]}
output: null
`,
	})
	cfg := mustLoad(t, dir, "main.yaml", nil)
	assert.Equal(t, map[string]string{"x": "main_x", "y": "b_y", "z": "a_z"}, cfg.Aliases,
		"maps deep-merged; the main file's keys last, a later include over an earlier one")
	assert.True(t, cfg.Stats.Enabled)
	assert.Equal(t, 7, cfg.Stats.ContextPerCall)
	assert.Equal(t, 2, cfg.Stats.TimePerCallMS)
	assert.Equal(t, []string{"main-cmd"}, cfg.Servers["s"].Command, "lists are replaced, not appended")
	assert.Equal(t, map[string]string{"A": "1"}, cfg.Servers["s"].Env, "a server's mapping is merged too")
	assert.Equal(t, []hostconfig.Topic{{Pattern: "b", File: filepath.Join(dir, "b.yaml")}}, cfg.Notify.Topics)
	assert.Equal(t, hostconfig.DefaultTTL, cfg.Output.TTL, "an empty value replaces, resetting the default")
}

// A later file drops one entry an earlier file made — an alias, a
// snippet, a server, instructions, a server's variable or header — with
// an empty value, where the same empty entry with nothing to drop is
// still refused; elsewhere an empty value resets a key to its default, and
// a snippet parameter's default: null keeps its meaning.
func TestLoad_LaterFileDropsAnEntryWithAnEmptyValue(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.yaml": `aliases: {a: add, b: add}
snippets:
  s: {body: "add(a=1, b=2)"}
  t: {body: "add(a=1, b=2)", params: {n: {default: 5}}}
servers:
  s1: {command: [srv], env: {A: "1", B: "2"}}
  s2: {url: "https://x.test/mcp", headers: {X-A: "1", X-B: "2"}}
instructions: {p: "P", q: "Q"}
stats: {dir: elsewhere}
`,
		"c.yaml": `include: [base.yaml]
aliases: {a: null}
snippets:
  s:
  t: {params: {n: {default: null}}}
servers:
  s1: {env: {B: null}}
  s2: {headers: {X-B: }}
instructions: {q: null}
stats: {dir: null}
`,
	})
	cfg := mustLoad(t, dir, "c.yaml", nil)
	assert.Equal(t, map[string]string{"b": "add"}, cfg.Aliases)
	assert.NotContains(t, cfg.Snippets, "s")
	require.Contains(t, cfg.Snippets, "t")
	assert.JSONEq(t, "null", string(cfg.Snippets["t"].Params[0].Default), "default: null keeps its meaning")
	assert.Equal(t, map[string]string{"A": "1"}, cfg.Servers["s1"].Env)
	assert.Equal(t, map[string]string{"X-A": "1"}, cfg.Servers["s2"].Headers)
	assert.Equal(t, map[string]string{"p": "P"}, cfg.Instructions)
	assert.Equal(t, hostconfig.Default(dir).Stats.Dir, cfg.Stats.Dir, "elsewhere an empty value resets to the default")

	// With nothing to drop, an empty entry is a mistake, refused as before,
	// saying what an empty entry does.
	dir = writeFiles(t, map[string]string{"c.yaml": "aliases: {a: null}\n"})
	_, err := load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{`c.yaml:1: aliases.a: expected a string, got an empty value (an empty entry drops the entry of that name an earlier file made, and none made "a")`}, problemTexts(t, dir, err))
}

// A server switched from command to url by a later file, without
// dropping the earlier keys, is told where each came from and how to drop
// them (key: null), not only the later file's line.
func TestLoad_ServerKindSwitchedAcrossFilesNamesBoth(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.yaml": "servers:\n  s1:\n    command: [srv]\n    env: {A: \"1\"}\n",
		"c.yaml":    "include: [base.yaml]\nservers:\n  s1:\n    url: https://x.test/mcp\n",
	})
	_, err := load(t, dir, "c.yaml", nil)
	texts := problemTexts(t, dir, err)
	require.Len(t, texts, 1)
	assert.Equal(t, "c.yaml:4: servers.s1: expected exactly one of command and url, got both: command from base.yaml:3, url from c.yaml:4; a file replacing one with the other writes the other as null (command: null)", texts[0])

	dir = writeFiles(t, map[string]string{
		"base.yaml": "servers:\n  s1:\n    command: [srv]\n    env: {A: \"1\"}\n",
		"c.yaml":    "include: [base.yaml]\nservers:\n  s1:\n    command: null\n    url: https://x.test/mcp\n",
	})
	_, err = load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{"base.yaml:4: servers.s1.env: only applies to a server with command (it comes from base.yaml; c.yaml makes this a server of the other kind: write the key as null there to drop it)"}, problemTexts(t, dir, err))

	dir = writeFiles(t, map[string]string{
		"base.yaml": "servers:\n  s1:\n    command: [srv]\n    env: {A: \"1\"}\n",
		"c.yaml":    "include: [base.yaml]\nservers:\n  s1:\n    command: null\n    env: null\n    url: https://x.test/mcp\n",
	})
	cfg, err := load(t, dir, "c.yaml", nil)
	require.NoError(t, err)
	assert.Equal(t, "https://x.test/mcp", cfg.Servers["s1"].URL)
}

// An include read twice (shared by two files) that drops an entry drops
// nothing the second time: not refused as an empty entry.
func TestLoad_SharedIncludeDroppingTwice(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.yaml":   "aliases: {danger: add, keep: add}\n",
		"policy.yaml": "aliases: {danger: null}\n",
		"team.yaml":   "include: policy.yaml\naliases: {t: add}\n",
		"local.yaml":  "include: policy.yaml\naliases: {l: add}\n",
		"main.yaml":   "include: [base.yaml, team.yaml, local.yaml]\n",
	})
	cfg := mustLoad(t, dir, "main.yaml", nil)
	assert.Equal(t, map[string]string{"keep": "add", "t": "add", "l": "add"}, cfg.Aliases)

	// An empty entry for a name no file made is still a mistake, even
	// when earlier files made other entries of the section.
	dir = writeFiles(t, map[string]string{
		"base.yaml": "aliases: {x: add}\n",
		"main.yaml": "include: [base.yaml]\naliases: {y: null}\n",
	})
	_, err := load(t, dir, "main.yaml", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `main.yaml:2: aliases.y: expected a string, got an empty value (an empty entry drops`)
}

func TestLoad_IncludeCycleRefused(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.yaml": "include: [a.yaml]\n",
		"a.yaml":    "aliases: {p: q}\ninclude: [b.yaml]\n",
		"b.yaml":    "include:\n  - main.yaml\n",
	})
	_, err := load(t, dir, "main.yaml", nil)
	assert.Equal(t, []string{
		"b.yaml:2: include[0]: include cycle: main.yaml → a.yaml → b.yaml → main.yaml; a file cannot include itself, directly or through others",
	}, problemTexts(t, dir, err))

	dir = writeFiles(t, map[string]string{"self.yaml": "include: self.yaml\n"})
	_, err = load(t, dir, "self.yaml", nil)
	assert.Equal(t, []string{"self.yaml:1: include: include cycle: self.yaml → self.yaml; a file cannot include itself, directly or through others"},
		problemTexts(t, dir, err))
}

func TestLoad_DiamondIncludeAllowed(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.yaml":   "include: [a.yaml, b.yaml]\n",
		"a.yaml":      "include: [common.yaml]\n",
		"b.yaml":      "include: [common.yaml]\n",
		"common.yaml": "aliases: {c: tool}\n",
	})
	cfg := mustLoad(t, dir, "main.yaml", nil)
	assert.Equal(t, map[string]string{"c": "tool"}, cfg.Aliases)
	assert.Len(t, cfg.Files, 4, "each file listed once")
}

func TestLoad_IncludeDepthCapped(t *testing.T) {
	files := map[string]string{}
	for i := range 12 {
		files[filepath.Join("d", string(rune('a'+i))+".yaml")] = "include: " + string(rune('a'+i+1)) + ".yaml\n"
	}
	files["d/m.yaml"] = "aliases: {deep: x}\n"
	dir := writeFiles(t, files)
	_, err := hostconfig.Load(filepath.Join(dir, "d/a.yaml"), hostconfig.LoadOptions{MaxIncludeDepth: 3})
	texts := problemTexts(t, dir, err)
	require.Len(t, texts, 1)
	assert.Equal(t, "d/d.yaml:1: include: includes nested deeper than 3 files ("+filepath.Join(dir, "d/e.yaml")+"); expected at most 3 levels of include", texts[0])

	_, err = hostconfig.Load(filepath.Join(dir, "d/a.yaml"), hostconfig.LoadOptions{})
	assert.Contains(t, err.Error(), "expected at most 8 levels of include", "the default depth is 8")

	// A file read once (shared) counts its includes' depth wherever it is
	// included again: the verdict does not depend on the include order.
	chain := map[string]string{"s.yaml": "include: leaf.yaml\n", "leaf.yaml": "aliases: {x: y}\n"}
	for i := 1; i <= 7; i++ {
		next := fmt.Sprintf("d%d.yaml", i+1)
		if i == 7 {
			next = "s.yaml"
		}
		chain[fmt.Sprintf("d%d.yaml", i)] = "include: " + next + "\n"
	}
	chain["first.yaml"] = "include: [s.yaml, d1.yaml]\n"
	chain["last.yaml"] = "include: [d1.yaml, s.yaml]\n"
	dir = writeFiles(t, chain)
	_, errFirst := hostconfig.Load(filepath.Join(dir, "first.yaml"), hostconfig.LoadOptions{})
	_, errLast := hostconfig.Load(filepath.Join(dir, "last.yaml"), hostconfig.LoadOptions{})
	require.Error(t, errFirst, "leaf.yaml is 9 levels below first.yaml through d1…d7")
	require.Error(t, errLast)
	assert.Contains(t, errFirst.Error(), "includes nested deeper than 8 files")
}

func TestLoad_FileSizeAndCountCapped(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.yaml": "include: [big.yaml]\n",
		"big.yaml":  "aliases: {a: b}\n" + strings.Repeat("# padding\n", 200),
	})
	_, err := hostconfig.Load(filepath.Join(dir, "main.yaml"), hostconfig.LoadOptions{MaxFileBytes: 1000})
	assert.Equal(t, []string{"main.yaml:1: include[0]: " + filepath.Join(dir, "big.yaml") + " is larger than 1000 bytes; expected a smaller configuration file"},
		problemTexts(t, dir, err))

	many := map[string]string{"main.yaml": "include: [a.yaml, b.yaml, c.yaml]\n", "a.yaml": "", "b.yaml": "", "c.yaml": ""}
	dir = writeFiles(t, many)
	_, err = hostconfig.Load(filepath.Join(dir, "main.yaml"), hostconfig.LoadOptions{MaxFiles: 3})
	texts := problemTexts(t, dir, err)
	require.Len(t, texts, 1)
	assert.Contains(t, texts[0], "main.yaml:1: include[2]: more than 3 files to read")

	// The cap counts distinct files: includes shared by several files (a
	// diamond seven levels deep: 13 files, thousands of include paths) are
	// read once and merged wherever they are included.
	diamond := map[string]string{"f6.yaml": "aliases: {deep: add}\n", "g6.yaml": "instructions: {g: G}\n"}
	for i := 0; i < 6; i++ {
		inc := fmt.Sprintf("include: [f%d.yaml, g%d.yaml]\n", i+1, i+1)
		diamond[fmt.Sprintf("f%d.yaml", i)] = inc
		diamond[fmt.Sprintf("g%d.yaml", i)] = inc
	}
	dir = writeFiles(t, diamond)
	cfg, err := hostconfig.Load(filepath.Join(dir, "f0.yaml"), hostconfig.LoadOptions{MaxFiles: 13})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"deep": "add"}, cfg.Aliases)
	assert.Equal(t, map[string]string{"g": "G"}, cfg.Instructions)
	assert.Len(t, cfg.Files, 13)
}

func TestLoad_MissingFilesNamed(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.yaml": "aliases: {a: b}\ninclude:\n  - nothere.yaml\n"})
	_, err := load(t, dir, "main.yaml", nil)
	require.ErrorIs(t, err, fs.ErrNotExist)
	texts := problemTexts(t, dir, err)
	require.Len(t, texts, 1)
	assert.True(t, strings.HasPrefix(texts[0], "main.yaml:3: include[0]: cannot read "), texts[0])

	_, err = hostconfig.Load(filepath.Join(dir, "absent.yaml"), hostconfig.LoadOptions{})
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.ErrorIs(t, err, hostconfig.ErrInvalid)
	assert.Contains(t, err.Error(), "absent.yaml: cannot read")

	_, err = hostconfig.Load(dir, hostconfig.LoadOptions{})
	require.ErrorIs(t, err, hostconfig.ErrInvalid)
	assert.Contains(t, err.Error(), "is a directory")
}

func TestLoad_EnvExpansion(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `
aliases:
  a: ${TOOL}
  b: ${MISSING:-fallback}
  c: ${EMPTY:-used_when_empty}
  d: pre_${TOOL}_post
instructions:
  p: "costs $$5, keeps $$HOME and a lone $"
  q: "${EMPTY}|${TOOL:-ignored}"
stats: {enabled: "${ON}", flush_interval: "${FLUSH:-250ms}", context_per_call: "${N}"}
snippets:
  s: {body: "r = t(x=\"${NOT_EXPANDED}\")", params: {v: {default: "${TOOL}"}}}
`})
	cfg := mustLoad(t, dir, "c.yaml", map[string]string{"TOOL": "echo", "EMPTY": "", "ON": "true", "N": "42", "HOME": "/h"})
	assert.Equal(t, map[string]string{"a": "echo", "b": "fallback", "c": "used_when_empty", "d": "pre_echo_post"}, cfg.Aliases)
	assert.Equal(t, "costs $5, keeps $HOME and a lone $", cfg.Instructions["p"])
	assert.Equal(t, "|echo", cfg.Instructions["q"])
	assert.True(t, cfg.Stats.Enabled)
	assert.Equal(t, 250*time.Millisecond, cfg.Stats.FlushInterval)
	assert.Equal(t, 42, cfg.Stats.ContextPerCall)
	assert.Equal(t, `r = t(x="${NOT_EXPANDED}")`, cfg.Snippets["s"].Body, "snippet bodies are kept verbatim")
	assert.JSONEq(t, `"echo"`, string(cfg.Snippets["s"].Params[0].Default))
}

func TestLoad_UnsetVariableNamesFileLineKey(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"c.yaml":    "include: [more.yaml]\n",
		"more.yaml": "servers:\n  s:\n    url: https://x.test/mcp\n    headers: {Authorization: \"Bearer ${API_KEY}\"}\naliases: {a: \"${A\"}\n",
	})
	_, err := load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{
		"more.yaml:4: servers.s.headers.Authorization: environment variable API_KEY is not set (write ${API_KEY:-default} to give a default)",
		"more.yaml:5: aliases.a: unterminated ${; expected ${NAME} or ${NAME:-default} (write $$ for a literal $)",
	}, problemTexts(t, dir, err))
}

// A malformed ${…} in a header value (a literal credential that happens
// to hold "${") is refused without quoting what it holds.
func TestLoad_MalformedVariableNotQuoted(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": "servers:\n  s:\n    url: https://x.test/mcp\n    headers: {Authorization: \"Bearer ${tok-S3CR3T-91}\"}\n"})
	_, err := load(t, dir, "c.yaml", nil)
	require.Error(t, err)
	assert.Equal(t, []string{
		"c.yaml:4: servers.s.headers.Authorization: a ${…} whose name is not a variable name: expected ${NAME} or ${NAME:-default}, NAME matching [A-Za-z_][A-Za-z0-9_]* (write $$ for a literal $)",
	}, problemTexts(t, dir, err))
}

// Variables do not nest: a default holding ${ is refused, naming the
// variable, instead of silently ending at the inner "}" and leaving
// "${OTHER" as the text.
func TestLoad_NestedDefaultRefused(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": "instructions:\n  p: \"${UNSET_X:-${OTHER}}\"\n  q: \"${UNSET_Y:-plain}\"\n"})
	_, err := load(t, dir, "c.yaml", map[string]string{"OTHER": "o"})
	assert.Equal(t, []string{
		"c.yaml:2: instructions.p: ${UNSET_X:-…}: a default is literal text and may not hold ${ (variables do not nest); expected ${NAME:-text}",
	}, problemTexts(t, dir, err))
}

func TestLoad_EnvCannotInjectYAML(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": "instructions: {p: \"${V}\"}\n"})
	injected := "x\"}\nstats: {enabled: true}\naliases: {evil: rm"
	cfg := mustLoad(t, dir, "c.yaml", map[string]string{"V": injected})
	assert.Equal(t, injected, cfg.Instructions["p"], "the value stays one string")
	assert.False(t, cfg.Stats.Enabled)
	assert.Empty(t, cfg.Aliases)
}

func TestLoad_UnknownKeysRejectedAtEveryLevel(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `aliase: {a: b}
snippets:
  s:
    body: r = t()
    bodyy: x
    params: {p: {descr: d}}
servers:
  srv: {url: "https://x.test/", header: {}}
notify: {topics: [{pattern: a, file: f, mode: w}], other: 1}
stats: {flush: 3}
output: {ttl: 1h, size: 3}
docs: {url: x}
`})
	_, err := load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{
		`c.yaml:1: aliase: unknown key "aliase"; expected one of include, aliases, snippets, servers, instructions, notify, stats, output, docs, catalogue, transcript, search_web, web_fetch, mlx`,
		`c.yaml:5: snippets.s.bodyy: unknown key "bodyy"; expected one of description, params, body`,
		`c.yaml:6: snippets.s.params.p.descr: unknown key "descr"; expected one of description, default, example`,
		`c.yaml:8: servers.srv.header: unknown key "header"; expected one of command, url, env, inherit_env, headers, description, dir`,
		`c.yaml:9: notify.other: unknown key "other"; expected one of topics, max_file_bytes`,
		`c.yaml:9: notify.topics[0].mode: unknown key "mode"; expected one of pattern, file`,
		`c.yaml:10: stats.flush: unknown key "flush"; expected one of enabled, dir, flush_interval, context_per_call, time_per_call_ms, keep_days, dsn, schema, max_conns, statement_timeout`,
		`c.yaml:11: output.size: unknown key "size"; expected one of max_inline_bytes, dir, ttl, reports_dir, dsn, schema, max_conns, statement_timeout`,
		`c.yaml:12: docs.url: unknown key "url"; expected one of base_url, slugs`,
	}, problemTexts(t, dir, err))
}

func TestLoad_TypeErrorsNameFileLineKey(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"config.yaml": "include: [more.yaml]\naliases: [a, b]\n",
		"more.yaml": `stats:
  enabled: maybe
  flush_interval: soon
  context_per_call: -1
  time_per_call_ms: 1.5
output: {max_inline_bytes: big, ttl: 0s, dir: ""}
servers:
  s: {command: uvx}
notify: {topics: {pattern: a}}
instructions: {p: [x]}
docs: {base_url: "ftp://x/", slugs: {a: "b/c"}}
snippets: [x]
`,
	})
	_, err := load(t, dir, "config.yaml", nil)
	assert.Equal(t, []string{
		`config.yaml:2: aliases: expected a mapping of alias names to tool names, got a list`,
		`more.yaml:2: stats.enabled: expected true or false, got "maybe"`,
		`more.yaml:3: stats.flush_interval: expected a duration such as 1s, got "soon"`,
		`more.yaml:4: stats.context_per_call: expected a whole number from 0 to 10000000 such as 2000, got "-1"`,
		`more.yaml:5: stats.time_per_call_ms: expected a whole number from 0 to 86400000 such as 3000, got "1.5"`,
		`more.yaml:6: output.dir: expected a path, got an empty string`,
		`more.yaml:6: output.max_inline_bytes: expected a whole number from 1 to 1073741824 such as 50000, got "big"`,
		`more.yaml:6: output.ttl: expected a duration such as 1s, got "0s"`,
		`more.yaml:8: servers.s.command: expected a list of strings such as [uvx, mcp-package-version], got "uvx"`,
		`more.yaml:9: notify.topics: expected a list of {pattern, file} entries, got a mapping`,
		`more.yaml:10: instructions.p: expected a string, got a list`,
		`more.yaml:11: docs.base_url: expected an http or https URL (value not shown)`,
		`more.yaml:11: docs.slugs.a: expected a slug (a URL path segment without /, ? or #), got "b/c"`,
		`more.yaml:12: snippets: expected a mapping of snippet names to snippets, got a list`,
	}, problemTexts(t, dir, err))
}

// docs.base_url with a query or a fragment is refused at load, naming
// the key and what is expected: a pack's slug added after it would land
// in the query (https://x.test/ref?lang=en/example/), not the path.
func TestLoad_DocsBaseURLWithQueryOrFragmentRefused(t *testing.T) {
	for _, u := range []string{"https://x.test/ref?lang=en", "https://x.test/ref/?", "https://x.test/ref/#top", "http://x.test/ref#"} {
		dir := writeFiles(t, map[string]string{"c.yaml": "docs: {base_url: \"" + u + "\"}\n"})
		_, err := load(t, dir, "c.yaml", nil)
		assert.Equal(t, []string{
			`c.yaml:1: docs.base_url: expected an http or https URL without a query (?…) or fragment (#…): each pack's page is its slug added after it (value not shown)`,
		}, problemTexts(t, dir, err), u)
	}
	dir := writeFiles(t, map[string]string{"c.yaml": "docs: {base_url: \"https://x.test/ref/\"}\n"})
	assert.Equal(t, "https://x.test/ref/", mustLoad(t, dir, "c.yaml", nil).Docs.BaseURL)
}

func TestLoad_SecretsNeverInErrors(t *testing.T) {
	const secret = "s3cr3t-v4lue-0xfeed"
	dir := writeFiles(t, map[string]string{"c.yaml": `
stats: {flush_interval: "${SECRET}"}
output: {max_inline_bytes: "${SECRET}"}
servers:
  a: {url: "${SECRET_URL}", headers: {X-Key: "${SECRET_CRLF}"}}
  b: {command: [x], env: {TOKEN: [nested]}}
docs: {base_url: "${SECRET}"}
catalogue: {allowed_hosts: ["${SECRET}", "${SECRET}:1"], schema: "${SECRET}", allow_addrs: ["${SECRET}", "${NET}"]}
search_web: {base_url: "${SECRET}", search_tool: "a/${SECRET}"}
transcript: {base_url: "${SECRET_URL}"}
web_fetch: {allow_addrs: ["x${SECRET}"]}
`})
	vars := map[string]string{"SECRET": secret + " ", "SECRET_URL": "gopher://" + secret, "SECRET_CRLF": secret + "\r\nX: y", "NET": "10.1.2.3/8"}
	_, err := load(t, dir, "c.yaml", vars)
	require.Error(t, err)
	texts := problemTexts(t, dir, err)
	assert.Len(t, texts, 15, "%v", texts)
	assert.NotContains(t, err.Error(), "10.1.2.3", "nothing derived from a value is shown either")
	assert.Contains(t, err.Error(), `catalogue.allowed_hosts[1]: expected an exact host, host:port or *.suffix, got "${SECRET}:1"`)
	assert.NotContains(t, err.Error(), secret)
	assert.Contains(t, err.Error(), `stats.flush_interval: expected a duration such as 1s, got "${SECRET}"`,
		"the config text is quoted, not the expanded value")
	assert.Contains(t, err.Error(), "servers.a.headers.X-Key: expected a value without CR, LF or NUL (value not shown)")
	assert.Contains(t, err.Error(), "servers.b.env.TOKEN: expected a string, got a list")
}

func TestLoad_AliasRules(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `aliases:
  ok: add
  "bad name": add
  target: "not a tool"
  self: self
  a: b
  b: c
  c: a
  l1: l2
  l2: l3
  l3: l4
  l4: l5
  l5: l6
  l6: l7
  l7: l8
  l8: l9
  l9: end
  empty: ""
`})
	_, err := load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{
		`c.yaml:3: aliases.bad name: expected an alias name of 1 to 128 characters from [A-Za-z0-9_.-], got "bad name"`,
		`c.yaml:4: aliases.target: expected a tool name (1 to 128 characters from [A-Za-z0-9_.-]) as the target, got "not a tool"`,
		`c.yaml:5: aliases.self: alias cycle self → self; an alias must end at a tool`,
		`c.yaml:6: aliases.a: alias cycle a → b → c → a; an alias must end at a tool`,
		`c.yaml:7: aliases.b: alias cycle b → c → a → b; an alias must end at a tool`,
		`c.yaml:8: aliases.c: alias cycle c → a → b → c; an alias must end at a tool`,
		`c.yaml:9: aliases.l1: chain of more than 8 aliases; expected a shorter chain`,
		`c.yaml:18: aliases.empty: expected a tool name (1 to 128 characters from [A-Za-z0-9_.-]) as the target, got ""`,
	}, problemTexts(t, dir, err))
}

func TestLoad_SnippetRules(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `snippets:
  good:
    params:
      req: {description: needed}
      opt: {default: {a: [1, 2.5, true, null, "s"]}}
      nul: {default: null}
      bare:
    body: "r = t()"
  bad name: {body: x}
  nobody: {description: d}
  emptybody: {body: "  "}
  badparam: {body: x, params: {"1x": {}}}
  nan: {body: x, params: {v: {default: .nan}}}
  nullsnip:
  huge: {body: x, params: {v: {default: 1e400}, w: {default: "1e400"}, x: {default: -2E+999}, y: {default: !!str 1e400}, z: {default: !!str 12345}}}
`})
	_, err := load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{
		`c.yaml:9: snippets.bad name: snippet "bad name": the name must be 1 to 120 characters from [A-Za-z0-9_.-] (the snippet is the tool snippet.{name})`,
		`c.yaml:10: snippets.nobody.body: expected the snippet's calls; body is missing`,
		`c.yaml:11: snippets.emptybody.body: expected the snippet's calls, got an empty body`,
		`c.yaml:12: snippets.badparam.params.1x: expected a parameter name matching [A-Za-z_][A-Za-z0-9_]{0,63}, got "1x"`,
		`c.yaml:13: snippets.nan.params.v.default: expected a number JSON can hold, got ".nan"`,
		`c.yaml:14: snippets.nullsnip: expected a mapping with keys description, params, body, got an empty value (an empty entry drops the entry of that name an earlier file made, and none made "nullsnip")`,
		// Past float64: a string to the YAML library, which passed
		// silently as the string "1e400"; quoted, it is one.
		`c.yaml:15: snippets.huge.params.v.default: expected a number JSON can hold, got "1e400"; quote it for a string`,
		`c.yaml:15: snippets.huge.params.x.default: expected a number JSON can hold, got "-2E+999"; quote it for a string`,
	}, problemTexts(t, dir, err))

	dir = writeFiles(t, map[string]string{"c.yaml": `snippets:
  good:
    params:
      req: {description: needed}
      opt: {default: {a: [1, 2.5, true, null, "s"]}}
      nul: {default: null}
      bare:
    body: "r = t()"
`})
	cfg := mustLoad(t, dir, "c.yaml", nil)
	ps := cfg.Snippets["good"].Params
	require.Len(t, ps, 4)
	assert.Equal(t, []string{"req", "opt", "nul", "bare"}, []string{ps[0].Name, ps[1].Name, ps[2].Name, ps[3].Name}, "params keep the file's order")
	assert.True(t, ps[0].Required())
	assert.JSONEq(t, `{"a":[1,2.5,true,null,"s"]}`, string(ps[1].Default))
	assert.False(t, ps[2].Required(), "an explicit null is a default")
	assert.JSONEq(t, "null", string(ps[2].Default))
	assert.True(t, ps[3].Required())
	assert.Equal(t, 8, cfg.Snippets["good"].BodyLine, "an inline body starts on its key's line")
}

func TestLoad_ServerRules(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `servers:
  both: {command: [x], url: "https://x.test/"}
  neither: {description: d}
  envurl: {url: "https://x.test/", env: {A: b}, dir: d}
  hdrcmd: {command: [x], headers: {A: b}}
  scheme: {url: "file:///etc/passwd"}
  nohost: {url: "https:///path"}
  badhdr: {url: "https://x.test/", headers: {"bad header": v}}
  badenv: {command: [x], env: {"1A": v}}
  emptycmd: {command: [""]}
  "bad/name": {command: [x]}
  nullsrv:
`})
	_, err := load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{
		`c.yaml:2: servers.both: expected exactly one of command and url, got both`,
		`c.yaml:3: servers.neither: expected command (a local server over stdio) or url (a streamable HTTP server), got neither`,
		`c.yaml:4: servers.envurl.dir: only applies to a server with command`,
		`c.yaml:4: servers.envurl.env: only applies to a server with command`,
		`c.yaml:5: servers.hdrcmd.headers: only applies to a server with url`,
		`c.yaml:6: servers.scheme.url: expected an http or https URL (value not shown)`,
		`c.yaml:7: servers.nohost.url: expected an absolute http or https URL with a host`,
		`c.yaml:8: servers.badhdr.headers.bad header: expected an HTTP header name (an RFC 9110 token), got "bad header"`,
		`c.yaml:9: servers.badenv.env.1A: expected a variable name matching [A-Za-z_][A-Za-z0-9_]*, got "1A"`,
		`c.yaml:10: servers.emptycmd.command[0]: expected the program to run, got an empty string`,
		`c.yaml:11: servers.bad/name: expected a server name of 1 to 64 characters from [A-Za-z0-9_.-], got "bad/name"`,
		`c.yaml:12: servers.nullsrv: expected a mapping with command or url, got an empty value (an empty entry drops the entry of that name an earlier file made, and none made "nullsrv")`,
	}, problemTexts(t, dir, err))

	dir = writeFiles(t, map[string]string{"c.yaml": "servers:\n  s: {command: [srv, -v], dir: work, description: My server}\n"})
	cfg := mustLoad(t, dir, "c.yaml", nil)
	assert.Equal(t, hostconfig.Server{Name: "s", Description: "My server", Command: []string{"srv", "-v"},
		Dir: filepath.Join(dir, "work"), File: filepath.Join(dir, "c.yaml"), Line: 2}, cfg.Servers["s"])
}

func TestLoad_NotifyTopics(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `notify:
  topics:
    - {pattern: " ", file: x.yaml}
    - {pattern: "ok"}
    - {pattern: "notes*", file: notes.yaml}
    - {pattern: "*", file: all.yaml}
`})
	_, err := load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{
		`c.yaml:3: notify.topics[0].pattern: expected a glob pattern such as "notes*", got " "`,
		`c.yaml:4: notify.topics[1].file: is missing; expected a topic with a pattern and a file`,
	}, problemTexts(t, dir, err), "every pattern is a glob, as in Python's fnmatch (\"[\" is a literal '['), but a blank one")

	dir = writeFiles(t, map[string]string{"c.yaml": `notify:
  topics:
    - {pattern: "notes*", file: notes.yaml}
    - {pattern: "*", file: all.yaml}
`})
	cfg := mustLoad(t, dir, "c.yaml", nil)
	tp, ok := cfg.Notify.Match("notes:work")
	require.True(t, ok)
	assert.Equal(t, filepath.Join(dir, "notes.yaml"), tp.File, "the first matching topic wins")
	tp, ok = cfg.Notify.Match("other")
	require.True(t, ok)
	assert.Equal(t, filepath.Join(dir, "all.yaml"), tp.File)
	_, ok = hostconfig.Default("").Notify.Match("notes")
	assert.False(t, ok)
}

func TestLoad_YAMLProblems(t *testing.T) {
	cases := map[string]struct{ content, want string }{
		"syntax":        {"aliases: {a: b\nstats: x\n", "c.yaml:1: invalid YAML: did not find expected ',' or '}'"},
		"two documents": {"aliases: {}\n---\nstats: {}\n", "c.yaml:2: expected one YAML document, found another (remove the --- separator)"},
		"duplicate key": {"aliases:\n  a: x\n  a: y\n", "c.yaml:3: aliases.a: key given twice in one mapping (first at line 2)"},
		"merge key":     {"base: &b {enabled: true}\nstats:\n  <<: *b\n", "c.yaml:3: stats.<<: merge keys (<<) are not supported; repeat the keys or use include"},
		"top level":     {"- a\n- b\n", "c.yaml:1: expected a mapping of configuration keys at the top level, got a list"},
		"key not text":  {"aliases:\n  [a]: b\n", "c.yaml:2: aliases: expected a string key, got a list"},
		// The line of the mistake, wherever the YAML library puts it.
		"key out of place":                      {"aliases:\n  a: add\n  b: add\n  c: add\n bad: x\n", "c.yaml:5: invalid YAML: did not find expected key"},
		"unclosed list":                         {"a: 1\nb: 2\ne: [x\n", "c.yaml:3: invalid YAML: did not find expected ',' or ']'"},
		"unclosed mapping":                      {"a: 1\nb: 2\nh: {a: b\nc: 3\n", "c.yaml:3: invalid YAML: did not find expected ',' or '}'"},
		"flow on line one":                      {"stats: {flush_interval: ${FL:-2s}}\n", "c.yaml:1: invalid YAML: did not find expected ',' or '}'"},
		"key after a list":                      {"a:\n  - x\n  y: 2\n", "c.yaml:3: invalid YAML: did not find expected '-' indicator"},
		"outdented deep key":                    {"a:\n  b:\n    c: 1\n    d: 2\n   e: 3\n", "c.yaml:5: invalid YAML: did not find expected key"},
		"list after a mapping":                  {"a: 1\n- b\n", "c.yaml:2: invalid YAML: did not find expected key"},
		"unknown anchor":                        {"a: 1\nh: *nope\n", "c.yaml:2: invalid YAML: unknown anchor 'nope' referenced"},
		"invalid UTF-8":                         {"a: 1\nb: \xff\n", "c.yaml:2: invalid YAML: invalid leading UTF-8 octet"},
		"scanner's own line":                    {"a: b\n\nc: \"\\q\"\n", "c.yaml:3: invalid YAML: found unknown escape character"},
		"tab before a key":                      {"a: 1\n\tb: 2\n", "c.yaml:2: invalid YAML: found a tab character that violates indentation (this line is indented with a tab; YAML indents with spaces)"},
		"tab in a mapping":                      {"a:\n  b: 1\n\tc: 2\n", "c.yaml:3: invalid YAML: found a tab character that violates indentation (this line is indented with a tab; YAML indents with spaces)"},
		"unclosed quote after a multi-line one": {"aliases:\n  a: b\n  c: \"x\n    y\"\n  d: \"z\n", "c.yaml:5: invalid YAML: found unexpected end of stream"},
		"unclosed quote":                        {"a: 1\nb: 'x\nc: 2\n", "c.yaml:2: invalid YAML: found unexpected end of stream"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"c.yaml": tc.content})
			_, err := load(t, dir, "c.yaml", nil)
			texts := problemTexts(t, dir, err)
			assert.Contains(t, texts, tc.want)
		})
	}
}

// A value of the wrong shape is named with what the key expects (a
// duration, a whole number, true or false, a path) and what was written,
// an empty list or mapping told from one with entries.
func TestLoad_WrongShapeNamesWhatIsExpected(t *testing.T) {
	content := `servers:
  x: {command: []}
mlx: {models: {}}
stats: {flush_interval: [1s], enabled: [], keep_days: {a: 1}, dir: [x]}
output: {max_inline_bytes: [3], ttl: {}}
aliases: []
`
	dir := writeFiles(t, map[string]string{"c.yaml": content})
	_, err := load(t, dir, "c.yaml", nil)
	texts := problemTexts(t, dir, err)
	for _, want := range []string{
		"c.yaml:2: servers.x.command: expected a list of strings such as [uvx, mcp-package-version], got an empty list",
		"c.yaml:3: mlx.models: expected a list of strings such as [mlx-community/Qwen3-4B-4bit], got an empty mapping",
		"c.yaml:4: stats.flush_interval: expected a duration such as 1s, got a list",
		"c.yaml:4: stats.enabled: expected true or false, got an empty list",
		"c.yaml:4: stats.keep_days: expected a whole number from 0 to 36500 such as 90, got a mapping",
		"c.yaml:4: stats.dir: expected a path, got a list",
		"c.yaml:5: output.max_inline_bytes: expected a whole number from 1 to 1073741824 such as 50000, got a list",
		"c.yaml:5: output.ttl: expected a duration such as 1s, got an empty mapping",
		"c.yaml:6: aliases: expected a mapping of alias names to tool names, got an empty list",
	} {
		assert.Contains(t, texts, want)
	}
}

func TestLoad_YAMLAliasesDoNotExplode(t *testing.T) {
	var b strings.Builder
	b.WriteString("x0: &a0 [v, v, v, v, v, v, v, v, v, v]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("x" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	content := "snippets:\n  s:\n    body: x\n    params: {p: {default: *a8}}\n"
	dir := writeFiles(t, map[string]string{"c.yaml": "anchors:\n" + indent(b.String()) + content})
	_, err := load(t, dir, "c.yaml", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "c.yaml:14: snippets.s.params.p.default: value has more than 10000 parts (YAML aliases included); expected a smaller default")
}

func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "")
}

func TestLoad_AnchorsWithinOneFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `servers:
  a: &srv {command: [run, a]}
  b: *srv
`})
	cfg := mustLoad(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{"run", "a"}, cfg.Servers["b"].Command)
}

func TestConfig_ErrorfLocatesKey(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"c.yaml": "include: [s.yaml]\n",
		"s.yaml": "snippets:\n  twice:\n    body: |\n      r = add(a=1)\n",
	})
	cfg := mustLoad(t, dir, "c.yaml", nil)
	file, line, ok := cfg.Position("snippets.twice.body")
	require.True(t, ok)
	assert.Equal(t, filepath.Join(dir, "s.yaml"), file)
	assert.Equal(t, 3, line)
	p := cfg.Errorf("snippets.twice.body", "line %d: unknown tool %q", 1, "add")
	require.ErrorIs(t, p, hostconfig.ErrInvalid)
	assert.Equal(t, filepath.Join(dir, "s.yaml")+":3: snippets.twice.body: line 1: unknown tool \"add\"", p.Error())
	p = cfg.Errorf("snippets.twice.body.deeper[2]", "x")
	assert.Equal(t, 3, p.Line, "the nearest enclosing key a file set")
	p = hostconfig.Default("").Errorf("aliases.x", "y")
	assert.Equal(t, "aliases.x: y", p.Error())
	assert.NoError(t, p.Err, "no cause without %w")
}

// A hook's Problem made with %w keeps the cause in its chain, so that the
// host tells "the database is away" from "the file is wrong" with
// errors.Is, while the text stays file:line: key: message.
func TestConfig_ErrorfKeepsCause(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": "stats:\n  dsn: postgres://db/x\n"})
	cfg := mustLoad(t, dir, "c.yaml", nil)
	away := errors.New("the database cannot be reached")
	p := cfg.Errorf("stats.dsn", "pgstats: %w", fmt.Errorf("connecting: %w", away))
	require.ErrorIs(t, p, away)
	require.ErrorIs(t, p, hostconfig.ErrInvalid)
	assert.Equal(t, filepath.Join(dir, "c.yaml")+":2: stats.dsn: pgstats: connecting: the database cannot be reached", p.Error())
	assert.Len(t, hostconfig.Problems(fmt.Errorf("reload: %w", p)), 1)
}

func TestProblems_ListsEveryProblem(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": "stats: {enabled: x, dir: \"\"}\n"})
	_, err := load(t, dir, "c.yaml", nil)
	ps := hostconfig.Problems(err)
	require.Len(t, ps, 2)
	for _, p := range ps {
		assert.Equal(t, filepath.Join(dir, "c.yaml"), p.File)
		assert.Equal(t, 1, p.Line)
	}
	assert.Equal(t, "stats.dir", ps[0].Key)
	assert.Equal(t, "stats.enabled", ps[1].Key)
	assert.Nil(t, hostconfig.Problems(nil))
	wrapped := json.Unmarshal([]byte("x"), new(any))
	assert.Nil(t, hostconfig.Problems(wrapped))
}

func TestLoad_RelativeMainPath(t *testing.T) {
	dir := writeFiles(t, map[string]string{"conf/c.yaml": "include: [m.yaml]\n", "conf/m.yaml": "stats: {flush_interval: soon}\n"})
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(dir))
	t.Cleanup(func() { _ = os.Chdir(wd) })
	_, err = hostconfig.Load("conf/c.yaml", hostconfig.LoadOptions{})
	require.Error(t, err)
	assert.Equal(t, `conf/m.yaml:1: stats.flush_interval: expected a duration such as 1s, got "soon"`, err.Error(),
		"files are named as they were opened")
}

// stats.keep_days: how many days of call records are kept; 0 (the default)
// keeps every record; a negative number, a fraction or more than
// MaxKeepDays is named with file and line.
func TestLoad_StatsKeepDays(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"default.yaml": "stats: {enabled: true}\n",
		"ok.yaml":      "stats: {enabled: true, keep_days: 90}\n",
		"bad.yaml":     "stats:\n  keep_days: -1\n",
		"frac.yaml":    "stats:\n  keep_days: 1.5\n",
		"huge.yaml":    "stats:\n  keep_days: 36501\n",
	})
	c, err := load(t, dir, "default.yaml", nil)
	require.NoError(t, err)
	assert.Zero(t, c.Stats.KeepDays)
	c, err = load(t, dir, "ok.yaml", nil)
	require.NoError(t, err)
	assert.Equal(t, 90, c.Stats.KeepDays)
	_, err = load(t, dir, "bad.yaml", nil)
	assert.Equal(t, []string{`bad.yaml:2: stats.keep_days: expected a whole number from 0 to 36500 such as 90, got "-1"`}, problemTexts(t, dir, err))
	_, err = load(t, dir, "frac.yaml", nil)
	assert.Equal(t, []string{`frac.yaml:2: stats.keep_days: expected a whole number from 0 to 36500 such as 90, got "1.5"`}, problemTexts(t, dir, err))
	_, err = load(t, dir, "huge.yaml", nil)
	assert.Equal(t, []string{`huge.yaml:2: stats.keep_days: expected a whole number from 0 to 36500 such as 90, got "36501"`}, problemTexts(t, dir, err))
}

// Durations too short to work are refused with the least each key takes:
// a flush every nanosecond spins a core, an output that expires as it is
// stored cannot be read, and PostgreSQL reads a statement timeout under a
// millisecond as none.
func TestLoad_DurationsTooShortRefused(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": "stats: {flush_interval: 1ns}\noutput: {ttl: 1ms, statement_timeout: 500us}\ncatalogue: {statement_timeout: 9ms}\n"})
	_, err := load(t, dir, "c.yaml", nil)
	require.Error(t, err)
	assert.ElementsMatch(t, []string{
		`c.yaml:1: stats.flush_interval: expected a duration of at least 10ms, got "1ns"`,
		`c.yaml:2: output.ttl: expected a duration of at least 1s, got "1ms"`,
		`c.yaml:2: output.statement_timeout: expected a duration of at least 10ms, got "500us"`,
		`c.yaml:3: catalogue.statement_timeout: expected a duration of at least 10ms, got "9ms"`,
	}, problemTexts(t, dir, err))

	dir = writeFiles(t, map[string]string{"c.yaml": "stats: {flush_interval: 10ms}\noutput: {ttl: 1s, statement_timeout: 10ms}\n"})
	cfg, err := load(t, dir, "c.yaml", nil)
	require.NoError(t, err, "the least values themselves are accepted")
	assert.Equal(t, time.Second, cfg.Output.TTL)
}

// Values past any sensible setting are slips (a digit too many, 100000h)
// and refused naming the bound: a flush interval that would never come, or
// per-call estimates whose totals overflow in ot.stats. The bounds
// themselves are accepted.
func TestLoad_ValuesTooLargeRefused(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `stats: {flush_interval: 100000h, context_per_call: 9223372036854775807, time_per_call_ms: 86400001}
output: {ttl: 8761h, max_inline_bytes: 1073741825, statement_timeout: 2h}
`})
	_, err := load(t, dir, "c.yaml", nil)
	require.Error(t, err)
	assert.ElementsMatch(t, []string{
		`c.yaml:1: stats.flush_interval: expected a duration of at most 1h0m0s, got "100000h"`,
		`c.yaml:1: stats.context_per_call: expected a whole number from 0 to 10000000 such as 2000, got "9223372036854775807"`,
		`c.yaml:1: stats.time_per_call_ms: expected a whole number from 0 to 86400000 such as 3000, got "86400001"`,
		`c.yaml:2: output.ttl: expected a duration of at most 8760h0m0s, got "8761h"`,
		`c.yaml:2: output.max_inline_bytes: expected a whole number from 1 to 1073741824 such as 50000, got "1073741825"`,
		`c.yaml:2: output.statement_timeout: expected a duration of at most 1h0m0s, got "2h"`,
	}, problemTexts(t, dir, err))

	dir = writeFiles(t, map[string]string{"c.yaml": "stats: {flush_interval: 1h, context_per_call: 10000000, time_per_call_ms: 86400000}\noutput: {ttl: 8760h, max_inline_bytes: 1073741824}\n"})
	_, err = load(t, dir, "c.yaml", nil)
	require.NoError(t, err, "the bounds themselves are accepted")
}

// output.max_conns is at least 2: one connection stays free for reading
// pages while outputs are written. The other sections take 1.
func TestLoad_OutputNeedsTwoConnections(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": "output: {max_conns: 1}\nstats: {max_conns: 1}\ncatalogue: {max_conns: 1}\n"})
	_, err := load(t, dir, "c.yaml", nil)
	require.Error(t, err)
	assert.Equal(t, []string{`c.yaml:1: output.max_conns: expected a whole number from 2 to 1000 such as 10, got "1"`}, problemTexts(t, dir, err))
}

// A snippet default that is a number must be written as JSON writes
// numbers: 0500 (octal 320 to the YAML library, 500 to whoever reads the
// file), 0x1F, 1_000, .5 and +1 are refused, a quoted one is a string.
func TestLoad_SnippetDefaultNumbersAsJSONWritesThem(t *testing.T) {
	body := "snippets:\n  s:\n    body: 'add(a={{ a }}, b=1)'\n    params:\n"
	for i, v := range []string{"0500", "0x1F", "1_000", ".5", "+1"} {
		body += fmt.Sprintf("      p%d: {default: %s}\n", i, v)
	}
	body += "      ok1: {default: 500}\n      ok2: {default: -2.5e3}\n      ok3: {default: \"0500\"}\n      a: {default: 0}\n"
	dir := writeFiles(t, map[string]string{"c.yaml": body})
	_, err := load(t, dir, "c.yaml", nil)
	require.Error(t, err)
	texts := problemTexts(t, dir, err)
	require.Len(t, texts, 5, "%v", texts)
	assert.Equal(t, `c.yaml:5: snippets.s.params.p0.default: expected a number as JSON writes it (such as 500, -2.5 or 1e3), got "0500"; quote it for a string`, texts[0])
}

// A problem of the file's structure (a key given twice, a merge key) does
// not hide the others: every problem is reported at once, each line once.
func TestLoad_StructureProblemsDoNotHideTheOthers(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"c.yaml":    "include: [more.yaml]\naliases: {a: add, a: add}\nstats: {flush_interval: abc}\nfoo: 1\n",
		"more.yaml": "base: &b {enabled: true}\n",
	})
	_, err := load(t, dir, "c.yaml", nil)
	require.Error(t, err)
	texts := problemTexts(t, dir, err)
	require.Len(t, texts, 4, "%v", texts)
	assert.Contains(t, texts[0], "c.yaml:2: aliases.a: key given twice in one mapping")
	assert.Contains(t, texts[1], `c.yaml:3: stats.flush_interval: expected a duration such as 1s, got "abc"`)
	assert.Contains(t, texts[2], `c.yaml:4: foo: unknown key "foo"`)
	assert.Contains(t, texts[3], `more.yaml:1: base: unknown key "base"`)
}

// A default is kept as the file wrote it: 1.0 stays a float (the
// parameter is a number, not an integer) and a long integer keeps its
// digits.
func TestLoad_SnippetDefaultNumbersKeptAsWritten(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": "snippets:\n  s:\n    body: 'add(a={{ f }}, b={{ n }})'\n    params:\n      f: {default: 1.0}\n      n: {default: 123456789012345678901234567890}\n      z: {default: -0.0}\n"})
	cfg := mustLoad(t, dir, "c.yaml", nil)
	ps := cfg.Snippets["s"].Params
	byName := map[string]string{}
	for _, p := range ps {
		byName[p.Name] = string(p.Default)
	}
	assert.Equal(t, map[string]string{"f": "1.0", "n": "123456789012345678901234567890", "z": "-0.0"}, byName)
}

// A snippet parameter's example is kept as JSON of the type the file
// writes (a number stays a number, 1.0 a float), ${VAR}-expanded as a
// default is; an included file may give it; an empty value gives none. A
// parameter with a default takes none (the examples show the default),
// and a value JSON cannot hold is refused at its key.
func TestLoad_SnippetParamExample(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.yaml": `include: [more.yaml]
snippets:
  s:
    body: 'r = t(a="{{ topic }}", n={{ n }})'
    params:
      topic: {description: Topic to research, example: Python}
      n: {example: 3}
      f: {example: 1.0}
      l: {example: [1, "two", {three: 3}]}
      env: {example: "${WHO}"}
      none: {example: }
      q: {example: "3"}
`,
		"more.yaml": `snippets:
  s:
    params:
      later: {description: From the included file}
      n: {description: Count}
`,
	})
	cfg := mustLoad(t, dir, "main.yaml", map[string]string{"WHO": "Ada"})
	examples := map[string]string{}
	for _, p := range cfg.Snippets["s"].Params {
		if p.Example != nil {
			examples[p.Name] = string(p.Example)
		}
		assert.True(t, p.Required(), p.Name)
	}
	assert.Equal(t, map[string]string{
		"topic": `"Python"`, "n": `3`, "f": `1.0`, "l": `[1,"two",{"three":3}]`, "env": `"Ada"`, "q": `"3"`,
	}, examples)
	var n any
	require.NoError(t, json.Unmarshal(cfg.Snippets["s"].Params[1].Example, &n))
	assert.Equal(t, float64(3), n, "a number stays a number")

	// Merged across files: the main file's example beside the included
	// file's description.
	dir = writeFiles(t, map[string]string{
		"main.yaml": "include: [more.yaml]\nsnippets:\n  s:\n    params: {n: {example: 7}}\n",
		"more.yaml": "snippets:\n  s:\n    body: 'r = t(n={{ n }})'\n    params: {n: {description: Count}}\n",
	})
	p := mustLoad(t, dir, "main.yaml", nil).Snippets["s"].Params[0]
	assert.Equal(t, hostconfig.Param{Name: "n", Description: "Count", Example: json.RawMessage("7")}, p)

	dir = writeFiles(t, map[string]string{"c.yaml": `snippets:
  s:
    body: 'r = t()'
    params:
      d: {default: 5, example: 6}
      dn: {default: null, example: x}
      nan: {example: .nan}
      big: {example: 1e400}
      ok: {default: 5, example: }
`})
	_, err := load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{
		`c.yaml:5: snippets.s.params.d.example: the parameter has a default, which the examples show; expected example only on a parameter without default (a required one)`,
		`c.yaml:6: snippets.s.params.dn.example: the parameter has a default, which the examples show; expected example only on a parameter without default (a required one)`,
		`c.yaml:7: snippets.s.params.nan.example: expected a number JSON can hold, got ".nan"`,
		`c.yaml:8: snippets.s.params.big.example: expected a number JSON can hold, got "1e400"; quote it for a string`,
	}, problemTexts(t, dir, err))

	dir = writeFiles(t, map[string]string{"c.yaml": "snippets:\n  s:\n    body: 'r = t()'\n    params: {p: {example: \"" + strings.Repeat("x", 70000) + "\"}}\n"})
	_, err = load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{`c.yaml:4: snippets.s.params.p.example: value is larger than 65536 bytes as JSON; expected a smaller example`}, problemTexts(t, dir, err))
}

// Names gives a section's entries in the order the configuration writes
// them: a file's order, the included files' entries before the main
// file's new ones (the merge order), an overridden entry where it was
// first written, a dropped one gone; entries added in code follow, sorted.
func TestConfig_NamesInTheOrderTheFilesWriteThem(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.yaml": `include: [a.yaml]
aliases: {zeta: add, mid: echo, alpha: add}
servers:
  remote: {url: "http://127.0.0.1:1/mcp"}
  down: {url: "http://127.0.0.1:2/mcp"}
instructions: {ot: x, example: y}
`,
		"a.yaml": `aliases: {mid: add, gone: add, beta: add}
snippets:
  foon: {body: "add(a=1, b=2)"}
  barn: {body: "add(a=1, b=2)"}
`,
		"b.yaml": `include: [main.yaml]
aliases: {gone: null}
`,
	})
	cfg := mustLoad(t, dir, "main.yaml", nil)
	assert.Equal(t, []string{"mid", "gone", "beta", "zeta", "alpha"}, cfg.Names("aliases"))
	assert.Equal(t, []string{"foon", "barn"}, cfg.Names("snippets"))
	assert.Equal(t, []string{"remote", "down"}, cfg.Names("servers"))
	assert.Equal(t, []string{"remote", "down"}, cfg.ServerNames())
	assert.Equal(t, []string{"ot", "example"}, cfg.Names("instructions"))
	assert.Nil(t, cfg.Names("stats"))

	cfg = mustLoad(t, dir, "b.yaml", nil)
	assert.Equal(t, []string{"mid", "beta", "zeta", "alpha"}, cfg.Names("aliases"), "a dropped entry is gone")

	cfg.Aliases["added_b"], cfg.Aliases["added_a"] = "add", "add"
	assert.Equal(t, []string{"mid", "beta", "zeta", "alpha", "added_a", "added_b"}, cfg.Names("aliases"))
	assert.Equal(t, []string{"foon", "barn"}, cfg.Names("snippets"))
	def := hostconfig.Default(dir)
	def.Servers = map[string]hostconfig.Server{"b": {}, "a": {}}
	assert.Equal(t, []string{"a", "b"}, def.ServerNames(), "a Config made in code: sorted")
}

// A file with thousands of bad entries is reported by its first
// MaxProblems problems and a count of the others, not in megabytes.
func TestLoad_ProblemsListedUpToACap(t *testing.T) {
	var b strings.Builder
	b.WriteString("stats:\n")
	b.WriteString("  enabled: true\n")
	b.WriteString("aliases:\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "  a%d: \"bad name %d\"\n", i, i)
	}
	dir := writeFiles(t, map[string]string{"main.yaml": b.String()})
	_, err := hostconfig.Load(filepath.Join(dir, "main.yaml"), hostconfig.LoadOptions{})
	require.Error(t, err)
	ps := hostconfig.Problems(err)
	require.Len(t, ps, hostconfig.MaxProblems+1)
	assert.Contains(t, ps[0].Error(), "main.yaml:4: aliases.a0: ")
	assert.Equal(t, fmt.Sprintf("and %d more problems, not listed: fix the ones above first", 2000-hostconfig.MaxProblems), ps[hostconfig.MaxProblems].Error())
	assert.Less(t, len(err.Error()), 20000)
}

// A server entry's Secrets are the values the environment gave its
// ${VAR}s, wherever in the entry they are (a token in the URL's path, an
// API key as a command argument), for the host to redact; literal text
// and defaults written in the file are not secrets.
func TestLoad_ServerSecretsAreItsEnvironmentValues(t *testing.T) {
	dir := writeFiles(t, map[string]string{"main.yaml": `servers:
  web: {url: "https://mcp.example.test/${TOKEN}/sse", headers: {Authorization: "Bearer ${KEY}"}}
  kid: {command: [server, --api-key, "${KEY}", "--mode=${MODE:-fast}"], env: {LEVEL: debug}}
`})
	cfg := mustLoad(t, dir, "main.yaml", map[string]string{"TOKEN": "tok-123456", "KEY": "key-abcdef"})
	assert.ElementsMatch(t, []string{"tok-123456", "key-abcdef"}, cfg.Servers["web"].Secrets)
	assert.Equal(t, []string{"key-abcdef"}, cfg.Servers["kid"].Secrets, "the default and the literal env value are the file's")
}

// An include path made from the environment is named, in the messages
// about reading it, as the file writes it: the value of a variable never
// appears in an error, even when it is the name of a file that cannot be
// read. The reason stays readable and checkable with errors.Is.
func TestLoad_IncludeFromTheEnvironmentNamedAsWritten(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.yaml": "include: [\"${CONF}/more.yaml\", plain.yaml]\n",
		"big.yaml":  strings.Repeat("# padding\n", 100),
	})
	const secret = "s3cret-dir-4711"
	_, err := load(t, dir, "main.yaml", map[string]string{"CONF": secret})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), secret)
	assert.Contains(t, err.Error(), `main.yaml:1: include[0]: cannot read "${CONF}/more.yaml": no such file or directory`)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	// A file not made from the environment is still named by its path.
	assert.Contains(t, err.Error(), "include[1]: cannot read "+filepath.Join(dir, "plain.yaml"))

	_, err = hostconfig.Load(filepath.Join(dir, "main.yaml"), hostconfig.LoadOptions{
		LookupEnv:    env(map[string]string{"CONF": "."}),
		MaxFileBytes: 100,
	})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "./more.yaml:", "the problem is about the include entry")

	dir2 := writeFiles(t, map[string]string{
		"main.yaml":          "include: \"${BIG}\"\n",
		secret + "/big.yaml": strings.Repeat("# padding\n", 100),
	})
	_, err = hostconfig.Load(filepath.Join(dir2, "main.yaml"), hostconfig.LoadOptions{
		LookupEnv:    env(map[string]string{"BIG": secret + "/big.yaml"}),
		MaxFileBytes: 200,
	})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), secret)
	assert.Contains(t, err.Error(), `include: "${BIG}" is larger than 200 bytes`)
}

// countingEnv is env that also counts the lookups of each variable.
func countingEnv(vars map[string]string) (func(string) (string, bool), map[string]int) {
	n := map[string]int{}
	return func(name string) (string, bool) {
		n[name]++
		v, ok := vars[name]
		return v, ok
	}, n
}

// One value's ${VAR} expansion stops at MaxExpandedValueBytes as it
// grows, wherever the value is (an instruction, a server's header, env
// and URL, a snippet parameter's default, an include path): 8,000
// references to a 131,000-byte variable made a 32 KB file take 2.4 GB.
// The problem names file, line, key and the variable, never its value,
// and the variable is looked up only until the value is over (9 times
// here, not 100).
func TestLoad_ExpandedValueCapped(t *testing.T) {
	long := strings.Repeat("b", 131000) // 8 fit in 1 MiB, 9 do not
	refs := strings.Repeat("${B}", 100)
	want := "${B} makes the value longer than 1048576 bytes; expected a value of at most 1048576 bytes once its variables are expanded (hostconfig.MaxExpandedValueBytes)"
	for name, c := range map[string]struct{ file, key string }{
		"instruction":     {"instructions: {x: \"" + refs + "\"}\n", "instructions.x"},
		"server header":   {"servers:\n  s:\n    url: https://x.test/mcp\n    headers: {Authorization: \"" + refs + "\"}\n", "servers.s.headers.Authorization"},
		"server env":      {"servers:\n  s:\n    command: [run]\n    env: {TOKEN: \"" + refs + "\"}\n", "servers.s.env.TOKEN"},
		"server url":      {"servers:\n  s:\n    url: \"https://x.test/" + refs + "\"\n", "servers.s.url"},
		"snippet default": {"snippets:\n  s:\n    body: x\n    params: {p: {default: [\"" + refs + "\"]}}\n", "snippets.s.params.p.default[0]"},
		"include":         {"include: [\"" + refs + "\"]\n", "include[0]"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"c.yaml": c.file})
			lookup, n := countingEnv(map[string]string{"B": long})
			_, err := hostconfig.Load(filepath.Join(dir, "c.yaml"), hostconfig.LoadOptions{LookupEnv: lookup})
			texts := problemTexts(t, dir, err)
			require.Len(t, texts, 1)
			assert.Regexp(t, `^c\.yaml:\d+: `+regexp.QuoteMeta(c.key+": "+want)+`$`, texts[0])
			assert.NotContains(t, err.Error(), "bbbb", "the variable's value is never shown")
			assert.Equal(t, 9, n["B"], "expansion stops as soon as the value is over the cap")
		})
	}

	// Exactly the cap is allowed; one byte more, after the last variable,
	// is not.
	exact := strings.Repeat("c", hostconfig.MaxExpandedValueBytes)
	dir := writeFiles(t, map[string]string{"c.yaml": "instructions: {x: \"${C}\"}\n", "d.yaml": "instructions: {x: \"${C}.\"}\n"})
	cfg := mustLoad(t, dir, "c.yaml", map[string]string{"C": exact})
	assert.Len(t, cfg.Instructions["x"], hostconfig.MaxExpandedValueBytes)
	_, err := load(t, dir, "d.yaml", map[string]string{"C": exact})
	assert.Equal(t, []string{"d.yaml:1: instructions.x: ${C} makes the value longer than 1048576 bytes; expected a value of at most 1048576 bytes once its variables are expanded (hostconfig.MaxExpandedValueBytes)"},
		problemTexts(t, dir, err))
}

// All the expanded values of one load together stop at MaxExpandedBytes,
// a YAML alias repeating a value counting each time: values each under
// MaxExpandedValueBytes cannot add up to gigabytes either. The load stops
// expanding when it is over (129 lookups: 16 values of 8 copies fit).
func TestLoad_ExpandedTotalCapped(t *testing.T) {
	long := strings.Repeat("b", 131000)
	var file strings.Builder
	file.WriteString("instructions:\n  a0: &v \"" + strings.Repeat("${B}", 8) + "\"\n")
	for i := 1; i < 40; i++ {
		fmt.Fprintf(&file, "  a%d: *v\n", i)
	}
	dir := writeFiles(t, map[string]string{"c.yaml": file.String()})
	lookup, n := countingEnv(map[string]string{"B": long})
	_, err := hostconfig.Load(filepath.Join(dir, "c.yaml"), hostconfig.LoadOptions{LookupEnv: lookup})
	texts := problemTexts(t, dir, err)
	require.NotEmpty(t, texts)
	assert.Equal(t, "c.yaml:18: instructions.a16: ${B} takes the text expanded from variables past 16777216 bytes in all; expected at most 16777216 bytes of expanded values in the whole configuration (hostconfig.MaxExpandedBytes)", texts[0])
	assert.NotContains(t, err.Error(), "bbbb", "the variable's value is never shown")
	assert.Equal(t, 16*8+1+(40-17), n["B"], "each value over the total stops at its first variable")
}

// inherit_env on a command server is a list of variable names passed as
// the host has them: not expanded, not secrets (nothing of it is in
// Server.Secrets), each a valid name given once, not in env too, and only
// with command.
func TestLoad_ServerInheritEnv(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `servers:
  s:
    command: [srv]
    inherit_env: [LANG, HTTP_PROXY, XDG_CONFIG_HOME, _X1]
    env: {API_KEY: "${KEY}"}
`})
	cfg := mustLoad(t, dir, "c.yaml", map[string]string{"KEY": "key-value-123", "LANG": "C.UTF-8"})
	s := cfg.Servers["s"]
	assert.Equal(t, []string{"LANG", "HTTP_PROXY", "XDG_CONFIG_HOME", "_X1"}, s.InheritEnv)
	assert.Equal(t, map[string]string{"API_KEY": "key-value-123"}, s.Env)
	assert.Equal(t, []string{"key-value-123"}, s.Secrets, "an inherited variable's value is no secret of the entry")

	dir = writeFiles(t, map[string]string{"c.yaml": `servers:
  badname: {command: [x], inherit_env: [LANG, "1A", "${LANG}", "A-B"]}
  onurl: {url: "https://x.test/", inherit_env: [LANG]}
  both:
    command: [x]
    env: {HTTP_PROXY: "http://proxy.test:3128"}
    inherit_env:
      - LANG
      - HTTP_PROXY
  twice: {command: [x], inherit_env: [LANG, LANG]}
  notalist: {command: [x], inherit_env: LANG}
  nested: {command: [x], inherit_env: [[LANG]]}
`})
	_, err := load(t, dir, "c.yaml", map[string]string{"LANG": "C.UTF-8"})
	assert.Equal(t, []string{
		`c.yaml:2: servers.badname.inherit_env[1]: expected a variable name matching [A-Za-z_][A-Za-z0-9_]*, got "1A"`,
		`c.yaml:2: servers.badname.inherit_env[2]: expected a variable name matching [A-Za-z_][A-Za-z0-9_]*, got "${LANG}"`,
		`c.yaml:2: servers.badname.inherit_env[3]: expected a variable name matching [A-Za-z_][A-Za-z0-9_]*, got "A-B"`,
		`c.yaml:3: servers.onurl.inherit_env: only applies to a server with command`,
		`c.yaml:9: servers.both.inherit_env: HTTP_PROXY is set in env too; expected each variable in one of them (env for a secret, inherit_env for a plain setting passed as the host has it)`,
		`c.yaml:10: servers.twice.inherit_env[1]: LANG is named twice; expected each variable once`,
		`c.yaml:11: servers.notalist.inherit_env: expected a list of variable names such as [LANG, HTTP_PROXY], got "LANG"`,
		`c.yaml:12: servers.nested.inherit_env[0]: expected a string, got a list`,
	}, problemTexts(t, dir, err))
	for _, p := range problemTexts(t, dir, err) {
		assert.NotContains(t, p, "proxy.test", "an env value is never shown")
	}
}

// inherit_env passes plain settings, never redacted: a variable whose
// name says it holds a credential is refused at its line, pointing to
// env (which redacts it); names that only resemble one pass.
func TestLoad_InheritEnvRefusesCredentialNames(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `servers:
  s: {command: [x], inherit_env: [LANG, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, OPENAI_API_KEY, PG_PASSWORD, SSH_AUTH_SOCK, GPG_KEY_ID, TOKENIZERS_PARALLELISM]}
`})
	_, err := load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{
		`c.yaml:2: servers.s.inherit_env[1]: GITHUB_TOKEN holds a credential by its name; inherit_env passes plain settings, never redacted: pass it with env: {GITHUB_TOKEN: "${GITHUB_TOKEN}"}, which redacts it`,
		`c.yaml:2: servers.s.inherit_env[2]: AWS_SECRET_ACCESS_KEY holds a credential by its name; inherit_env passes plain settings, never redacted: pass it with env: {AWS_SECRET_ACCESS_KEY: "${AWS_SECRET_ACCESS_KEY}"}, which redacts it`,
		`c.yaml:2: servers.s.inherit_env[3]: OPENAI_API_KEY holds a credential by its name; inherit_env passes plain settings, never redacted: pass it with env: {OPENAI_API_KEY: "${OPENAI_API_KEY}"}, which redacts it`,
		`c.yaml:2: servers.s.inherit_env[4]: PG_PASSWORD holds a credential by its name; inherit_env passes plain settings, never redacted: pass it with env: {PG_PASSWORD: "${PG_PASSWORD}"}, which redacts it`,
	}, problemTexts(t, dir, err))
	for _, n := range []string{"LANG", "SSH_AUTH_SOCK", "GPG_KEY_ID", "TOKENIZERS_PARALLELISM", "HTTP_PROXY", "KEYBOARD", "PWD", "", "_", "_KEY",
		"PUBLIC_KEY", "GIT_ASKPASS_HELPER", "TOKEN_FILE", "KEY"} {
		assert.False(t, hostconfig.CredentialEnvName(n), n)
	}
	for _, n := range []string{"GITHUB_TOKEN", "api_key", "HF_TOKEN", "DB_PASS", "MYSQL_PWD", "NPM_AUTH", "GOOGLE_APPLICATION_CREDENTIALS", "SLACK_BOT_TOKEN",
		"SECRET_KEY_BASE", "CLIENTSECRET", "OPENAI_KEY", "STRIPE_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN_2"} {
		assert.True(t, hostconfig.CredentialEnvName(n), n)
	}
}

// A bare $NAME in any expanded value (a header, a command argument, a
// snippet default, a notify pattern, an include) is refused at its file,
// line and key, as the -proxy file refuses it, instead of being kept as
// the literal text "$NAME"; the message never quotes the value nor the
// text after the $. $$NAME is a literal $NAME, a $ before anything but a
// name is kept, and snippet bodies (never expanded) keep theirs.
func TestLoad_BareDollarBeforeANameRefused(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `servers:
  web: {url: "https://x.test/mcp", headers: {Authorization: "Bearer $S3CR3T_KEY"}}
  kid: {command: [srv, "--key=pre$_S3CR3Ttail"]}
snippets:
  s: {body: "r = t(x=\"$kept\")", params: {v: {default: "${TOOL}$S3CR3Tz"}}}
notify: {topics: [{pattern: "notes$S3CR3T", file: n.yaml}]}
include: ["$S3CR3T.yaml"]
instructions:
  ok: "costs $$5, $$HOME, $5, a lone $"
`})
	_, err := load(t, dir, "c.yaml", map[string]string{"TOOL": "t", "S3CR3T_KEY": "k-value"})
	want := "a bare $ before a name is not expanded: write ${NAME} to expand, or $$ for a literal $ (value not shown)"
	assert.ElementsMatch(t, []string{
		"c.yaml:7: include[0]: " + want,
		"c.yaml:2: servers.web.headers.Authorization: " + want,
		"c.yaml:3: servers.kid.command[1]: " + want,
		"c.yaml:5: snippets.s.params.v.default: " + want,
		"c.yaml:6: notify.topics[0].pattern: " + want,
	}, problemTexts(t, dir, err))
	assert.NotContains(t, err.Error(), "S3CR3T")
	assert.NotContains(t, err.Error(), "k-value")

	dir = writeFiles(t, map[string]string{"c.yaml": `snippets:
  s: {body: "r = t(x=\"$kept\")"}
instructions:
  ok: "costs $$5, $$HOME, $5, a lone $"
`})
	cfg := mustLoad(t, dir, "c.yaml", nil)
	assert.Equal(t, "costs $5, $HOME, $5, a lone $", cfg.Instructions["ok"])
	assert.Equal(t, `r = t(x="$kept")`, cfg.Snippets["s"].Body, "snippet bodies are kept verbatim")
}

// LoadOptions.MaxExpandedValueBytes caps one expanded value in place of
// MaxExpandedValueBytes: a host that raises MaxFileBytes for long values
// raises it too (a 1.5 MiB variable loads under a 2 MiB cap), a lower cap
// refuses a value past it naming the option, and zero keeps 1 MiB.
func TestLoad_ExpandedValueCapIsALoadOption(t *testing.T) {
	big := strings.Repeat("c", 3<<19) // 1.5 MiB
	dir := writeFiles(t, map[string]string{"c.yaml": "instructions: {x: \"${C}\"}\n"})
	path := filepath.Join(dir, "c.yaml")
	lookup := env(map[string]string{"C": big})

	cfg, err := hostconfig.Load(path, hostconfig.LoadOptions{LookupEnv: lookup, MaxFileBytes: 4 << 20, MaxExpandedValueBytes: 2 << 20})
	require.NoError(t, err)
	assert.Len(t, cfg.Instructions["x"], len(big))

	_, err = hostconfig.Load(path, hostconfig.LoadOptions{LookupEnv: lookup, MaxFileBytes: 4 << 20})
	assert.Equal(t, []string{"c.yaml:1: instructions.x: ${C} makes the value longer than 1048576 bytes; expected a value of at most 1048576 bytes once its variables are expanded (hostconfig.MaxExpandedValueBytes)"},
		problemTexts(t, dir, err), "zero keeps the default, whatever MaxFileBytes is")

	_, err = hostconfig.Load(path, hostconfig.LoadOptions{LookupEnv: lookup, MaxExpandedValueBytes: 1000})
	assert.Equal(t, []string{"c.yaml:1: instructions.x: ${C} makes the value longer than 1000 bytes; expected a value of at most 1000 bytes once its variables are expanded (the MaxExpandedValueBytes of hostconfig.LoadOptions or hostconfig.Expander)"},
		problemTexts(t, dir, err))
}

// A snippet's name follows the snippet package's one rule
// (snippet.CheckName): 1 to 120 characters from [A-Za-z0-9_.-], the names
// whose tool snippet.{name} the registry accepts. A name with a dot or of
// 65 to 120 characters, which the snippet package took and the file
// refused, loads; 121 characters do not, the problem naming the snippet
// and what is allowed.
func TestLoad_SnippetNamesFollowTheSnippetPackageRule(t *testing.T) {
	long := strings.Repeat("n", snippet.MaxNameLen)
	dir := writeFiles(t, map[string]string{"c.yaml": "snippets:\n  brv.research: {body: \"r = t()\"}\n  " + long + ": {body: \"r = t()\"}\n"})
	cfg := mustLoad(t, dir, "c.yaml", nil)
	assert.Contains(t, cfg.Snippets, "brv.research")
	assert.Contains(t, cfg.Snippets, long)
	for name := range cfg.Snippets {
		_, err := snippet.Parse(name, snippet.Definition{Body: "r = t()"})
		assert.NoError(t, err, "the snippet package takes every name the file does")
	}

	dir = writeFiles(t, map[string]string{"c.yaml": "snippets:\n  " + long + "x: {body: \"r = t()\"}\n"})
	_, err := load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{fmt.Sprintf(`c.yaml:2: snippets.%sx: snippet "%sx": the name must be 1 to 120 characters from [A-Za-z0-9_.-] (the snippet is the tool snippet.{name})`, long, long)},
		problemTexts(t, dir, err))
}

// notify.max_file_bytes caps each topic's file: a whole number of bytes
// from 1 to 1 TiB, absent meaning the ot pack's default.
func TestLoad_NotifyMaxFileBytes(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.yaml": "notify: {topics: [{pattern: a, file: a.yaml}], max_file_bytes: 4096}\n",
		"b.yaml": "notify: {topics: [{pattern: a, file: a.yaml}]}\n",
		"c.yaml": "notify: {max_file_bytes: 0}\n",
		"d.yaml": "notify: {max_file_bytes: 2TiB}\n",
	})
	assert.Equal(t, int64(4096), mustLoad(t, dir, "a.yaml", nil).Notify.MaxFileBytes)
	assert.Equal(t, int64(0), mustLoad(t, dir, "b.yaml", nil).Notify.MaxFileBytes)
	for _, name := range []string{"c.yaml", "d.yaml"} {
		_, err := load(t, dir, name, nil)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), name+":1: notify.max_file_bytes:")
	}
}
