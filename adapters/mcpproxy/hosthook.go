package mcpproxy

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// snippetPack is the pack a host configuration's snippets are served in
// (registry/snippet.PackName): a server may not take its name.
const snippetPack = "snippet"

// HostHook returns the hook that serves a host configuration's servers:
// section through p, beside the servers p was given by other means (fixed,
// for example a -proxy file, which every configuration keeps):
//
//	host.OnApply("servers", mcpproxy.HostHook(p, fixed, "catalogue", "web"))
//
// Preparing checks every server, naming the file, line and key of each
// problem: mcpproxy's rules (Validate), a name also in fixed, and a name a
// pack of the host takes — a server there would never be served: a pack
// that is not a server's registered now (a local pack such as "ot"),
// "snippet" (the configuration's snippets), and reserved, the packs the
// host registers later or only with some configurations (a catalogue,
// packs its configuration turns on), so that a file is judged the same at
// start and at every reload. Applying reconfigures p (Reconfigure:
// unchanged servers keep their sessions), waiting at most HostHookWait
// for new servers to connect; undoing puts the previous servers back. p nil checks the configuration and applies nothing.
func HostHook(p *Proxy, fixed []Config, reserved ...string) hostconfig.Hook {
	return func(_ context.Context, old, cfg *hostconfig.Config) (hostconfig.Step, error) {
		all := append([]Config(nil), fixed...)
		inFixed := map[string]bool{}
		for _, c := range fixed {
			inFixed[c.Name] = true
		}
		taken := map[string]bool{snippetPack: true}
		for _, r := range reserved {
			taken[r] = true
		}
		if p != nil {
			for _, t := range p.reg.ListAll() {
				if !strings.HasPrefix(t.Source, registry.SourceProxyPrefix) {
					taken[t.Pack] = true
				}
			}
		}
		var errs []error
		for _, name := range cfg.ServerNames() {
			s := cfg.Servers[name]
			switch {
			case inFixed[name]:
				errs = append(errs, cfg.Errorf("servers."+name, "a server named %q is given to the host elsewhere too (a -proxy file); expected each name once", name))
				continue
			case name == snippetPack:
				errs = append(errs, cfg.Errorf("servers."+name, "%q is the name of the pack of the configuration's snippets, and a server's tools are served as a pack of the server's name; expected a name of its own", name))
				continue
			case taken[name]:
				errs = append(errs, cfg.Errorf("servers."+name, "%q is the name of a pack the host serves itself, and a server's tools are served as a pack of the server's name; expected a name of its own", name))
				continue
			}
			all = append(all, HostServer(s))
		}
		if len(errs) > 0 {
			return hostconfig.Step{}, errors.Join(errs...)
		}
		if err := Validate(all); err != nil {
			return hostconfig.Step{}, err
		}
		if p == nil {
			return hostconfig.Step{}, nil
		}
		previous := append([]Config(nil), fixed...)
		if old != nil {
			for _, name := range old.ServerNames() {
				previous = append(previous, HostServer(old.Servers[name]))
			}
		}
		// The tools of a server this configuration drops are no alias's
		// target and take no name from one, as at a start with this file.
		kept := map[string]bool{}
		for _, c := range all {
			kept[c.Name] = true
		}
		var packs []string
		for _, st := range p.Status() {
			if !kept[st.Name] {
				packs = append(packs, st.Name)
			}
		}
		return hostconfig.Step{
			Packs: packs,
			Apply: func(ctx context.Context) error { return reconfigureWithin(ctx, p, all) },
			Undo:  func(ctx context.Context) error { return reconfigureWithin(ctx, p, previous) },
		}, nil
	}
}

// HostHookWait is how long applying a configuration waits for the first
// connection of the servers it adds or changes, so that their tools are
// served when a reload returns. A server slower than that (one that
// accepts the connection and does not answer) goes on connecting in the
// background, shown disconnected meanwhile, instead of holding up the
// reload, the ot.reload call waiting on it, and a start for
// Options.ConnectTimeout.
const HostHookWait = 5 * time.Second

// reconfigureWithin is p.Reconfigure, waiting at most HostHookWait for
// the first connections.
func reconfigureWithin(ctx context.Context, p *Proxy, all []Config) error {
	wctx, cancel := context.WithTimeout(ctx, HostHookWait)
	defer cancel()
	err := p.Reconfigure(wctx, all)
	if err != nil && ctx.Err() == nil && wctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
		return nil // in force; the slow servers connect in the background
	}
	return err
}

// HostServer is the Config of a host configuration's server entry.
func HostServer(s hostconfig.Server) Config {
	return Config{Name: s.Name, Description: s.Description,
		Command: s.Command, Env: s.Env, InheritEnv: s.InheritEnv, Dir: s.Dir, URL: s.URL, Headers: s.Headers, Secrets: s.Secrets}
}
