package cataloguehost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/cataloguehost"
	"github.com/toolpack-go/toolpack/registry/catalogue/httptool"
	"github.com/toolpack-go/toolpack/result"
)

const testTimeout = 10 * time.Second

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

type AddArgs struct {
	A float64 `json:"a" validate:"required"`
	B float64 `json:"b" validate:"required"`
}

func add(_ context.Context, a AddArgs) (result.Result[float64], error) {
	return result.Ok(a.A + a.B), nil
}

type fixture struct {
	dir     string
	reg     *registry.Registry
	funcs   *cataloguehost.Funcs
	file    *catalogue.FileStore
	store   *catalogue.BuiltInStore
	cat     *cataloguehost.Catalogue
	w       catalogue.Store // cat.Store()
	logs    *testlog.Buffer
	builtin uuid.UUID
}

func newFixture(t *testing.T, reg *registry.Registry) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{dir: t.TempDir(), reg: reg, funcs: cataloguehost.NewFuncs(), logs: &testlog.Buffer{}}
	if f.reg == nil {
		f.reg = registry.New(registry.Options{})
	}
	require.NoError(t, registry.AddFunc(f.funcs, "add", add, registry.ToolOptions{Description: "Adds a and b"}))
	var err error
	f.file, err = catalogue.OpenFileStore(ctx, f.dir, catalogue.FileOptions{Logger: discard, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	f.builtin, err = catalogue.NewID()
	require.NoError(t, err)
	spec, err := f.funcs.Spec("add", "Add", "", "math")
	require.NoError(t, err)
	f.store, err = catalogue.WithBuiltIns(ctx, f.file, catalogue.BuiltInOptions{Dir: f.dir, HasFunc: f.funcs.Has, Logger: discard,
		Bundles: []catalogue.BuiltInBundle{{ID: f.builtin, Spec: catalogue.BundleSpec{Slug: "math", DisplayName: "Math", IsEnabled: true},
			Tools: []catalogue.BuiltInTool{{Slug: "add", Version: "1", Spec: spec}}}}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.store.Close() })
	inv, err := httptool.New(httptool.Options{AllowAddrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Secrets: map[string]string{"TOKEN": "tok-secret-123"}, Logger: discard})
	require.NoError(t, err)
	t.Cleanup(inv.Close)
	f.cat, err = cataloguehost.New(ctx, cataloguehost.Options{Store: f.store, Registry: f.reg,
		Invoker: &cataloguehost.Dispatcher{Funcs: f.funcs, HTTP: inv}, Logger: slog.New(slog.NewTextHandler(f.logs, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.cat.Close() })
	f.w = f.cat.Store()
	return f
}

func (f *fixture) bundle(t *testing.T, slug string) uuid.UUID {
	t.Helper()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = f.w.PutBundle(context.Background(), id, catalogue.BundleSpec{Slug: slug, DisplayName: slug, IsEnabled: true})
	require.NoError(t, err)
	return id
}

func echoSpec(url string) catalogue.ToolSpec {
	return catalogue.ToolSpec{DisplayName: "Echo", Description: "echoes q", Tags: []string{"demo"}, IsEnabled: true, Type: catalogue.TypeHTTP,
		ArgSchema:    json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","minLength":2}},"required":["q"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","required":["echo"]}`),
		HTTPImpl: &catalogue.HTTPImpl{Request: catalogue.HTTPRequest{Method: "GET", URLTemplate: url,
			Query: map[string]string{"q": "${q}"}, Auth: &catalogue.HTTPAuth{Type: catalogue.AuthBearer, Token: "${TOKEN}"}},
			Response: catalogue.HTTPResponse{Encoding: "json"}}}
}

func echoServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-secret-123" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"echo": r.URL.Query().Get("q")})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func names(reg *registry.Registry, pack string) []string {
	var out []string
	for _, t := range reg.List() {
		if t.Pack == pack {
			out = append(out, t.Name)
		}
	}
	return out
}

func TestCatalogue_EnabledToolsAreRegistryTools(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	srv := echoServer(t)
	web := f.bundle(t, "web")
	_, err := f.w.PutTool(ctx, catalogue.ToolKey{BundleID: web, Slug: "echo", Version: "1.0"}, echoSpec(srv.URL+"/echo"))
	require.NoError(t, err)

	assert.Equal(t, []string{"math.add.1", "web.echo.1.0"}, names(f.reg, "catalogue"))
	tool, ok := f.reg.Lookup("web.echo.1.0")
	require.True(t, ok)
	assert.Equal(t, "Echo", tool.Title)
	assert.Equal(t, "echoes q", tool.Description)
	assert.JSONEq(t, string(echoSpec("").ArgSchema), string(tool.InputSchema))
	require.NotNil(t, tool.Annotations.ReadOnly)
	assert.True(t, *tool.Annotations.ReadOnly, "a GET tool is read-only")

	res, err := f.reg.Invoke(ctx, "web.echo.1.0", json.RawMessage(`{"q":"hello"}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, map[string]any{"echo": "hello"}, res.Value)

	res, err = f.reg.Invoke(ctx, "math.add.1", json.RawMessage(`{"a":2,"b":3}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.EqualValues(t, 5, res.Value, "a built-in go tool runs its registered function")

	name, ok := f.cat.Name(catalogue.ToolKey{BundleID: web, Slug: "echo", Version: "1.0"})
	assert.True(t, ok)
	assert.Equal(t, "web.echo.1.0", name)
}

func TestCatalogue_ArgumentsValidatedAgainstArgSchema(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	web := f.bundle(t, "web")
	spec := echoSpec("http://127.0.0.1:1/")
	spec.ArgSchema = json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","minLength":2},"n":{"type":"integer"}},"required":["q"],"additionalProperties":false}`)
	_, err := f.w.PutTool(ctx, catalogue.ToolKey{BundleID: web, Slug: "echo", Version: "1"}, spec)
	require.NoError(t, err)
	for _, tc := range []struct {
		args   string
		fields []string
	}{
		{`{"q":"x"}`, []string{"q"}},
		{`{}`, []string{"q"}},
		{`{"q":"x","n":"two","extra":1}`, []string{"q", "n", "extra"}},
	} {
		res, err := f.reg.Invoke(ctx, "web.echo.1", json.RawMessage(tc.args))
		require.NoError(t, err, tc.args)
		require.False(t, res.Success, tc.args)
		assert.Equal(t, result.ValidationError, res.ErrorType, tc.args)
		ve, ok := res.ErrorData.(*args.ValidationError)
		if !ok {
			var fe []args.FieldError
			b, _ := json.Marshal(res.ErrorData)
			require.NoError(t, json.Unmarshal(b, &fe), "%s: %T", tc.args, res.ErrorData)
			ve = &args.ValidationError{Errors: fe}
		}
		var got []string
		for _, e := range ve.Errors {
			got = append(got, e.Field)
			assert.NotEmpty(t, e.Message)
		}
		assert.ElementsMatch(t, tc.fields, got, "every violation listed: %s", tc.args)
	}
}

// Arguments holding a number past the validator's bounds are a
// validation failure naming the field, not an internal error: the
// validator alone panicked on 1e1000001 against a bound.
func TestCatalogue_HugeNumberArgumentRefused(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	web := f.bundle(t, "web")
	spec := echoSpec("http://127.0.0.1:1/")
	spec.ArgSchema = json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"x":{"type":"number","minimum":0}},"required":["q"]}`)
	_, err := f.w.PutTool(ctx, catalogue.ToolKey{BundleID: web, Slug: "echo", Version: "1"}, spec)
	require.NoError(t, err)
	for _, x := range []string{"1e1000001", "-1e-1000001", "1e401"} {
		res, err := f.reg.Invoke(ctx, "web.echo.1", json.RawMessage(`{"q":"a","x":`+x+`}`))
		require.NoError(t, err, x)
		require.False(t, res.Success, x)
		assert.Equal(t, result.ValidationError, res.ErrorType, x)
		assert.Contains(t, res.Error, "x: expected a number written with at most 400 digits and an exponent between -400 and 400", x)
	}
}

// A tool's argSchema is compiled when the tool is first called (a large
// catalogue starts without compiling schemas nobody uses), once, whatever
// the number of first calls arriving together; every one of them is
// validated.
func TestCatalogue_ArgSchemaCompiledOnFirstCall(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	web := f.bundle(t, "web")
	_, err := f.w.PutTool(ctx, catalogue.ToolKey{BundleID: web, Slug: "echo", Version: "1"}, echoSpec("http://127.0.0.1:1/"))
	require.NoError(t, err)
	var wg sync.WaitGroup
	results := make([]result.Result[any], 32)
	errs := make([]error, len(results))
	for i := range results {
		wg.Go(func() { results[i], errs[i] = f.reg.Invoke(ctx, "web.echo.1", json.RawMessage(`{"q":"x"}`)) })
	}
	wg.Wait()
	for i, res := range results {
		require.NoError(t, errs[i])
		assert.False(t, res.Success)
		assert.Equal(t, result.ValidationError, res.ErrorType, "call %d: q is too short", i)
	}
}

func TestCatalogue_ChangesReachTheRegistryAndMCPClients(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	srv := mcpserver.NewServer(f.reg, mcpserver.Options{Logger: discard})
	changed := make(chan struct{}, 64)
	client := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} }})
	st, ct := sdk.NewInMemoryTransports()
	cctx, cancel := context.WithTimeout(ctx, testTimeout)
	defer cancel()
	ss, err := srv.Connect(cctx, st, nil)
	require.NoError(t, err)
	cs, err := client.Connect(cctx, ct, nil)
	require.NoError(t, err)
	defer func() { _ = cs.Close(); _ = ss.Wait() }()

	listed := func() []string {
		res, err := cs.ListTools(cctx, nil)
		require.NoError(t, err)
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	waitChange := func(what string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(testTimeout):
			t.Fatalf("no list_changed after %s", what)
		}
	}
	drain := func() {
		for {
			select {
			case <-changed:
			case <-time.After(200 * time.Millisecond):
				return
			}
		}
	}
	assert.Equal(t, []string{"math.add.1"}, listed())

	web := f.bundle(t, "web")
	key := catalogue.ToolKey{BundleID: web, Slug: "echo", Version: "1"}
	_, err = f.w.PutTool(ctx, key, echoSpec("http://127.0.0.1:1/"))
	require.NoError(t, err)
	waitChange("put")
	assert.Equal(t, []string{"math.add.1", "web.echo.1"}, listed())
	drain()

	_, err = f.w.SetToolEnabled(ctx, key, false)
	require.NoError(t, err)
	waitChange("disable")
	assert.Equal(t, []string{"math.add.1"}, listed())
	drain()

	_, err = f.w.SetToolEnabled(ctx, key, true)
	require.NoError(t, err)
	waitChange("enable")
	_, err = f.w.SetBundleEnabled(ctx, web, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"math.add.1"}, names(f.reg, "catalogue"), "a disabled bundle's tools leave")
	_, err = f.w.SetBundleEnabled(ctx, web, true)
	require.NoError(t, err)
	_, _, err = f.w.PutBundle(ctx, web, catalogue.BundleSpec{Slug: "web2", DisplayName: "web", IsEnabled: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"math.add.1", "web2.echo.1"}, names(f.reg, "catalogue"), "renaming a bundle renames its tools")
	require.NoError(t, f.w.DeleteTool(ctx, key))
	assert.Equal(t, []string{"math.add.1"}, names(f.reg, "catalogue"))
	_, err = f.w.SetToolEnabled(ctx, catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "1"}, false)
	require.NoError(t, err)
	assert.Empty(t, names(f.reg, "catalogue"), "switching a built-in off removes it")
	drain()
	assert.Empty(t, listed())
}

func TestCatalogue_NamesCollisionFreeForUnicodeAndSharedSlugs(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	older := f.bundle(t, "météo")
	newer := f.bundle(t, "météo")
	for _, b := range []uuid.UUID{older, newer} {
		_, err := f.w.PutTool(ctx, catalogue.ToolKey{BundleID: b, Slug: "prévision", Version: "1.0"}, echoSpec("http://127.0.0.1:1/"))
		require.NoError(t, err)
	}
	n1, ok := f.cat.Name(catalogue.ToolKey{BundleID: older, Slug: "prévision", Version: "1.0"})
	require.True(t, ok)
	n2, ok := f.cat.Name(catalogue.ToolKey{BundleID: newer, Slug: "prévision", Version: "1.0"})
	require.True(t, ok)
	assert.Equal(t, "m_e9_t_e9_o.pr_e9_vision.1.0", n1, "the oldest bundle keeps the plain name")
	assert.Equal(t, fmt.Sprintf("m_e9_t_e9_o_%x.pr_e9_vision.1.0", newer[10:]), n2)
	assert.True(t, registry.ValidName(n1) && registry.ValidName(n2))

	long := strings.Repeat("語", 64)
	lb := f.bundle(t, long)
	_, err := f.w.PutTool(ctx, catalogue.ToolKey{BundleID: lb, Slug: long, Version: strings.Repeat("9", 64)}, echoSpec("http://127.0.0.1:1/"))
	require.NoError(t, err)
	n3, ok := f.cat.Name(catalogue.ToolKey{BundleID: lb, Slug: long, Version: strings.Repeat("9", 64)})
	require.True(t, ok, "a name too long for MCP is shortened, not dropped")
	assert.Len(t, n3, registry.MaxNameLen)
	assert.True(t, registry.ValidName(n3))
}

func TestCatalogue_NameTakenByAnotherPackLeftOut(t *testing.T) {
	ctx := context.Background()
	reg := registry.New(registry.Options{})
	require.NoError(t, registry.AddFunc(reg, "web.echo.1", add, registry.ToolOptions{Description: "a host tool"}))
	f := newFixture(t, reg)
	web := f.bundle(t, "web")
	_, err := f.w.PutTool(ctx, catalogue.ToolKey{BundleID: web, Slug: "echo", Version: "1"}, echoSpec("http://127.0.0.1:1/"))
	require.NoError(t, err)
	tool, ok := reg.Lookup("web.echo.1")
	require.True(t, ok)
	assert.Equal(t, "a host tool", tool.Description, "the host's tool is not shadowed")
	_, served := f.cat.Name(catalogue.ToolKey{BundleID: web, Slug: "echo", Version: "1"})
	assert.False(t, served)
	assert.Contains(t, f.logs.String(), "left out")
}

func TestCatalogue_RegistryPrefixKeepsNamesWithinMCPLimit(t *testing.T) {
	ctx := context.Background()
	reg := registry.New(registry.Options{Prefix: new("acme")})
	f := newFixture(t, reg)
	long := strings.Repeat("a", 64)
	b := f.bundle(t, long)
	_, err := f.w.PutTool(ctx, catalogue.ToolKey{BundleID: b, Slug: long, Version: "1"}, echoSpec("http://127.0.0.1:1/"))
	require.NoError(t, err)
	n, ok := f.cat.Name(catalogue.ToolKey{BundleID: b, Slug: long, Version: "1"})
	require.True(t, ok)
	assert.True(t, strings.HasPrefix(n, "acme_"))
	assert.LessOrEqual(t, len(n), registry.MaxNameLen)
	_, ok = reg.Lookup(n)
	assert.True(t, ok)
	assert.Contains(t, names(reg, "catalogue"), "acme_math.add.1")
}

func TestCatalogue_CallsCountedInUsageMetrics(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 25; j++ {
				res, err := f.reg.Invoke(ctx, "math.add.1", json.RawMessage(`{"a":1,"b":1}`))
				assert.NoError(t, err)
				assert.True(t, res.Success)
			}
		}()
	}
	wg.Wait()
	tool, err := f.w.GetTool(ctx, catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "1"})
	require.NoError(t, err)
	assert.EqualValues(t, 200, tool.CallCount)
	assert.NotNil(t, tool.LastCalledAt)
}

func TestCatalogue_UnregisteredGoFunctionNotServed(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	b := f.bundle(t, "ops")
	spec, err := f.funcs.Spec("add", "Add", "")
	require.NoError(t, err)
	spec.GoImpl = &catalogue.GoImpl{Func: "restart"}
	_, err = f.w.PutTool(ctx, catalogue.ToolKey{BundleID: b, Slug: "restart", Version: "1"}, spec)
	require.NoError(t, err)
	assert.NotContains(t, names(f.reg, "catalogue"), "ops.restart.1")
	tool, err := f.w.GetTool(ctx, catalogue.ToolKey{BundleID: b, Slug: "restart", Version: "1"})
	require.NoError(t, err)
	assert.False(t, tool.IsEnabled, "reported disabled")
	res, err := f.reg.Invoke(ctx, "ops.restart.1", json.RawMessage(`{"a":1,"b":2}`))
	require.NoError(t, err, "held switched off, not unknown")
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Contains(t, res.Error, `runs the Go function "restart", which this host does not have`,
		"switching it on in the catalogue would not help: the reason says what would")

	require.NoError(t, registry.AddFunc(f.funcs, "restart", add, registry.ToolOptions{Description: "pretend"}))
	require.NoError(t, f.cat.Sync(ctx))
	assert.Contains(t, names(f.reg, "catalogue"), "ops.restart.1", "registering the function serves it at the next sync")
}

func TestCatalogue_ResyncPicksUpOtherProcessesWrites(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	// Another process: its own store on the same directory.
	other, err := catalogue.OpenFileStore(ctx, f.dir, catalogue.FileOptions{Logger: discard, FlushInterval: -1, ReapInterval: -1})
	require.NoError(t, err)
	defer other.Close()
	id, err := catalogue.NewID()
	require.NoError(t, err)
	_, _, err = other.PutBundle(ctx, id, catalogue.BundleSpec{Slug: "remote", DisplayName: "R", IsEnabled: true})
	require.NoError(t, err)
	_, err = other.PutTool(ctx, catalogue.ToolKey{BundleID: id, Slug: "echo", Version: "1"}, echoSpec("http://127.0.0.1:1/"))
	require.NoError(t, err)
	assert.NotContains(t, names(f.reg, "catalogue"), "remote.echo.1")

	reg := registry.New(registry.Options{})
	c2, err := cataloguehost.New(ctx, cataloguehost.Options{Store: f.store, Registry: reg, Invoker: &cataloguehost.Dispatcher{},
		Logger: discard, ResyncInterval: 20 * time.Millisecond})
	require.NoError(t, err)
	defer c2.Close()
	_, err = other.PutTool(ctx, catalogue.ToolKey{BundleID: id, Slug: "echo", Version: "2"}, echoSpec("http://127.0.0.1:1/"))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, ok := reg.Lookup("remote.echo.2")
		return ok
	}, testTimeout, 10*time.Millisecond)
	require.NoError(t, f.cat.Sync(ctx))
	assert.Contains(t, names(f.reg, "catalogue"), "remote.echo.2", "an explicit Sync picks them up too")
}

func TestDispatcher_GoOutputCheckedAgainstOutputSchema(t *testing.T) {
	ctx := context.Background()
	funcs := cataloguehost.NewFuncs()
	require.NoError(t, registry.AddFunc(funcs, "add", add, registry.ToolOptions{Description: "Adds"}))
	d := &cataloguehost.Dispatcher{Funcs: funcs}
	spec, err := funcs.Spec("add", "Add", "")
	require.NoError(t, err)
	spec.OutputSchema = json.RawMessage(`{"type":"string"}`)
	id, _ := catalogue.NewID()
	res, err := d.Invoke(ctx, catalogue.Tool{ID: id, Slug: "add", Version: "1", ToolSpec: spec}, json.RawMessage(`{"a":1,"b":2}`))
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, cataloguehost.ErrTypeOutputMismatch, res.ErrorType)
	assert.Contains(t, res.Error, "(value): type")

	spec.GoImpl.Func = "nope"
	res, err = d.Invoke(ctx, catalogue.Tool{ID: id, Slug: "add", Version: "1", ToolSpec: spec}, json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	res, err = d.Invoke(ctx, catalogue.Tool{ToolSpec: catalogue.ToolSpec{Type: catalogue.TypeHTTP}}, json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.Equal(t, result.Unavailable, res.ErrorType, "no http runner configured")
	res, err = d.Invoke(ctx, catalogue.Tool{ToolSpec: catalogue.ToolSpec{Type: "steps"}}, json.RawMessage(`{}`))
	require.NoError(t, err)
	assert.Equal(t, result.Unavailable, res.ErrorType)
}

func TestNew_RequiresStoreRegistryInvoker(t *testing.T) {
	ctx := context.Background()
	_, err := cataloguehost.New(ctx, cataloguehost.Options{})
	assert.ErrorContains(t, err, "Options.Store")
	f := newFixture(t, nil)
	_, err = cataloguehost.New(ctx, cataloguehost.Options{Store: f.store})
	assert.ErrorContains(t, err, "Options.Registry")
	_, err = cataloguehost.New(ctx, cataloguehost.Options{Store: f.store, Registry: registry.New(registry.Options{})})
	assert.ErrorContains(t, err, "Options.Invoker")
	_, err = cataloguehost.New(ctx, cataloguehost.Options{Store: f.store, Registry: f.reg, Invoker: &cataloguehost.Dispatcher{}})
	assert.ErrorIs(t, err, registry.ErrNameClash, "one catalogue pack per registry")
}

func TestCatalogue_ImportedBundleServedAtOnce(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	id, err := catalogue.NewID()
	require.NoError(t, err)
	tid, err := catalogue.NewID()
	require.NoError(t, err)
	now := time.Now().UTC().Truncate(time.Microsecond)
	b := catalogue.Bundle{ID: id, BundleSpec: catalogue.BundleSpec{Slug: "imported", DisplayName: "I", IsEnabled: true}, CreatedAt: now, ModifiedAt: now}
	tool := catalogue.Tool{ID: tid, BundleID: id, Slug: "echo", Version: "1", ToolSpec: echoSpec("http://127.0.0.1:1/"), CreatedAt: now, ModifiedAt: now}
	require.NoError(t, f.w.ImportBundle(ctx, b, []catalogue.Tool{tool}))
	assert.Contains(t, names(f.reg, "catalogue"), "imported.echo.1")

	b.ID = f.builtin
	assert.ErrorIs(t, f.w.ImportBundle(ctx, b, nil), catalogue.ErrConflict, "a built-in's id is taken")
}

// Catalogue.Invoker (what the catalogue API's invoke route uses) runs a
// tool as the registry's tool: the registry's middleware sees the call,
// as for MCP and REST, and usage is counted once. A tool the registry
// does not serve (its name is taken) runs through the fallback, counted
// once too; without a fallback it is Unavailable.
func TestCatalogue_InvokerRunsThroughTheRegistry(t *testing.T) {
	ctx := context.Background()
	reg := registry.New(registry.Options{})
	var mu sync.Mutex
	var seen []string
	reg.Use(func(next registry.Handler) registry.Handler {
		return func(ctx context.Context, c *registry.Call) (result.Result[any], error) {
			mu.Lock()
			seen = append(seen, c.Tool.Name)
			mu.Unlock()
			return next(ctx, c)
		}
	})
	require.NoError(t, registry.AddFunc(reg, "web.sum.1", add, registry.ToolOptions{Description: "a host tool"}))
	f := newFixture(t, reg)
	inv := f.cat.Invoker(&cataloguehost.Dispatcher{Funcs: f.funcs})
	args := json.RawMessage(`{"a":2,"b":3}`)

	key := catalogue.ToolKey{BundleID: f.builtin, Slug: "add", Version: "1"}
	tool, err := f.w.GetTool(ctx, key)
	require.NoError(t, err)
	res, err := inv.Invoke(ctx, tool, args)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.EqualValues(t, 5, res.Value)
	assert.Equal(t, []string{"math.add.1"}, seen, "the registry's middleware saw the call")
	tool, err = f.w.GetTool(ctx, key)
	require.NoError(t, err)
	assert.EqualValues(t, 1, tool.CallCount, "counted once")

	web := f.bundle(t, "web")
	spec, err := f.funcs.Spec("add", "Sum", "", "web")
	require.NoError(t, err)
	clash := catalogue.ToolKey{BundleID: web, Slug: "sum", Version: "1"}
	_, err = f.w.PutTool(ctx, clash, spec)
	require.NoError(t, err)
	_, served := f.cat.Name(clash)
	require.False(t, served, "web.sum.1 is the host's")
	ct, err := f.w.GetTool(ctx, clash)
	require.NoError(t, err)
	res, err = inv.Invoke(ctx, ct, args)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Len(t, seen, 1, "the fallback runs it directly")
	ct, err = f.w.GetTool(ctx, clash)
	require.NoError(t, err)
	assert.EqualValues(t, 1, ct.CallCount)

	res, err = f.cat.Invoker(nil).Invoke(ctx, ct, args)
	require.NoError(t, err)
	assert.Equal(t, result.Unavailable, res.ErrorType)
}

// A catalogue tool switched off in the catalogue — itself or its bundle —
// is answered as disabled, naming the tool and how to switch it on, over
// registry.Invoke, MCP tools/call and the registry's REST API alike, and
// through an alias; it is not listed but ListAll shows it switched off. A
// name no tool ever had is still an unknown tool.
func TestCatalogue_DisabledToolCallSaysDisabledNotUnknown(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	web := f.bundle(t, "web")
	spec, err := f.funcs.Spec("add", "Sum", "", "web")
	require.NoError(t, err)
	key := catalogue.ToolKey{BundleID: web, Slug: "sum", Version: "1"}
	_, err = f.w.PutTool(ctx, key, spec)
	require.NoError(t, err)
	_, err = f.w.SetToolEnabled(ctx, key, false)
	require.NoError(t, err)
	require.NoError(t, f.reg.SetAliases(map[string]string{"plus": "web.sum.1"}))
	argsJSON := json.RawMessage(`{"a":2,"b":3}`)

	res, err := f.reg.Invoke(ctx, "web.sum.1", argsJSON)
	require.NoError(t, err, "a disabled tool is not an unknown tool")
	assert.False(t, res.Success)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Equal(t, `tool "web.sum.1" is disabled: catalogue tool "sum" version "1" of bundle "web" is switched off in the tools catalogue; `+
		`switch it on there (the admin page's switch, or PATCH the tool version in the catalogue API with {"isEnabled": true})`, res.Error)
	assert.Contains(t, res.Instruction, "how to switch it on")
	viaAlias, err := f.reg.Invoke(ctx, "plus", argsJSON)
	require.NoError(t, err)
	assert.Equal(t, res, viaAlias, "an alias of it answers the same")
	un, ok := f.reg.Unavailable("web.sum.1")
	require.True(t, ok)
	assert.Equal(t, res, un)

	assert.NotContains(t, names(f.reg, "catalogue"), "web.sum.1", "not listed")
	on, exists := f.reg.IsEnabled("web.sum.1")
	assert.True(t, exists)
	assert.False(t, on)
	_, _, found := f.reg.Resolve("web.sum.1")
	assert.True(t, found, "adapters route its calls to Invoke")
	_, err = f.reg.Invoke(ctx, "web.nothing.1", argsJSON)
	require.ErrorIs(t, err, registry.ErrUnknownTool, "a tool that never existed is still unknown")

	// MCP tools/call.
	srv := mcpserver.NewServer(f.reg, mcpserver.Options{Logger: discard})
	cctx, cancel := context.WithTimeout(ctx, testTimeout)
	defer cancel()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(cctx, st, nil)
	require.NoError(t, err)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(cctx, ct, nil)
	require.NoError(t, err)
	defer func() { _ = cs.Close(); _ = ss.Wait() }()
	mcpRes, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: "web.sum.1", Arguments: map[string]any{"a": 2, "b": 3}})
	require.NoError(t, err, "a tool error, not a protocol error")
	assert.True(t, mcpRes.IsError)
	require.NotEmpty(t, mcpRes.Content)
	text, _ := mcpRes.Content[0].(*sdk.TextContent)
	require.NotNil(t, text)
	assert.Contains(t, text.Text, `tool "web.sum.1" is disabled: catalogue tool "sum" version "1" of bundle "web" is switched off`)
	_, err = cs.CallTool(cctx, &sdk.CallToolParams{Name: "web.nothing.1", Arguments: map[string]any{}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown tool "web.nothing.1"`)

	// The registry's REST API.
	api := httptest.NewServer(httpapi.New(f.reg, httpapi.Options{}))
	defer api.Close()
	resp, err := http.Post(api.URL+"/tools/web.sum.1/invoke", "application/json", strings.NewReader(`{"a":2,"b":3}`))
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, string(body))
	assert.Contains(t, string(body), `is disabled: catalogue tool \"sum\" version \"1\" of bundle \"web\" is switched off`)

	// Its bundle switched off instead: the reason names the bundle.
	_, err = f.w.SetToolEnabled(ctx, key, true)
	require.NoError(t, err)
	_, err = f.w.SetBundleEnabled(ctx, web, false)
	require.NoError(t, err)
	res, err = f.reg.Invoke(ctx, "web.sum.1", argsJSON)
	require.NoError(t, err)
	assert.Equal(t, result.Unavailable, res.ErrorType)
	assert.Contains(t, res.Error, `tool "web.sum.1" is disabled: the bundle "web" of catalogue tool "sum" version "1" is switched off in the tools catalogue`)

	// Switched on again, it runs.
	_, err = f.w.SetBundleEnabled(ctx, web, true)
	require.NoError(t, err)
	res, err = f.reg.Invoke(ctx, "plus", argsJSON)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.EqualValues(t, 5, res.Value)
	assert.Contains(t, names(f.reg, "catalogue"), "web.sum.1")
}
