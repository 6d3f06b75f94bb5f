package cataloguehost_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/internal/testclock"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/cataloguehost"
)

// label draws a slug (dot allowed for versions): letters of several
// scripts, digits, dashes, and characters that look like escapes.
func label(dot bool) *rapid.Generator[string] {
	chars := []rune("ae9-é語٣")
	if dot {
		chars = append(chars, '.')
	}
	return rapid.Custom(func(t *rapid.T) string {
		rs := rapid.SliceOfN(rapid.SampledFrom(chars), 1, 4).Draw(t, "runes")
		return string(rs)
	})
}

// Different <bundle slug, tool slug, version> triples never share a
// plain name, and every name is a valid MCP name when short enough.
func TestToolName_InjectiveAndValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type triple struct{ b, s, v string }
		a := triple{label(false).Draw(t, "b1"), label(false).Draw(t, "s1"), label(true).Draw(t, "v1")}
		b := triple{label(false).Draw(t, "b2"), label(false).Draw(t, "s2"), label(true).Draw(t, "v2")}
		for _, x := range []triple{a, b} {
			if catalogue.ValidateSlug(x.b) != nil || catalogue.ValidateSlug(x.s) != nil || catalogue.ValidateVersion(x.v) != nil {
				t.Skip("not a valid slug or version")
			}
		}
		na := cataloguehost.ToolName(a.b, a.s, a.v)
		nb := cataloguehost.ToolName(b.b, b.s, b.v)
		if (na == nb) != (a == b) {
			t.Fatalf("%v and %v both named %q", a, b, na)
		}
		if len(na) <= registry.MaxNameLen && !registry.ValidName(na) {
			t.Fatalf("%q is not a valid MCP name", na)
		}
	})
}

// The plain name of a shared bundle slug stays with the bundle that has
// held the slug longest (the store's SlugSince): a later bundle never
// takes it — not with a client-chosen "older" UUIDv7 (B6 of the audit:
// 1 ms after 1970 took alpha2.adder.1 and renamed the existing tools), not
// as an import carrying an older createdAt and a smaller id, not as an
// older bundle renamed to the slug — and another host on the same store
// names every tool alike.
func TestCatalogue_NamesStayWithTheBundleThatHadTheSlugFirst(t *testing.T) {
	ctx := context.Background()
	clock := testclock.New(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	file, err := catalogue.OpenFileStore(ctx, t.TempDir(), catalogue.FileOptions{Now: clock.Now, Logger: discard, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = file.Close() })
	funcs := cataloguehost.NewFuncs()
	require.NoError(t, registry.AddFunc(funcs, "add", add, registry.ToolOptions{Description: "Adds"}))
	host := func() (*cataloguehost.Catalogue, *registry.Registry) {
		reg := registry.New(registry.Options{})
		cat, err := cataloguehost.New(ctx, cataloguehost.Options{Store: file, Registry: reg, Invoker: &cataloguehost.Dispatcher{Funcs: funcs}, Logger: discard})
		require.NoError(t, err)
		t.Cleanup(func() { _ = cat.Close() })
		return cat, reg
	}
	cat, reg := host()
	w := cat.Store()
	spec, err := funcs.Spec("add", "Add", "")
	require.NoError(t, err)
	put := func(id uuid.UUID, slug string) catalogue.ToolKey {
		t.Helper()
		clock.Advance(time.Second)
		_, _, err := w.PutBundle(ctx, id, catalogue.BundleSpec{Slug: slug, DisplayName: slug, IsEnabled: true})
		require.NoError(t, err)
		key := catalogue.ToolKey{BundleID: id, Slug: "adder", Version: "1"}
		if _, err := w.GetTool(ctx, key); errors.Is(err, catalogue.ErrNotFound) {
			_, err = w.PutTool(ctx, key, spec)
			require.NoError(t, err)
		}
		return key
	}
	nameOf := func(cat *cataloguehost.Catalogue, k catalogue.ToolKey) string {
		t.Helper()
		n, ok := cat.Name(k)
		require.True(t, ok, "%s is served", k.BundleID)
		return n
	}
	older := put(uuid.Must(catalogue.NewID()), "other") // created before the alpha2 below
	first := put(uuid.Must(catalogue.NewID()), "alpha2")
	require.Equal(t, "alpha2.adder.1", nameOf(cat, first))

	// A bundle whose client-chosen UUIDv7 is far older than the first's.
	early := put(uuid.MustParse("00000000-0001-7ed0-81d7-65300bd4c704"), "alpha2")
	assert.Equal(t, "alpha2_65300bd4c704.adder.1", nameOf(cat, early), "the later bundle gets the discriminator")
	assert.Equal(t, "alpha2.adder.1", nameOf(cat, first), "the existing tool keeps its name")

	// An import carrying the first's createdAt and an id smaller still.
	clock.Advance(time.Second)
	b, err := w.GetBundle(ctx, first.BundleID)
	require.NoError(t, err)
	tool, err := w.GetTool(ctx, first)
	require.NoError(t, err)
	b.ID = uuid.MustParse("00000000-0000-7000-8000-000000000abc")
	b.CreatedAt = b.CreatedAt.Add(-24 * time.Hour)
	tool.BundleID = b.ID
	require.NoError(t, w.ImportBundle(ctx, b, []catalogue.Tool{tool}))
	imported := catalogue.ToolKey{BundleID: b.ID, Slug: "adder", Version: "1"}
	assert.Equal(t, "alpha2_000000000abc.adder.1", nameOf(cat, imported))

	// An older bundle given the slug.
	put(older.BundleID, "alpha2")
	assert.Equal(t, "alpha2_"+hex.EncodeToString(older.BundleID[10:])+".adder.1", nameOf(cat, older))
	assert.Equal(t, "alpha2.adder.1", nameOf(cat, first), "still the first's")

	res, err := reg.Invoke(ctx, "alpha2.adder.1", json.RawMessage(`{"a":1,"b":2}`))
	require.NoError(t, err)
	require.True(t, res.Success)
	got, err := w.GetTool(ctx, first)
	require.NoError(t, err)
	assert.EqualValues(t, 1, got.CallCount, "alpha2.adder.1 ran the first bundle's tool")

	// Another host on the same store (or this one restarted) names alike.
	other, _ := host()
	for _, k := range []catalogue.ToolKey{older, first, early, imported} {
		assert.Equal(t, nameOf(cat, k), nameOf(other, k))
	}
}

// Namespace answers, from memory, whether a name is one the catalogue's
// tools take and give up while the host runs — {bundle}.{tool}.{version}
// of a bundle it holds, enabled, disabled or soft-deleted, served now or
// not, undecorated or under the registry's prefix — so that a host's
// configuration may name catalogue tools whatever is switched on
// (hostconfig.Options.Dynamic). A name in no bundle's namespace, or not
// of a tool's shape, is not one.
func TestCatalogue_NamespaceCoversEveryBundlesToolNames(t *testing.T) {
	ctx := context.Background()
	reg := registry.New(registry.Options{Prefix: new("tp")})
	f := newFixture(t, reg) // the built-in bundle "math" serves tp_math.add.1
	web := f.bundle(t, "web")
	off := f.bundle(t, "off")
	_, err := f.w.SetBundleEnabled(ctx, off, false)
	require.NoError(t, err)
	gone := f.bundle(t, "gone")
	_, err = f.w.SoftDeleteBundle(ctx, gone)
	require.NoError(t, err)
	f.bundle(t, "météo")
	later := f.bundle(t, "météo")
	disc := fmt.Sprintf("m_e9_t_e9_o_%x", later[10:])
	long := strings.Repeat("語", 64)
	lb := f.bundle(t, long)
	key := catalogue.ToolKey{BundleID: lb, Slug: "x", Version: "1"}
	_, err = f.w.PutTool(ctx, key, echoSpec("http://127.0.0.1:1/"))
	require.NoError(t, err)
	longName, ok := f.cat.Name(key)
	require.True(t, ok)
	require.Len(t, longName, registry.MaxNameLen, "shortened to fit MCP")

	_, err = f.w.SetToolEnabled(ctx, catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "1"}, false)
	require.NoError(t, err)
	_, served := reg.Lookup("tp_math.add.1")
	require.False(t, served, "switched off")

	for name, part := range map[string]string{
		"math.add.1":                        "math", // switched off: its name stays the catalogue's
		"tp_math.add.1":                     "math",
		"math.sub.7.0":                      "math", // no such tool yet
		"web.echo.1":                        "web",
		"off.x.1":                           "off",
		"tp_gone.x.1":                       "gone",
		"m_e9_t_e9_o.p.1":                   "m_e9_t_e9_o",
		disc + ".p.1":                       disc,
		longName:                            strings.Repeat("_8a9e_", 64), // shortened within the part itself
		strings.TrimPrefix(longName, "tp_"): strings.Repeat("_8a9e_", 64),
	} {
		got, ok := f.cat.Namespace(name)
		assert.True(t, ok, name)
		assert.Equal(t, part, got, name)
	}

	for _, name := range []string{
		"nope.add.1", "tp_nope.add.1", // no such bundle
		"math.add", "math", "math.", "math..1", "math.add.", "tp_math", // not a tool's name
		"tpmath.add.1", "web_0123456789ab.echo.1", // another part
		strings.Repeat("z", registry.MaxNameLen-len("tp_")-17) + "_0123456789abcdef", // shortened, of no bundle
	} {
		_, ok := f.cat.Namespace(name)
		assert.False(t, ok, name)
	}

	// A bundle given another slug takes its namespace with it; a new one
	// has its own at once.
	_, _, err = f.w.PutBundle(ctx, web, catalogue.BundleSpec{Slug: "www", DisplayName: "www", IsEnabled: true})
	require.NoError(t, err)
	_, ok = f.cat.Namespace("web.echo.1")
	assert.False(t, ok)
	_, ok = f.cat.Namespace("www.echo.1")
	assert.True(t, ok)
	f.bundle(t, "fresh")
	_, ok = f.cat.Namespace("fresh.a.1")
	assert.True(t, ok)
}
