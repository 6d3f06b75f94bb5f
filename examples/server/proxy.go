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
	"sort"
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
// set; Env values and Headers values may name environment variables as
// ${NAME} or ${NAME:-default}, expanded as the -config file's values are
// (hostconfig.Expand), so that secrets stay out of the file; InheritEnv
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

// errBareDollar is the problem of a -proxy value holding a $ followed by a
// letter or _: such a $NAME was expanded once (os.Expand) and is now kept
// as written, so that "Bearer $KEY" would silently send the text $KEY.
var errBareDollar = errors.New("a bare $ before a name is not expanded; write ${NAME}, or $$ for a literal $")

// readProxyFile reads the -proxy file: a JSON array of proxyServer. Unknown
// fields are errors; no value is ever quoted in an error (it may be a
// secret).
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
	left := hostconfig.MaxExpandedBytes // what the file's values may expand to, together, as for -config
	for i, s := range servers {
		if reserved[s.Name] {
			// Its tools would be served as a pack of that name, which the
			// server serves itself: never served, or shown as the wrong one.
			return nil, usageError("flag -proxy: servers[%d] %q: the name of a pack this server serves itself (%s); expected a name of its own", i, s.Name, strings.Join(reservedPacks(), ", "))
		}
		env, err := expandValues(s.Env, &left)
		if err != nil {
			return nil, fmt.Errorf("%w: flag -proxy: servers[%d] %q: env: %w", errUsage, i, s.Name, err)
		}
		headers, err := expandValues(s.Headers, &left)
		if err != nil {
			return nil, fmt.Errorf("%w: flag -proxy: servers[%d] %q: headers: %w", errUsage, i, s.Name, err)
		}
		cfgs = append(cfgs, mcpproxy.Config{
			Name: s.Name, Description: s.Description,
			Command: s.Command, Env: env, InheritEnv: s.InheritEnv, Dir: s.Dir,
			URL: s.URL, Headers: headers,
		})
	}
	return cfgs, nil
}

// expandValues replaces ${NAME} and ${NAME:-default} in every value by
// the environment variable NAME exactly as the -config file's values are
// expanded (hostconfig.Expand): $$ is a literal $, and a $ followed by
// anything but {, $, a letter or _ is kept as written. A bare $ before a
// letter or _ ($NAME, once expanded) is refused (errBareDollar) rather
// than kept, so a value written for the old expansion fails loudly
// instead of sending the literal text. An error names the key (the first
// in sorted order) and, for an unset ${NAME}, the variable, never the
// value nor any part of it. *left is what the file's values may still
// expand to together (hostconfig.MaxExpandedBytes for the file, as for a
// -config load); a value that takes it past zero is refused.
func expandValues(m map[string]string, left *int) (map[string]string, error) {
	if m == nil {
		return nil, nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(m))
	for _, k := range keys {
		v := m[k]
		if bareDollar(v) {
			return nil, fmt.Errorf("%s: %w", k, errBareDollar)
		}
		x, err := hostconfig.Expand(v, os.LookupEnv)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		if *left -= len(x); *left < 0 {
			return nil, fmt.Errorf("%s: the file's values expand to more than %d bytes together (hostconfig.MaxExpandedBytes); expected fewer or shorter ${…}", k, hostconfig.MaxExpandedBytes)
		}
		out[k] = x
	}
	return out, nil
}

// bareDollar reports whether v holds a $ followed by an ASCII letter or _
// outside ${…} (whose default is literal text) and not after a $ that
// makes $$.
func bareDollar(v string) bool {
	for i := 0; i+1 < len(v); i++ {
		if v[i] != '$' {
			continue
		}
		switch c := v[i+1]; {
		case c == '$':
			i++
		case c == '{':
			end := strings.IndexByte(v[i+2:], '}')
			if end < 0 {
				return false // an unterminated ${, which Expand reports
			}
			i += 2 + end
		case c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z':
			return true
		}
	}
	return false
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
