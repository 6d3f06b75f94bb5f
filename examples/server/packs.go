package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/toolpack-go/toolpack/packs/example"
	"github.com/toolpack-go/toolpack/packs/mlx"
	"github.com/toolpack-go/toolpack/packs/oj"
	"github.com/toolpack-go/toolpack/packs/transcript"
	"github.com/toolpack-go/toolpack/packs/web"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// packEntry is one pack this server can serve.
type packEntry struct {
	// name is what -packs selects the pack by; the constructor must return
	// a pack of that name.
	name string
	// new builds the pack. It returns an error wrapping errNotConfigured
	// when configuration it needs (from the environment) is absent.
	new func(log *slog.Logger) (*registry.Pack, error)
	// fromConfig, for a pack configured by the host configuration
	// (-config) instead of the environment, builds it from the
	// configuration in force; it is registered when the configuration is
	// applied, and again on every reload. new is then nil.
	fromConfig func(cfg *hostconfig.Config, log *slog.Logger) (*registry.Pack, error)
	// optIn, for a pack built from the configuration that needs nothing
	// from it, makes it served only when -packs names it or configured
	// (configured reports whether the configuration sets any of its keys):
	// a pack that reaches the internet is not served unasked.
	optIn      bool
	configured func(cfg *hostconfig.Config) bool
	// plain makes the pack's MCP results show the plain value (for example
	// its Markdown) rather than the Result envelope.
	plain bool
}

// availablePacks lists every pack the server knows, in serving order.
// Adding a pack to the server is one line here.
func availablePacks() []packEntry {
	return []packEntry{
		{name: example.PackName, new: newExample},
		{name: oj.PackName, new: newOJ, plain: true},
		{name: transcript.PackName, fromConfig: newTranscript, plain: true},
		{name: mlx.PackName, fromConfig: newMLX, plain: true},
		{name: web.PackName, fromConfig: newWeb, plain: true, optIn: true, configured: webConfigured},
	}
}

// errNotConfigured marks a pack that needs configuration which is absent.
// Such a pack is skipped (and logged) when -packs is not given, and is an
// error when -packs names it.
var errNotConfigured = errors.New("not configured")

// newExample builds the example pack. As seed 004 says, the example tools
// (the destructive create_document among them) are included only when
// MCP_INCLUDE_EXAMPLE_TOOLS is "true"; unset or any other value leaves
// them out, with a log line saying how to include them.
func newExample(*slog.Logger) (*registry.Pack, error) {
	if v, ok := os.LookupEnv(example.EnvIncludeExampleTools); !ok || v != "true" {
		got := "is not set"
		if ok {
			got = fmt.Sprintf("is %q", v)
		}
		return nil, fmt.Errorf("%w: %s %s; set it to \"true\" to include the example tools", errNotConfigured, example.EnvIncludeExampleTools, got)
	}
	return example.New()
}

// Environment of the oj pack.
const (
	envOJBaseURL = "OJ_BASE_URL" // the OJ backend's origin, e.g. https://oj.example.com
	envOJToken   = "OJ_TOKEN"    // optional bearer token; never logged
)

func newOJ(log *slog.Logger) (*registry.Pack, error) {
	base, ok := os.LookupEnv(envOJBaseURL)
	if !ok || strings.TrimSpace(base) == "" {
		return nil, fmt.Errorf("%w: set %s to the OJ backend's origin (and %s to its token, if it needs one)", errNotConfigured, envOJBaseURL, envOJToken)
	}
	token := os.Getenv(envOJToken)
	if token != "" && strings.TrimSpace(token) == "" {
		return nil, usageError("environment variable %s is set but blank (whitespace only); expected the OJ backend's token, or unset it if it needs none", envOJToken)
	}
	return oj.New(oj.Config{BaseURL: base, Token: token, Logger: log})
}

// selectPacks returns the entries named in list (comma-separated), or all
// of them when list is empty. Unknown, empty or repeated names are errors
// naming the -packs flag and the known packs.
func selectPacks(list string) (entries []packEntry, explicit bool, err error) {
	all := availablePacks()
	if strings.TrimSpace(list) == "" {
		return all, false, nil
	}
	byName := make(map[string]packEntry, len(all))
	for _, p := range all {
		byName[p.name] = p
	}
	seen := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		p, ok := byName[n]
		switch {
		case n == "":
			return nil, true, usageError("flag -packs: empty pack name in %q; expected a comma-separated list of %s", list, packNames())
		case !ok:
			return nil, true, usageError("flag -packs: unknown pack %q; expected one of %s", n, packNames())
		case seen[n]:
			return nil, true, usageError("flag -packs: pack %q given twice", n)
		}
		seen[n] = true
		entries = append(entries, p)
	}
	return entries, true, nil
}

func packNames() string {
	var names []string
	for _, p := range availablePacks() {
		names = append(names, p.name)
	}
	return strings.Join(names, ",")
}

// loadPacks builds each selected pack and adds it to reg. It returns the
// names of the packs whose MCP results show plain values. A pack that is
// not configured is skipped with a log line unless it was asked for
// explicitly.
func loadPacks(reg *registry.Registry, entries []packEntry, explicit bool, log *slog.Logger) (plain map[string]bool, err error) {
	plain = map[string]bool{}
	for _, e := range entries {
		if e.plain {
			plain[e.name] = true
		}
		if e.new == nil {
			continue // built from the host configuration (configPackHook)
		}
		p, err := e.new(log)
		if errors.Is(err, errNotConfigured) && !explicit {
			log.Info("pack skipped", "pack", e.name, "reason", err.Error())
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("pack %q: %w", e.name, err)
		}
		if p == nil {
			return nil, fmt.Errorf("pack %q: constructor returned no pack", e.name)
		}
		if p.Name != e.name {
			return nil, fmt.Errorf("pack %q: constructor returned a pack named %q", e.name, p.Name)
		}
		if err := reg.AddPack(p); err != nil {
			return nil, fmt.Errorf("pack %q: %w", e.name, err)
		}
	}
	return plain, nil
}

// newTranscript builds the transcript pack from the configuration's
// transcript: key; without transcript.base_url it is not configured. The
// endpoint is the operator's own, so it may be a loopback or private
// address (no other destination is reached).
func newTranscript(cfg *hostconfig.Config, log *slog.Logger) (*registry.Pack, error) {
	t := cfg.Transcript
	if t.BaseURL == "" {
		return nil, fmt.Errorf("%w: set transcript.base_url (and model, api_key) in the -config file", errNotConfigured)
	}
	return transcript.New(transcript.Config{BaseURL: t.BaseURL, APIKey: t.APIKey, Secrets: slices.Clone(t.Secrets), Model: t.Model,
		ContextTokens: t.ContextTokens, Timeout: t.Timeout, AllowPrivate: true, Logger: log})
}

// newMLX builds the mlx pack from the configuration's mlx: key; without
// mlx.models it is not configured. Started servers are recorded in the
// pack's default state file (in the user cache directory), so that a
// restarted server, whatever its -config, still unloads them.
func newMLX(cfg *hostconfig.Config, log *slog.Logger) (*registry.Pack, error) {
	m := cfg.MLX
	if len(m.Models) == 0 {
		return nil, fmt.Errorf("%w: set mlx.models (and optionally mlx.command, mlx.start_timeout) in the -config file", errNotConfigured)
	}
	return mlx.New(mlx.Config{Command: m.Command, Models: m.Models, StartTimeout: m.StartTimeout, Logger: log})
}

// newWeb builds the web pack from the configuration's web_fetch: and
// search_web: keys: web.fetch always, search.web when
// search_web.base_url is set. The search gateway is the operator's own, so
// it may be a loopback or private address; web.fetch reaches only public
// ones unless web_fetch.allow_private (or the prefixes of
// web_fetch.allow_addrs).
func newWeb(cfg *hostconfig.Config, log *slog.Logger) (*registry.Pack, error) {
	return newWebWith(&webSlots{})(cfg, log)
}

// newWebWith is newWeb with the extractions of every build under the
// bound slots keeps: the server builds the pack again on each reload,
// and extractions still running for an earlier build must count against
// the next (see web.ExtractionSlots).
func newWebWith(slots *webSlots) func(cfg *hostconfig.Config, log *slog.Logger) (*registry.Pack, error) {
	return func(cfg *hostconfig.Config, log *slog.Logger) (*registry.Pack, error) {
		s, err := slots.sized(cfg.WebFetch.MaxConcurrentExtractions)
		if err != nil {
			return nil, err
		}
		return buildWeb(cfg, log, s)
	}
}

// webSlots keeps one web.ExtractionSlots across the builds of the web
// pack while web_fetch.max_concurrent_extractions stays the same; a new
// value starts a new bound (a semaphore cannot be resized), so the
// extractions an earlier build left running count against the old one
// only.
type webSlots struct {
	mu    sync.Mutex
	n     int
	slots *web.ExtractionSlots
}

// sized returns the bound of n extractions (0: the pack's default), the
// one kept when n has not changed.
func (w *webSlots) sized(n int) (*web.ExtractionSlots, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.slots == nil || w.n != n {
		s, err := web.NewExtractionSlots(n)
		if err != nil {
			return nil, fmt.Errorf("web_fetch.max_concurrent_extractions: %w", err)
		}
		w.n, w.slots = n, s
	}
	return w.slots, nil
}

func buildWeb(cfg *hostconfig.Config, log *slog.Logger, slots *web.ExtractionSlots) (*registry.Pack, error) {
	f, s := cfg.WebFetch, cfg.SearchWeb
	redirects := f.MaxRedirects
	if redirects == 0 {
		redirects = -1 // web_fetch.max_redirects: 0 follows none
	}
	return web.New(web.Config{
		Fetch: web.FetchConfig{AllowPrivate: f.AllowPrivate, AllowAddrs: slices.Clone(f.AllowAddrs), MaxBytes: int64(f.MaxBytes), MaxRedirects: redirects, Timeout: f.Timeout,
			Slots: slots},
		Search: web.SearchConfig{BaseURL: s.BaseURL, APIKey: s.APIKey, Secrets: slices.Clone(s.Secrets), SearchTool: s.SearchTool, Timeout: s.Timeout, AllowPrivate: true},
		Logger: log,
	})
}

// webConfigured reports whether the configuration sets search_web or
// changes web_fetch.
func webConfigured(cfg *hostconfig.Config) bool {
	f := cfg.WebFetch
	s := cfg.SearchWeb
	return s.BaseURL != "" || s.APIKey != "" || s.SearchTool != "" || s.Timeout != 0 || f.AllowPrivate || len(f.AllowAddrs) > 0 || f.MaxBytes != 0 ||
		f.MaxRedirects != hostconfig.DefaultMaxRedirects || f.Timeout != 0 || f.MaxConcurrentExtractions != 0
}

// configPackHook registers a pack built from the host configuration each
// time one is applied: replaced when configured, removed when no longer
// configured. A pack named by -packs must be configured.
func configPackHook(reg *registry.Registry, e packEntry, explicit bool, log *slog.Logger) hostconfig.Hook {
	return func(_ context.Context, _, cfg *hostconfig.Config) (hostconfig.Step, error) {
		var p *registry.Pack
		var err error
		if e.optIn && !explicit && !e.configured(cfg) {
			err = fmt.Errorf("%w: name it in -packs or set its keys in the -config file", errNotConfigured)
		} else {
			p, err = e.fromConfig(cfg, log)
		}
		switch {
		case errors.Is(err, errNotConfigured) && explicit:
			return hostconfig.Step{}, fmt.Errorf("pack %q (-packs): %w", e.name, err)
		case errors.Is(err, errNotConfigured):
			return hostconfig.Step{Packs: []string{e.name}, Apply: func(context.Context) error {
				if err := reg.RemovePack(e.name); err != nil && !errors.Is(err, registry.ErrUnknownPack) {
					return err
				}
				return nil
			}}, nil
		case err != nil:
			return hostconfig.Step{}, fmt.Errorf("pack %q: %w", e.name, err)
		}
		names := make([]string, len(p.Tools))
		for i, t := range p.Tools {
			names[i] = t.Name
		}
		return hostconfig.Step{Packs: []string{e.name}, Tools: names, Apply: func(context.Context) error {
			return reg.ReplacePack(p)
		}}, nil
	}
}
