package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/internal/pgpool"
	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/cataloguehost"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
	"github.com/toolpack-go/toolpack/registry/results"
	"github.com/toolpack-go/toolpack/registry/stats"
)

// dataDir is where the default directories of a configuration without
// -config go (the user cache directory, else the temporary one); with
// -config they are beside the file.
func dataDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "toolpack-server")
	}
	return filepath.Join(os.TempDir(), "toolpack-server")
}

// newConfigHost returns the host of the -config file (path; "" means
// none: every key has its default), with the servers of the file and of
// -proxy (fixed) mirrored through proxy, and dynamic (may be nil) naming
// the tools that come and go without a reload (catalogueNames). The
// configuration is not loaded yet: call Reload.
func newConfigHost(reg *registry.Registry, path string, proxy *mcpproxy.Proxy, fixed []mcpproxy.Config,
	dynamic func(string) (string, bool)) (*hostconfig.Host, error) {
	opts := hostconfig.Options{Path: path, Registry: reg, Dynamic: dynamic}
	for _, c := range fixed {
		opts.Servers = append(opts.Servers, c.Name)
	}
	if path == "" {
		opts.Load.DataDir = dataDir()
	}
	h, err := hostconfig.NewHost(opts)
	if err != nil {
		return nil, err
	}
	// Packs the server registers after the first configuration, or only
	// with some configurations, are reserved, so that a server named like
	// one is refused at start as at every reload.
	h.OnApply("servers", mcpproxy.HostHook(proxy, fixed, reservedPacks()...))
	return h, nil
}

// describeConfig is the log line's attributes for a configuration.
func describeConfig(c *hostconfig.Config) []any {
	return []any{"files", strings.Join(c.Files, ","), "aliases", len(c.Aliases), "snippets", len(c.Snippets),
		"servers", len(c.Servers), "stats", c.Stats.Enabled,
		// Where stats and stored outputs live; never the DSN itself.
		"stats_postgresql", c.Stats.Enabled && c.Stats.DSN != "", "output_postgresql", c.Output.DSN != ""}
}

// reloadOnSIGHUP re-reads the configuration on every SIGHUP hup delivers
// until ctx ends, logging the outcome: a broken file is logged with its
// problems (file:line: key: …) and the previous configuration keeps
// serving. One that arrived while the server started reloads at once.
func reloadOnSIGHUP(ctx context.Context, hup <-chan os.Signal, host *hostconfig.Host, log *slog.Logger) {
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
			}
			if host.Path() == "" {
				log.Warn("SIGHUP: no -config file to reload; nothing changes")
				continue
			}
			if err := host.Reload(ctx); err != nil && ctx.Err() != nil {
				// The server is stopping: the reload was cut short, not
				// refused, and nothing is wrong with the file.
				log.Info("SIGHUP: reload cut short by shutdown; the previous configuration stays")
			} else {
				logReload(host, log, "SIGHUP", err)
			}
		}
	}()
}

// logReload logs the outcome of a reload asked for by who (SIGHUP,
// ot.reload): the configuration now in force, or the error, which names
// the file and line at fault.
func logReload(host *hostconfig.Host, log *slog.Logger, who string, err error) {
	if err != nil {
		log.Error("configuration reload failed; the previous configuration stays", "by", who, "error", err)
		return
	}
	log.Info("configuration reloaded", append([]any{"by", who}, describeConfig(host.Config())...)...)
	warnConfig(host.Config(), log)
}

// warnConfig logs what a configuration says that does nothing.
func warnConfig(c *hostconfig.Config, log *slog.Logger) {
	if c.Stats.DSN != "" && !c.Stats.Enabled {
		log.Warn("stats.dsn is set but statistics are off, so the database is not used (stats: {enabled: true} turns them on)")
	}
}

// readConfig reads the first configuration at start and checks what the
// hooks check (hostconfig.Host.Check) without applying it: the catalogue
// it names is opened first (startCatalogue), so that
// the aliases are checked against the same tools at start as on every
// reload.
func readConfig(ctx context.Context, host *hostconfig.Host) (*hostconfig.Config, error) {
	conf, err := host.Read()
	if err == nil {
		// The file's own problems (a snippet that does not parse, a
		// server's settings) before the catalogue's database is dialled:
		// a broken file exits 2 listing them, whatever that database does.
		err = host.Check(ctx, conf)
	}
	if err != nil {
		return nil, startError(ctx, host, err)
	}
	return conf, nil
}

// loadConfig applies conf, the first configuration (readConfig), at
// start.
func loadConfig(ctx context.Context, host *hostconfig.Host, conf *hostconfig.Config, log *slog.Logger) error {
	if err := host.Apply(ctx, conf); err != nil {
		return startError(ctx, host, err)
	}
	if host.Path() != "" {
		log.Info("configuration loaded (SIGHUP reloads it)", describeConfig(host.Config())...)
		warnConfig(host.Config(), log)
	}
	return nil
}

// startError reports a configuration that could not be read or applied
// at start: configError's verdict with -config, else the default
// configuration's failure.
func startError(ctx context.Context, host *hostconfig.Host, err error) error {
	if host.Path() == "" {
		return fmt.Errorf("configuration: %w", err)
	}
	return configError(ctx, err)
}

// catalogueNames is hostconfig.Options.Dynamic for the server's
// catalogue once cat holds it: the names of its bundles' tools
// (cataloguehost's Catalogue.Namespace), which are switched on and off,
// and come and go with their bundle, without a reload.
func catalogueNames(cat *atomic.Pointer[serverCatalogue]) func(string) (string, bool) {
	return func(name string) (string, bool) {
		c := cat.Load()
		if c == nil {
			return "", false
		}
		part, ok := c.cat.Namespace(name)
		if !ok {
			return "", false
		}
		return fmt.Sprintf("catalogue bundle %q", part), true
	}
}

// configError reports a configuration that could not be put in force at
// start. A database it names that cannot be reached is a failure of the
// moment (exit status 1: the same command works once the database is
// back), and so is a stop (a signal) meanwhile; anything else is the
// file's fault, a usage error (exit status 2).
func configError(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		// Stopped while the configuration was being put in force (a
		// signal while a database was slow to answer): not the file's fault.
		return fmt.Errorf("flag -config: stopped before the configuration was in force: %w", err)
	case errors.Is(err, pgpool.ErrSchemaTooNew):
		return fmt.Errorf("flag -config: %w", err)
	case databaseAway(err) || errors.Is(err, context.DeadlineExceeded):
		// A deadline the server did not set by stopping: a database's
		// connect or statement timeout (one that accepts connections and
		// does not answer).
		return fmt.Errorf("flag -config: a database it names cannot be reached, or does not answer; check that PostgreSQL runs and that the dsn's host and port are right: %w", err)
	}
	return usageError("flag -config: %v", err)
}

// databaseAway reports whether err says one of the PostgreSQL stores
// could not reach its database.
func databaseAway(err error) bool {
	return errors.Is(err, stats.ErrUnavailable) || errors.Is(err, results.ErrUnavailable) || errors.Is(err, catalogue.ErrUnavailable)
}

// serverStatus reports the proxy's servers to ot.config, ot.health and
// ot.packs in the order of the configuration, as aliases and snippets are
// listed: the -proxy file's (fixed) as that file lists them, then the
// -config file's as it lists them (hostconfig.Config.Names), then any
// other the proxy serves (during a reload, one the configuration in force
// no longer names) in the proxy's order, by name. nil when no server can
// be configured (no proxy).
func serverStatus(proxy *mcpproxy.Proxy, fixed []mcpproxy.Config, host *hostconfig.Host) func() []ot.ServerStatus {
	if proxy == nil {
		return nil
	}
	return func() []ot.ServerStatus {
		st := proxy.Status()
		connected := make(map[string]bool, len(st))
		for _, s := range st {
			connected[s.Name] = s.State == mcpproxy.Connected
		}
		out := make([]ot.ServerStatus, 0, len(st))
		add := func(name string) {
			if c, ok := connected[name]; ok {
				out = append(out, ot.ServerStatus{Name: name, Connected: c})
				delete(connected, name)
			}
		}
		for _, c := range fixed {
			add(c.Name)
		}
		if host != nil {
			if cfg := host.Config(); cfg != nil {
				for _, name := range cfg.ServerNames() {
					add(name)
				}
			}
		}
		for _, s := range st {
			add(s.Name)
		}
		return out
	}
}

// catalogueDatabase reports the catalogue's database for ot.health and
// /healthz once the catalogue runs on PostgreSQL (cat is set once the
// catalogue is open, after the ot pack is in place).
func catalogueDatabase(cat *atomic.Pointer[serverCatalogue]) func(context.Context) []ot.DatabaseStatus {
	return func(ctx context.Context) []ot.DatabaseStatus {
		c := cat.Load()
		if c == nil || c.pg == nil {
			return nil
		}
		return []ot.DatabaseStatus{{Name: "catalogue", Reachable: c.pg.Ping(ctx) == nil}}
	}
}

// otTools are the tools of the ot pack, which the server always serves.
func otTools(reg *registry.Registry) []*registry.Tool {
	var out []*registry.Tool
	for _, t := range reg.List() {
		if t.Pack == ot.PackName {
			out = append(out, t)
		}
	}
	return out
}

// reservedPacks are the names of the packs this server may serve itself
// (the ot pack, the catalogue's, the snippets', and its pack table's),
// which no remote server may take: its tools are served as a pack of its
// name.
func reservedPacks() []string {
	names := []string{ot.PackName, cataloguehost.DefaultPack, "snippet"}
	for _, e := range availablePacks() {
		names = append(names, e.name)
	}
	return names
}
