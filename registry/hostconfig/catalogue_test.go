package hostconfig_test

import (
	"math"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

func TestLoad_CatalogueKey(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `
catalogue:
  dir: cat
  allowed_hosts: [api.example.test, "api.example.test:8443", "*.example.org"]
  allow_private: true
  secrets: {API_KEY: "${API_KEY}", TOKEN: "${TOKEN:-fallback}"}
`})
	cfg := mustLoad(t, dir, "c.yaml", map[string]string{"API_KEY": "k-123"})
	assert.Equal(t, hostconfig.Catalogue{
		Dir:          filepath.Join(dir, "cat"),
		AllowedHosts: []string{"api.example.test", "api.example.test:8443", "*.example.org"},
		AllowPrivate: true,
		Secrets:      map[string]string{"API_KEY": "k-123", "TOKEN": "fallback"},
	}, cfg.Catalogue)
}

func TestLoad_CatalogueDefaults(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": "catalogue: {}\n"})
	cfg := mustLoad(t, dir, "c.yaml", nil)
	assert.Equal(t, hostconfig.Catalogue{Dir: filepath.Join(dir, "catalogue"), Secrets: map[string]string{}}, cfg.Catalogue,
		"the catalogue lives under the data directory, every public host allowed, private addresses refused, no secrets")
	assert.Equal(t, "/data/catalogue", hostconfig.Default("/data").Catalogue.Dir)
	assert.False(t, hostconfig.Default("/data").Catalogue.AllowPrivate)
}

func TestLoad_CatalogueProblemsNamedWithoutSecrets(t *testing.T) {
	const secret = "sk-live-0123456789"
	dir := writeFiles(t, map[string]string{"c.yaml": `
catalogue:
  dir: ""
  allowed_hosts: ["*.10.0.0.1", "host:99999", ok.example.test]
  allow_private: maybe
  secrets: {"bad-name": x, GOOD: [nested], ALSO: "${SECRET}"}
  colour: blue
`})
	_, err := load(t, dir, "c.yaml", map[string]string{"SECRET": secret})
	require.Error(t, err)
	texts := problemTexts(t, dir, err)
	assert.Len(t, texts, 7, "%v", texts)
	msg := err.Error()
	assert.Contains(t, msg, "catalogue.dir: expected a path, got an empty string")
	assert.Contains(t, msg, `catalogue.allowed_hosts[0]: expected an exact host, host:port or *.suffix, got "*.10.0.0.1"`)
	assert.Contains(t, msg, `catalogue.allowed_hosts[1]: expected an exact host, host:port or *.suffix, got "host:99999"`)
	assert.Contains(t, msg, "catalogue.allow_private: expected true or false")
	assert.Contains(t, msg, `catalogue.secrets.bad-name: expected a secret name`)
	assert.Contains(t, msg, "catalogue.secrets.GOOD: expected a string, got a list")
	assert.Contains(t, msg, "catalogue.colour")
	assert.NotContains(t, msg, secret)
}

func TestLoad_CatalogueListsReplacedMapsMerged(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.yaml": "catalogue: {allowed_hosts: [a.example.test, b.example.test], secrets: {A: one, B: two}}\n",
		"c.yaml":    "include: base.yaml\ncatalogue: {allowed_hosts: [c.example.test], secrets: {B: three}}\n",
	})
	cfg := mustLoad(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{"c.example.test"}, cfg.Catalogue.AllowedHosts, "a later list replaces an earlier one")
	assert.Equal(t, map[string]string{"A": "one", "B": "three"}, cfg.Catalogue.Secrets, "secrets merge key by key")
}

// transcript: configures the transcript pack; the key comes from the
// environment and never appears in a problem; bad values are named.
func TestLoad_TranscriptKey(t *testing.T) {
	t.Setenv("TR_KEY", "sk-transcript-secret")
	dir := writeFiles(t, map[string]string{"c.yaml": "transcript:\n  base_url: http://127.0.0.1:4000\n  api_key: ${TR_KEY}\n  model: cleaner\n  context_tokens: 4096\n  timeout: 30s\n"})
	cfg, err := hostconfig.Load(filepath.Join(dir, "c.yaml"), hostconfig.LoadOptions{})
	require.NoError(t, err)
	got := cfg.Transcript
	assertSecret(t, "sk-transcript-secret", got.APIKey, "transcript.api_key passed through")
	assertSecrets(t, []string{"sk-transcript-secret"}, got.Secrets, "transcript secrets")
	got.APIKey, got.Secrets = "", nil // compared above without printing them
	assert.Equal(t, hostconfig.Transcript{BaseURL: "http://127.0.0.1:4000", Model: "cleaner", ContextTokens: 4096, Timeout: 30 * time.Second}, got)

	dir = writeFiles(t, map[string]string{"c.yaml": "transcript:\n  base_url: ftp://x\n  api_key: ${TR_KEY}\n  model: ''\n  context_tokens: 10\n  timeout: soon\n  temperature: 1\n"})
	_, err = hostconfig.Load(filepath.Join(dir, "c.yaml"), hostconfig.LoadOptions{})
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{"transcript.base_url: expected an http or https URL", "transcript.model: expected a model name", "transcript.context_tokens", "transcript.timeout", `transcript.temperature: unknown key "temperature"`} {
		assert.Contains(t, msg, want)
	}
	assert.NotContains(t, msg, "sk-transcript-secret")
}

// mlx: configures the mlx pack: the command template and the models as
// lists (an included file's list is replaced, not appended to), the
// start timeout as a duration; bad values are named.
func TestLoad_MLXKey(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.yaml": "mlx:\n  models: [a, b]\n  start_timeout: 2m\n",
		"c.yaml":    "include: [base.yaml]\nmlx:\n  command: [\"${MLX_BIN}\", --model, \"{model}\", --port, \"{port}\"]\n  models: [mlx-community/Qwen3-4B-4bit]\n",
	})
	cfg := mustLoad(t, dir, "c.yaml", map[string]string{"MLX_BIN": "/opt/mlx/bin/mlx_lm.server"})
	assert.Equal(t, hostconfig.MLX{
		Command:      []string{"/opt/mlx/bin/mlx_lm.server", "--model", "{model}", "--port", "{port}"},
		Models:       []string{"mlx-community/Qwen3-4B-4bit"},
		StartTimeout: 2 * time.Minute,
	}, cfg.MLX)

	dir = writeFiles(t, map[string]string{"c.yaml": "mlx:\n  command: mlx_lm.server --model {model}\n  models: [ok, '']\n  start_timeout: soon\n  port: 8100\n"})
	_, err := hostconfig.Load(filepath.Join(dir, "c.yaml"), hostconfig.LoadOptions{})
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{"mlx.command: expected a list of strings", "mlx.models[1]: expected a non-empty string", "mlx.start_timeout", `mlx.port: unknown key "port"`} {
		assert.Contains(t, msg, want)
	}
}

// search_web: and web_fetch: configure the web pack; the key comes from
// the environment and never appears in a problem; bad values are named;
// max_redirects defaults to 10 and 0 means none.
func TestLoad_WebKeys(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": "search_web:\n  base_url: http://127.0.0.1:4000\n  api_key: ${SW_KEY}\n  search_tool: tavily-search\n  timeout: 20s\nweb_fetch:\n  allow_private: true\n  max_bytes: 2097152\n  max_redirects: 0\n  timeout: 15s\n  max_concurrent_extractions: 4\n"})
	cfg := mustLoad(t, dir, "c.yaml", map[string]string{"SW_KEY": "sk-search-secret"})
	got := cfg.SearchWeb
	assertSecret(t, "sk-search-secret", got.APIKey, "search_web.api_key passed through")
	assertSecrets(t, []string{"sk-search-secret"}, got.Secrets, "search_web secrets")
	got.APIKey, got.Secrets = "", nil // compared above without printing them
	assert.Equal(t, hostconfig.SearchWeb{BaseURL: "http://127.0.0.1:4000", SearchTool: "tavily-search", Timeout: 20 * time.Second}, got)
	assert.Equal(t, hostconfig.WebFetch{AllowPrivate: true, MaxBytes: 2 << 20, MaxRedirects: 0, Timeout: 15 * time.Second, MaxConcurrentExtractions: 4}, cfg.WebFetch)

	dir = writeFiles(t, map[string]string{"c.yaml": "search_web: {}\n"})
	assert.Equal(t, hostconfig.DefaultMaxRedirects, mustLoad(t, dir, "c.yaml", nil).WebFetch.MaxRedirects)

	dir = writeFiles(t, map[string]string{"c.yaml": "search_web:\n  base_url: ftp://x\n  api_key: ${SW_KEY}\n  search_tool: a/b\n  engine: x\nweb_fetch:\n  allow_private: maybe\n  max_bytes: 10\n  max_redirects: -1\n  timeout: soon\n  max_concurrent_extractions: 0\n"})
	_, err := load(t, dir, "c.yaml", map[string]string{"SW_KEY": "sk-search-secret"})
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{"search_web.base_url: expected an http or https URL", "search_web.search_tool: expected the gateway's search tool name", `search_web.engine: unknown key "engine"`, "web_fetch.allow_private", "web_fetch.max_bytes", "web_fetch.max_redirects", "web_fetch.timeout",
		"web_fetch.max_concurrent_extractions: expected a whole number from 1 to 1024"} {
		assert.Contains(t, msg, want)
	}
	assert.NotContains(t, msg, "sk-search-secret")
}

// allow_addrs (catalogue: and web_fetch:) admits chosen non-public
// addresses: prefixes as written, a single address as its /32 or /128;
// anything else, and a prefix with bits past its length, is named with
// what was expected.
func TestLoad_AllowAddrs(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `
catalogue: {allow_addrs: [10.1.0.0/16, 10.9.8.7, "fd00::/8"]}
web_fetch: {allow_addrs: ["127.0.0.1/32", "::1"]}
`})
	cfg := mustLoad(t, dir, "c.yaml", nil)
	assert.Equal(t, []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("10.9.8.7/32"), netip.MustParsePrefix("fd00::/8")}, cfg.Catalogue.AllowAddrs)
	assert.Equal(t, []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}, cfg.WebFetch.AllowAddrs)
	assert.False(t, cfg.WebFetch.AllowPrivate)

	dir = writeFiles(t, map[string]string{"c.yaml": `
catalogue: {allow_addrs: 10.0.0.0/8}
web_fetch: {allow_addrs: [10.1.2.3/8, intranet.local, "10.0.0.0/33", "fe80::1%eth0", 7, []]}
`})
	_, err := load(t, dir, "c.yaml", nil)
	require.Error(t, err)
	texts := problemTexts(t, dir, err)
	assert.Equal(t, []string{
		`c.yaml:2: catalogue.allow_addrs: expected a list of addresses or prefixes (10.1.2.3, 10.1.0.0/16, fd00::/8), got "10.0.0.0/8"`,
		`c.yaml:3: web_fetch.allow_addrs[0]: "10.1.2.3/8" has address bits set past its /8; expected 10.0.0.0/8 (or the single address 10.1.2.3)`,
		`c.yaml:3: web_fetch.allow_addrs[1]: expected an IP address or a prefix such as 10.1.0.0/16, got "intranet.local"`,
		`c.yaml:3: web_fetch.allow_addrs[2]: expected an IP address or a prefix such as 10.1.0.0/16, got "10.0.0.0/33"`,
		`c.yaml:3: web_fetch.allow_addrs[3]: expected an IP address or a prefix such as 10.1.0.0/16, got "fe80::1%eth0"`,
		`c.yaml:3: web_fetch.allow_addrs[4]: expected an IP address or a prefix such as 10.1.0.0/16, got "7"`,
		"c.yaml:3: web_fetch.allow_addrs[5]: expected a string, got an empty list",
	}, texts)
}

// catalogue.dsn moves the catalogue to PostgreSQL: the DSN comes from the
// environment and never appears in a problem; schema, max_conns and
// statement_timeout are checked and named.
func TestLoad_CatalogueDSN(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": "catalogue:\n  dsn: ${CAT_DSN}\n  schema: tools_prod\n  max_conns: 8\n  statement_timeout: 5s\n"})
	cfg := mustLoad(t, dir, "c.yaml", map[string]string{"CAT_DSN": "postgres://cat:pw-secret@db:5432/cat"})
	assert.Equal(t, "postgres://cat:pw-secret@db:5432/cat", cfg.Catalogue.DSN)
	assert.Equal(t, "tools_prod", cfg.Catalogue.Schema)
	assert.Equal(t, 8, cfg.Catalogue.MaxConns)
	assert.Equal(t, 5*time.Second, cfg.Catalogue.StatementTimeout)

	dir = writeFiles(t, map[string]string{"c.yaml": "catalogue:\n  dsn: ${CAT_DSN}\n  schema: Bad-Name\n  max_conns: 0\n  statement_timeout: soon\n"})
	_, err := load(t, dir, "c.yaml", map[string]string{"CAT_DSN": "mysql-pw-secret"})
	require.Error(t, err)
	for _, want := range []string{"catalogue.dsn: expected a PostgreSQL DSN", "catalogue.schema", "catalogue.max_conns", "catalogue.statement_timeout"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.NotContains(t, err.Error(), "pw-secret")
}

// stats: and output: take the same PostgreSQL keys as catalogue:, each
// section its own database, checked and named the same way.
func TestLoad_StatsAndOutputDSN(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": "stats: {enabled: true, dsn: \"${ST_DSN}\", schema: calls, max_conns: 3}\n" +
		"output: {dsn: \"${OUT_DSN}\", statement_timeout: 2s}\n"})
	cfg := mustLoad(t, dir, "c.yaml", map[string]string{"ST_DSN": "postgres://st:pw-secret@db/st", "OUT_DSN": "host=db user=out password=pw-secret"})
	assert.Equal(t, hostconfig.Postgres{DSN: "postgres://st:pw-secret@db/st", Schema: "calls", MaxConns: 3}, cfg.Stats.Postgres)
	assert.Equal(t, hostconfig.Postgres{DSN: "host=db user=out password=pw-secret", StatementTimeout: 2 * time.Second}, cfg.Output.Postgres)
	assert.Empty(t, cfg.Catalogue.DSN, "each section has its own dsn")
	assert.Equal(t, filepath.Join(dir, "stats"), cfg.Stats.Dir, "dir keeps its default beside a dsn")

	dir = writeFiles(t, map[string]string{"c.yaml": "stats: {dsn: \"${ST_DSN}\", max_conns: -1, schema: pg_stats}\noutput: {dsn: \"${ST_DSN}\", schema: \"x y\"}\n"})
	_, err := load(t, dir, "c.yaml", map[string]string{"ST_DSN": "mysql://pw-secret@db"})
	require.Error(t, err)
	for _, want := range []string{"stats.dsn: expected a PostgreSQL DSN", "stats.max_conns", "stats.schema", "not starting with pg_", "output.dsn: expected a PostgreSQL DSN", "output.schema"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.NotContains(t, err.Error(), "pw-secret")
}

// A dsn whose ${…} expands to the empty string (the variable unset, with
// a :- default of nothing, or set empty) means none: the section keeps
// its data in files, so that one file serves hosts with a database and
// hosts without. A literal empty dsn, or one that is not a DSN, is still
// refused.
func TestLoad_DSNExpandingToNothingMeansNone(t *testing.T) {
	file := "stats: {enabled: true, dsn: \"${STATS_DSN:-}\"}\noutput: {dsn: \"${OUT_DSN:-}\"}\ncatalogue: {dsn: \"${CAT_DSN}\"}\n"
	dir := writeFiles(t, map[string]string{"c.yaml": file})
	cfg := mustLoad(t, dir, "c.yaml", map[string]string{"CAT_DSN": ""})
	assert.Empty(t, cfg.Stats.DSN)
	assert.Empty(t, cfg.Output.DSN)
	assert.Empty(t, cfg.Catalogue.DSN)
	assert.True(t, cfg.Stats.Enabled)
	assert.Equal(t, filepath.Join(dir, "stats"), cfg.Stats.Dir, "records go to stats.dir")

	// The same file in production.
	cfg = mustLoad(t, dir, "c.yaml", map[string]string{"STATS_DSN": "postgres://st:pw@db/st", "OUT_DSN": "host=db", "CAT_DSN": "postgres://db/cat"})
	assert.Equal(t, "postgres://st:pw@db/st", cfg.Stats.DSN)
	assert.Equal(t, "host=db", cfg.Output.DSN)
	assert.Equal(t, "postgres://db/cat", cfg.Catalogue.DSN)

	dir = writeFiles(t, map[string]string{"c.yaml": "stats: {dsn: \"\"}\noutput: {dsn: \"${OUT_DSN:-nothing}\"}\n"})
	_, err := load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{
		`c.yaml:1: stats.dsn: expected a PostgreSQL DSN (postgres://user:password@host:port/db or key=value pairs) written as ${ENV}`,
		`c.yaml:2: output.dsn: expected a PostgreSQL DSN (postgres://user:password@host:port/db or key=value pairs) written as ${ENV}`,
	}, problemTexts(t, dir, err))
}

// PoolSize is max_conns as the stores take it: capped, 0 kept as the
// driver's default.
func TestPostgres_PoolSize(t *testing.T) {
	assert.Equal(t, int32(0), hostconfig.Postgres{}.PoolSize())
	assert.Equal(t, int32(8), hostconfig.Postgres{MaxConns: 8}.PoolSize())
	assert.Equal(t, int32(1<<15), hostconfig.Postgres{MaxConns: min(1<<40, math.MaxInt)}.PoolSize())
}

// search_web.base_url and transcript.base_url that the packs would refuse
// (user information, or no search tool / model with them) are problems
// naming file, line and key, and never quote the URL: neither a value
// from the environment nor a key, password or path written in the file.
func TestLoad_PackBaseURLRefusedWithFileLine(t *testing.T) {
	const envKey, literal = "S3CR3T-from-env", "L1TERAL-in-file"
	dir := writeFiles(t, map[string]string{"c.yaml": `search_web:
  base_url: "http://u:${PW}@127.0.0.1:45799/?key=${WEBKEY}"
  search_tool: s
transcript:
  base_url: "http://u:` + literal + `@127.0.0.1:45799/` + literal + `/v1?key=` + literal + `#` + literal + `"
  model: m
`})
	_, err := load(t, dir, "c.yaml", map[string]string{"PW": envKey, "WEBKEY": envKey})
	assert.Equal(t, []string{
		"c.yaml:2: search_web.base_url: expected a URL without user information (user:password@); write the key as api_key (value not shown)",
		"c.yaml:5: transcript.base_url: expected a URL without user information (user:password@); write the key as api_key (value not shown)",
	}, problemTexts(t, dir, err))
	assert.NotContains(t, err.Error(), envKey)
	assert.NotContains(t, err.Error(), literal)

	dir = writeFiles(t, map[string]string{"c.yaml": "search_web:\n  base_url: \"http://127.0.0.1:45799/?key=" + literal + "\"\ntranscript:\n  base_url: http://127.0.0.1:4000\n  model: null\n"})
	_, err = load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{
		"c.yaml:2: search_web.search_tool: expected the gateway's search tool name (for example tavily-search) with base_url, got none",
		"c.yaml:4: transcript.model: expected a model name with base_url, got none",
	}, problemTexts(t, dir, err))
	assert.NotContains(t, err.Error(), literal)

	dir = writeFiles(t, map[string]string{"c.yaml": "search_web: {base_url: \"ftp://h/?key=" + literal + "\", search_tool: s}\ntranscript: {base_url: \"http://%zz/?key=" + literal + "\", model: m}\n"})
	_, err = load(t, dir, "c.yaml", nil)
	assert.Equal(t, []string{
		"c.yaml:1: search_web.base_url: expected an http or https URL (value not shown)",
		"c.yaml:2: transcript.base_url: expected an absolute http or https URL; it does not parse (value not shown)",
	}, problemTexts(t, dir, err))
}

// The values the environment gives the ${VAR}s of transcript's and
// search_web's base_url and api_key are noted in their Secrets (a token in
// the URL's path or query), for the packs to redact; other keys' values
// (the model) and defaults written in the file are not.
func TestLoad_PackURLSecretsNoted(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.yaml": "search_web: {api_key: \"${WEBKEY}\"}\n",
		"c.yaml": `include: [base.yaml]
transcript: {base_url: "${SCHEME}://${HOST}:${PORT}/${PW}/v1?key=${PW}", api_key: "${PW}X", model: "${MODEL}"}
search_web: {base_url: "http://127.0.0.1:45799/${SEG:-v0}/${TOK}?key=${WEBKEY}", search_tool: s}
`})
	cfg := mustLoad(t, dir, "c.yaml", map[string]string{"PW": "S3CR3T-pw", "MODEL": "cleaner", "TOK": "S3CR3T-tok", "WEBKEY": "S3CR3T-web",
		"SCHEME": "http", "HOST": "whisper", "PORT": "8080"})
	assertSecrets(t, []string{"S3CR3T-pw"}, cfg.Transcript.Secrets, "a scheme, host or port from ${VAR} is no secret: it would garble every message naming the endpoint")
	assertSecret(t, "S3CR3T-pwX", cfg.Transcript.APIKey, "transcript.api_key")
	assertSecrets(t, []string{"S3CR3T-tok", "S3CR3T-web"}, cfg.SearchWeb.Secrets, "search_web secrets")

	// A value reaching past the host (the whole URL, a host with its path,
	// a port with the path) or in the fragment is a secret.
	for base, want := range map[string]string{
		"${URL}":                          "https://api.example.com/S3CR3T-tok/v1",
		"https://${HP}":                   "api.example.com/S3CR3T-tok",
		"https://api.example.com${REST}":  ":8443/S3CR3T-tok",
		"https://api.example.com/v1#${F}": "%41S3CR3T",
	} {
		dir := writeFiles(t, map[string]string{"c.yaml": "transcript: {base_url: \"" + base + "\", model: m}\n"})
		cfg := mustLoad(t, dir, "c.yaml", map[string]string{"URL": want, "HP": want, "REST": want, "F": want})
		assertSecrets(t, []string{want}, cfg.Transcript.Secrets, base)
	}
}

// An allowed_hosts entry with user information (user:password@host) is
// refused without quoting it: neither the entry nor the host checker's
// reason (which quoted everything after the ':' as a "port") shows the
// password.
func TestLoad_AllowedHostUserInfoRefusedUnquoted(t *testing.T) {
	dir := writeFiles(t, map[string]string{"c.yaml": `catalogue:
  allowed_hosts: ["user:S3CR3T-pw@api.example.test", "S3CR3T-user@api.example.test", ok.example.test]
`})
	_, err := load(t, dir, "c.yaml", nil)
	want := "expected an exact host, host:port or *.suffix without user information (user:password@); an http tool's credentials go in catalogue.secrets (value not shown)"
	assert.Equal(t, []string{
		"c.yaml:2: catalogue.allowed_hosts[0]: " + want,
		"c.yaml:2: catalogue.allowed_hosts[1]: " + want,
	}, problemTexts(t, dir, err))
	assert.NotContains(t, err.Error(), "S3CR3T")
}
