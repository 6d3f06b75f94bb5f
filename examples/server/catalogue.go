package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueadmin"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
	"github.com/toolpack-go/toolpack/registry/catalogue/cataloguehost"
	"github.com/toolpack-go/toolpack/registry/catalogue/httptool"
	"github.com/toolpack-go/toolpack/registry/catalogue/pgstore"
	"github.com/toolpack-go/toolpack/registry/catalogue/searchindex"
	"github.com/toolpack-go/toolpack/registry/catalogue/steptool"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
	"github.com/toolpack-go/toolpack/result"
)

// builtInBundleID is the id of the server's built-in bundle "examples".
var builtInBundleID = uuid.MustParse("01a20a2e-ca02-72e4-83b7-3ccb89a10ff3")

// builtInFuncs are the example pack's read-only functions: go tools may
// name them (goImpl.func), and the built-in bundle "examples" serves them
// — like the example pack, only when MCP_INCLUDE_EXAMPLE_TOOLS is "true".
var builtInFuncs = []string{"echo", "add", "text_stats"}

// catalogueRoutes are the catalogue API's paths under /tools. The
// registry's REST API serves the rest of /tools (GET /tools,
// GET /tools/{name}, POST /tools/{name}/invoke), so a registry tool named
// "bundles", "tools" or "openapi.json" is reachable over MCP only.
var catalogueRoutes = []string{"/tools/bundles", "/tools/bundles/", "/tools/tools", "/tools/tools/", "/tools/openapi.json"}

// reservedToolNames are the registry tool names the catalogue's routes
// shadow on the REST API.
var reservedToolNames = []string{"bundles", "tools", "openapi.json"}

// serverCatalogue is the tools catalogue of the server: its store (files
// under catalogue.dir, with the built-in bundle), the registry pack that
// serves its tools, and the REST API mounted under /tools.
type serverCatalogue struct {
	store *searchindex.Store // over the built-ins over the files
	pg    *pgstore.Store     // the store under it when catalogue.dsn is set
	cat   *cataloguehost.Catalogue
	api   *catalogueapi.Handler
	admin *catalogueadmin.Handler // the tools admin page, at /admin
	http  *swapInvoker
	// stopWatch ends the watch for other servers' changes (the file
	// store's change counter or PostgreSQL's change feed, and built-ins'
	// switches).
	stopWatch func()
}

// swapInvoker is the http-tool runner of the configuration in force: a
// reload that changes catalogue.allowed_hosts, allow_private, allow_addrs
// or secrets replaces it; calls already running finish on the old one.
type swapInvoker struct {
	cur atomic.Pointer[httptool.Invoker]
}

func (s *swapInvoker) Invoke(ctx context.Context, tool catalogue.Tool, args json.RawMessage) (result.Result[any], error) {
	inv := s.cur.Load()
	if inv == nil { // before the first configuration is applied: nothing calls yet
		return result.Failure[any]("http tools run once the configuration is in force", result.Unavailable), nil
	}
	return inv.Invoke(ctx, tool, args)
}

func newHTTPInvoker(c hostconfig.Catalogue, log *slog.Logger) (*httptool.Invoker, error) {
	return httptool.New(httptool.Options{AllowedHosts: slices.Clone(c.AllowedHosts), AllowPrivate: c.AllowPrivate,
		AllowAddrs: slices.Clone(c.AllowAddrs), Secrets: c.Secrets, Logger: log})
}

// catalogueHook applies the catalogue settings of each configuration:
// the destinations and secrets of http tools take effect at once;
// catalogue.dir is read at start only (a change is logged and waits for
// a restart).
func catalogueHook(sc *swapInvoker, log *slog.Logger) hostconfig.Hook {
	return func(_ context.Context, old, cfg *hostconfig.Config) (hostconfig.Step, error) {
		warnDir := func() {
			if old != nil && old.Catalogue.Dir != cfg.Catalogue.Dir {
				log.Warn("catalogue.dir changed; the catalogue stays where it is until the server restarts",
					"serving", old.Catalogue.Dir, "configured", cfg.Catalogue.Dir)
			}
			if old != nil && (old.Catalogue.DSN != cfg.Catalogue.DSN || old.Catalogue.Schema != cfg.Catalogue.Schema || old.Catalogue.MaxConns != cfg.Catalogue.MaxConns ||
				old.Catalogue.StatementTimeout != cfg.Catalogue.StatementTimeout) {
				log.Warn("catalogue.dsn, schema, max_conns or statement_timeout changed; the catalogue keeps its database until the server restarts")
			}
		}
		if old != nil && sameHTTPSettings(old.Catalogue, cfg.Catalogue) {
			// Keep the runner: its compiled tools, connections and OAuth2
			// tokens stay valid.
			return hostconfig.Step{Apply: func(context.Context) error { warnDir(); return nil }}, nil
		}
		inv, err := newHTTPInvoker(cfg.Catalogue, log)
		if err != nil {
			return hostconfig.Step{}, cfg.Errorf("catalogue", "%v", err)
		}
		return hostconfig.Step{
			Apply: func(context.Context) error {
				if prev := sc.cur.Swap(inv); prev != nil {
					prev.Close()
				}
				warnDir()
				return nil
			},
			// A configuration another hook refuses never uses the runner
			// built for it.
			Discard: func() { inv.Close() },
		}, nil
	}
}

// sameHTTPSettings reports whether two configurations give http tools
// the same destinations and secrets.
func sameHTTPSettings(a, b hostconfig.Catalogue) bool {
	return slices.Equal(a.AllowedHosts, b.AllowedHosts) && a.AllowPrivate == b.AllowPrivate &&
		slices.Equal(a.AllowAddrs, b.AllowAddrs) && maps.Equal(a.Secrets, b.Secrets)
}

// startCatalogue opens the catalogue of conf, the first configuration
// (read, and applied just after, so that its aliases are checked against
// the catalogue's tools as on every reload), and serves its tools through
// reg; http tools run with the settings sc holds once the configuration
// is applied. A catalogue.dsn that does not work is reported as
// configError does, at its file and line.
func startCatalogue(ctx context.Context, reg *registry.Registry, conf *hostconfig.Config, sc *swapInvoker, log *slog.Logger) (*serverCatalogue, error) {
	cfg := conf.Catalogue
	funcs := cataloguehost.NewFuncs()
	tools, err := addExampleFuncs(funcs)
	if err != nil {
		return nil, err
	}
	var builtIns []catalogue.BuiltInBundle
	if example.Enabled() {
		builtIns = append(builtIns, catalogue.BuiltInBundle{ID: builtInBundleID, Tools: tools,
			Spec: catalogue.BundleSpec{Slug: "examples", DisplayName: "Examples", IsEnabled: true,
				Description: "Go functions compiled into the example server (read-only but for the enabled switch)."}})
	}
	var file interface {
		catalogue.Store
		catalogue.PageTokenKeeper // the store keeps the page token key
	}
	if cfg.DSN != "" {
		pg, err := pgstore.Open(ctx, cfg.DSN, pgstore.Options{Schema: cfg.Schema, Logger: log, MaxConns: cfg.PoolSize(), StatementTimeout: cfg.StatementTimeout})
		if err != nil {
			return nil, configError(ctx, conf.Errorf("catalogue.dsn", "%w", err))
		}
		file = pg
	} else {
		fs, err := catalogue.OpenFileStore(ctx, cfg.Dir, catalogue.FileOptions{Logger: log})
		if err != nil {
			return nil, fmt.Errorf("catalogue.dir: %w", err)
		}
		file = fs
	}
	// The store keeps the key signing the API's page tokens, so that a
	// token one server returned is accepted by every server sharing the
	// catalogue, and after a restart.
	tokenKey, err := file.PageTokenKey(ctx)
	if err != nil {
		_ = file.Close()
		return nil, fmt.Errorf("catalogue: %w", err)
	}
	store, err := catalogue.WithBuiltIns(ctx, file, catalogue.BuiltInOptions{Dir: cfg.Dir, HasFunc: funcs.Has, Logger: log, Bundles: builtIns})
	if err != nil {
		_ = file.Close()
		return nil, fmt.Errorf("catalogue: %w", err)
	}
	index, err := searchindex.Wrap(ctx, store, searchindex.Options{Logger: log})
	if err != nil {
		_ = store.Close()
		return nil, fmt.Errorf("catalogue search index: %w", err)
	}
	sc2, err := serveCatalogue(ctx, reg, index, funcs, sc, tokenKey, log)
	if err != nil {
		return nil, err
	}
	if pg, ok := file.(*pgstore.Store); ok {
		sc2.pg = pg
	}
	if sc2.stopWatch, err = watchCatalogue(store, index, sc2.cat, log); err != nil {
		return nil, err
	}
	return sc2, nil
}

// watchCatalogue keeps this server in step with the other servers on the
// same catalogue: each change one of them makes (found by the file
// store's change counter, or PostgreSQL's change feed; after a lost
// connection, a full resync), and each switch of a built-in made by a
// server sharing catalogue.dir, re-reads the search index and the
// registry's catalogue tools, and MCP clients get list_changed. A failed
// re-read is tried again until it succeeds. It returns the function that
// stops it.
func watchCatalogue(w catalogue.Watcher, index *searchindex.Store, cat *cataloguehost.Catalogue, log *slog.Logger) (func(), error) {
	return cataloguehost.Follow(context.Background(), w, cataloguehost.FollowOptions{Logger: log},
		cataloguehost.Reader{Name: "the search index", All: index.Resync, Bundles: index.ResyncBundles},
		cat.Reader())
}

// addExampleFuncs registers the example pack's read-only functions
// (builtInFuncs) with funcs, so that go tools may name them
// (goImpl.func "add", say), and returns their built-in tool
// definitions.
func addExampleFuncs(funcs *cataloguehost.Funcs) ([]catalogue.BuiltInTool, error) {
	p, err := example.New()
	if err != nil {
		return nil, err
	}
	var tools []catalogue.BuiltInTool
	for _, t := range p.Tools {
		if !slices.Contains(builtInFuncs, t.Name) {
			continue
		}
		if err := funcs.Add(t); err != nil {
			return nil, err
		}
		spec, err := funcs.Spec(t.Name, t.Title, "", "example")
		if err != nil {
			return nil, err
		}
		tools = append(tools, catalogue.BuiltInTool{Slug: slugOf(t.Name), Version: "1", Spec: spec})
	}
	return tools, nil
}

// serveCatalogue serves store's tools through reg and builds the API,
// whose page tokens tokenKey signs (the store's: see
// catalogue.PageTokenKeeper).
func serveCatalogue(ctx context.Context, reg *registry.Registry, store *searchindex.Store, funcs *cataloguehost.Funcs, sc *swapInvoker, tokenKey []byte, log *slog.Logger) (*serverCatalogue, error) {
	steps, err := steptool.New(steptool.Options{Tools: reg, Logger: log})
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	disp := &cataloguehost.Dispatcher{Funcs: funcs, HTTP: sc, Types: map[catalogue.ToolType]cataloguehost.Invoker{catalogue.TypeSteps: steps}}
	cat, err := cataloguehost.New(ctx, cataloguehost.Options{Store: store, Registry: reg, Invoker: disp, Logger: log})
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	// The API's invoke route runs a tool as the registry's tool: through
	// the same middleware (statistics, logging, telemetry) as MCP and REST.
	api, err := catalogueapi.New(catalogueapi.Options{Store: cat.Store(), Invoker: cat.Invoker(disp), InvokerRecordsUsage: true, Searcher: store, Logger: log,
		PageTokenKey: tokenKey})
	if err != nil {
		_ = cat.Close()
		_ = store.Close()
		return nil, err
	}
	for _, n := range reservedToolNames {
		if _, exists := reg.IsEnabled(n); exists {
			log.Warn("a registry tool's name is a catalogue route: it is not reachable on the REST API (use MCP)", "tool", n)
		}
	}
	admin, err := catalogueadmin.New(catalogueadmin.Options{Store: cat.Store(), API: api, Logger: log, Base: "/admin"})
	if err != nil {
		_ = cat.Close()
		_ = store.Close()
		return nil, err
	}
	return &serverCatalogue{store: store, cat: cat, api: api, admin: admin, http: sc}, nil
}

// slugOf turns a Go function name into a catalogue slug (underscores
// become dashes).
func slugOf(name string) string {
	b := []byte(name)
	for i, c := range b {
		if c == '_' {
			b[i] = '-'
		}
	}
	return string(b)
}

// mount serves the catalogue API under /tools and the tools admin page
// under /admin on mux, behind auth when given.
func (c *serverCatalogue) mount(mux *http.ServeMux, auth func(http.Handler) http.Handler) {
	var h http.Handler = http.StripPrefix("/tools", c.api)
	if auth != nil {
		h = auth(h)
	}
	for _, p := range catalogueRoutes {
		mux.Handle(p, h)
	}
	var adm http.Handler = http.StripPrefix("/admin", c.admin)
	if auth != nil {
		adm = auth(adm)
	}
	mux.Handle("/admin/", adm)
}

// Close stops the catalogue and writes its buffered usage counts.
func (c *serverCatalogue) Close() error {
	if c.stopWatch != nil {
		c.stopWatch()
	}
	err := errors.Join(c.cat.Close(), c.store.Close())
	if inv := c.http.cur.Load(); inv != nil {
		inv.Close()
	}
	return err
}
