package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/packs/ot"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// maxProxyFileBytes caps the -proxy configuration file.
const maxProxyFileBytes = 1 << 20

// proxyServer is one entry of the -proxy file, as a servers: entry of the
// -config file (hostconfig.Server). Exactly one of Command and URL is
// set. Every value but Name and InheritEnv's names — Description, each
// Command argument, Dir, URL, the Env values and the Headers values — may
// name environment variables as ${NAME} or ${NAME:-default}, expanded and
// checked exactly as the -config file's servers: entries are
// (hostconfig.Expander), so that secrets stay out of the file; InheritEnv
// names variables of this server's environment passed to the command as
// they are (mcpproxy.Config.InheritEnv: plain settings, never redacted).
type proxyServer struct {
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Command     []string          `json:"command,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	InheritEnv  []string          `json:"inherit_env,omitempty"`
	Dir         string            `json:"dir,omitempty"`
	URL         string            `json:"url,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
}

// readProxyFile reads the -proxy file: a JSON array of proxyServer. Unknown
// fields are errors; no value is ever quoted in an error (it may be a
// secret). Each entry is expanded and checked by one hostconfig.Expander,
// as Load does a servers: entry: ${NAME} and ${NAME:-default} in every
// value, $$ a literal $, a bare $NAME refused, each value at most
// hostconfig.MaxExpandedValueBytes and the file's values together at most
// hostconfig.MaxExpandedBytes once expanded; a URL with user information
// refused (credentials go in headers); and the values the environment
// gave an entry's ${VAR}s are its mcpproxy.Config.Secrets, but for those
// wholly within its URL's scheme, host and port.
func readProxyFile(path string) ([]mcpproxy.Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError("flag -proxy: %v", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxProxyFileBytes+1))
	if err != nil {
		return nil, usageError("flag -proxy: reading %s: %v", path, err)
	}
	if len(b) > maxProxyFileBytes {
		return nil, usageError("flag -proxy: %s is larger than %d bytes", path, maxProxyFileBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var servers []proxyServer
	if err := dec.Decode(&servers); err != nil {
		return nil, usageError("flag -proxy: %s: expected a JSON array of servers "+
			`({"name","command","env","inherit_env","dir"} or {"name","url","headers"}): %v`, path, err)
	}
	reserved := map[string]bool{}
	for _, n := range reservedPacks() {
		reserved[n] = true
	}
	cfgs := make([]mcpproxy.Config, 0, len(servers))
	exp := &hostconfig.Expander{LookupEnv: os.LookupEnv} // one for the file: its values share MaxExpandedBytes, as a -config load's do
	for i, s := range servers {
		if reserved[s.Name] {
			// Its tools would be served as a pack of that name, which the
			// server serves itself: never served, or shown as the wrong one.
			return nil, usageError("flag -proxy: servers[%d] %q: the name of a pack this server serves itself (%s); expected a name of its own", i, s.Name, strings.Join(reservedPacks(), ", "))
		}
		x, err := exp.Server(hostconfig.Server{Name: s.Name, Description: s.Description, Command: s.Command, Env: s.Env,
			InheritEnv: s.InheritEnv, Dir: s.Dir, URL: s.URL, Headers: s.Headers})
		if err != nil {
			// One line per value at fault, each naming the server.
			var errs []error
			for _, p := range hostconfig.Problems(err) {
				errs = append(errs, fmt.Errorf("%w: flag -proxy: servers[%d] %q: %w", errUsage, i, s.Name, p))
			}
			return nil, errors.Join(errs...)
		}
		cfgs = append(cfgs, mcpproxy.Config{
			Name: x.Name, Description: x.Description,
			Command: x.Command, Env: x.Env, InheritEnv: x.InheritEnv, Dir: x.Dir,
			URL: x.URL, Headers: x.Headers, Secrets: x.Secrets,
		})
	}
	return cfgs, nil
}

// startProxy mirrors the servers of the -proxy file (cfgs) into reg;
// -config's servers are added by the configuration host. Servers that
// cannot be reached are logged and retried in the background; only an
// invalid configuration is an error. Children's stderr goes to stderr.
func startProxy(ctx context.Context, reg *registry.Registry, cfgs []mcpproxy.Config, log *slog.Logger, stderr io.Writer) (*mcpproxy.Proxy, error) {
	p, err := mcpproxy.New(ctx, reg, cfgs, mcpproxy.Options{Logger: log, Stderr: stderr})
	if err != nil {
		return nil, fmt.Errorf("flag -proxy: %w", err)
	}
	return p, nil
}

// proxyHealth is the proxy part of /healthz, in seed 001's ot.health shape:
// {"status":"ok"|"degraded","server_count":N,"servers":{name:state}}.
// A nil p (no -proxy) is healthy with no servers.
func proxyHealth(p *mcpproxy.Proxy) map[string]any {
	servers := map[string]string{}
	status := mcpproxy.HealthOK
	if p != nil {
		for _, st := range p.Status() {
			servers[st.Name] = string(st.State)
		}
		status = p.Health()
	}
	return map[string]any{"status": status, "server_count": len(servers), "servers": servers}
}

// dbHealthCache keeps the databases' health for a second: /healthz is
// open to anyone, and probes hitting it often must not take the pools'
// connections from the tools. One check runs at a time; probes arriving
// meanwhile wait for it and share its answer.
type dbHealthCache struct {
	check func(context.Context) []ot.DatabaseStatus // nil: no databases
	ttl   time.Duration                             // 0: dbHealthTTL

	mu  sync.Mutex
	at  time.Time
	dbs []ot.DatabaseStatus
}

// dbHealthTTL is how long a check's answer is served.
const dbHealthTTL = time.Second

func (c *dbHealthCache) get(ctx context.Context) []ot.DatabaseStatus {
	if c.check == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ttl := c.ttl
	if ttl == 0 {
		ttl = dbHealthTTL
	}
	if !c.at.IsZero() && time.Since(c.at) < ttl {
		return c.dbs
	}
	c.dbs, c.at = c.check(context.WithoutCancel(ctx)), time.Now()
	return c.dbs
}

// postgresHealth is the postgresql part of /healthz, in ot.health's
// shape: {"status":"ok"|"degraded","databases":{"catalogue":"reachable"|"unreachable",…}}.
func postgresHealth(dbs []ot.DatabaseStatus) map[string]any {
	states := map[string]string{}
	for _, d := range dbs {
		states[d.Name] = d.State()
	}
	return map[string]any{"status": ot.DatabasesStatus(dbs), "databases": states}
}
