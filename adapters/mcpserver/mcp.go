package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/adapters/mcpstdio"
	"github.com/toolpack-go/toolpack/internal/mcpmap"
	"github.com/toolpack-go/toolpack/internal/toolmsg"
	"github.com/toolpack-go/toolpack/registry"
)

// Display chooses what the text content of a tool result shows.
type Display int

const (
	// DisplayValue, the zero value and default, shows the plain value: a
	// string value as it is (for example a tool's Markdown and nothing
	// else), any other value as its JSON. A failure shows its error text,
	// every field error of a validation failure and the agent instruction,
	// if any. It is the default because that is what a model expects to
	// read: the answer, not a wrapper around it.
	DisplayValue Display = iota
	// DisplayEnvelope shows the full Result JSON envelope
	// ({"success":…,"value":…,"error":…,…}, the equivalent of seed 004's
	// to_json_str) as the text content, for successes and failures alike:
	// for hosts whose agents are written to read every field of a Result
	// (message, instruction, error_type) on every call.
	DisplayEnvelope
)

// String returns "envelope", "value", or "Display(n)" for an unknown value.
func (d Display) String() string {
	switch d {
	case DisplayEnvelope:
		return "envelope"
	case DisplayValue:
		return "value"
	default:
		return fmt.Sprintf("Display(%d)", int(d))
	}
}

func (d Display) valid() bool { return d == DisplayEnvelope || d == DisplayValue }

// ErrServerStopping is the cause a host gives Options.Stop when it shuts
// down. It is the same error as httpapi.ErrServerStopping, so that one
// cancellation stops a server's REST and MCP calls alike.
var ErrServerStopping = toolmsg.ErrServerStopping

// MetaErrorType is the _meta key of a failed tool result that holds the
// failure's error type ("toolpack/error_type").
const MetaErrorType = mcpmap.MetaErrorType

// MetaWrapped is the _meta key (true) of a tool whose advertised output
// schema wraps its value as {"value": …}, and of each result whose
// structuredContent does; a client (adapters/mcpproxy) takes the value
// back out.
const MetaWrapped = mcpmap.MetaWrapped

// Options configure Register, NewServer and ServeStdio. The zero value is
// usable: every tool shows its plain value (DisplayValue), the server is
// named "toolpack" and logs go to slog.Default().
type Options struct {
	// Implementation names the server in the MCP handshake (NewServer and
	// ServeStdio); nil means &mcp.Implementation{Name: "toolpack"} with the
	// module's version. Register ignores it.
	Implementation *sdk.Implementation
	// Display is how results of tools without a per-tool choice are shown;
	// the zero value is DisplayValue. A value other than the two
	// constants makes every call of the affected tools fail with a JSON-RPC
	// internal error naming the field (and is logged at registration).
	Display Display
	// DisplayFor, when non-nil, is asked once per tool (and again when the
	// tool changes): a tool for which it returns ok == true is shown with the
	// returned Display; the others use Display.
	DisplayFor func(t *registry.Tool) (d Display, ok bool)
	// PageSize is the number of tools in one tools/list page; zero means the
	// SDK's default, mcp.DefaultPageSize (1000). NewServer gives it to the
	// SDK server as well. With Register, set it to the PageSize the server
	// was made with, so that pages holding registry tools are as long as
	// the SDK's own. A negative value is logged at ERROR and zero is used.
	PageSize int
	// Logger receives the adapter's logs (protocol failures at ERROR, tools
	// that cannot be served at ERROR, sync at DEBUG); nil means
	// slog.Default(). It is also the SDK server's logger in NewServer, with
	// the SDK's INFO records (one per session start and end) at DEBUG.
	// Nothing is ever logged to stdout by this package.
	Logger *slog.Logger
	// Stop, when non-nil, stops the calls of registry tools under way
	// once it is done: a host shutting down cancels it at the end of its
	// grace, with the cause ErrServerStopping. Each call's context is
	// cancelled with Stop's cause (context.Cause), so that the tool
	// returns, and its client is answered a tool error result (isError,
	// error type unavailable: "the server is shutting down and stopped the
	// call to tool … before it finished", the words of a REST call stopped
	// so); a call that arrives later is answered so at once. Whatever the
	// cause, the client reads that the server is shutting down; the cause
	// reaches the tool and the log. A Stop cancelled without a cause (or
	// with context.Canceled) gives the calls ErrServerStopping, so that
	// the registry's Logging logs "Tool X stopped: the server is shutting
	// down" instead of blaming the caller.
	//
	// Without Stop, a call over streamable HTTP runs on its session's
	// context, which neither the end of its HTTP request nor
	// http.Server.Shutdown cancels: a server that closes its connections
	// leaves the client without an answer and the tool running. Calls of
	// tools the host added to the SDK server itself are not covered.
	Stop context.Context
}

func (o Options) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

// Register serves every tool of reg on s, with the registry's own name,
// title, description, input schema, output schema and annotations, and
// keeps s in step with reg: tools added to or removed from reg later
// appear in or vanish from tools/list, and connected clients get
// notifications/tools/list_changed (debounced by the SDK). Each change
// costs time in proportion to the tools it touches, not to the number
// served.
//
// Every call goes through reg.Invoke; the adapter neither validates nor
// dispatches on its own. See the package documentation for how results and
// errors are mapped.
//
// The registry's tools are not added one by one with s.AddTool, whose
// schema re-encoding dominates the cost of serving thousands of tools:
// Register installs a receiving middleware on s that answers tools/list
// from its own sorted index (merged with the tools the host adds to s
// itself, in pages of opts.PageSize with the SDK's cursors) and passes
// calls of registry tools down the SDK's own tools/call path through one
// hidden tool named "toolpack.mcpserver.dispatch", which is reserved.
// Middleware the host adds to s after Register sees every request as the
// client sent it; middleware added before sees calls of registry tools
// addressed to that reserved name.
//
// A tool whose input schema is missing or not a JSON object with
// "type":"object", or that the SDK would refuse, is not served; the reason
// is logged at ERROR and the other tools are unaffected.
//
// A registry tool hides a tool of the same name the host added to s. The
// returned function stops the sync and withdraws every registry tool from
// s; it is safe to call more than once.
func Register(s *sdk.Server, reg *registry.Registry, opts Options) (unregister func()) {
	b := &binding{
		srv:      s,
		reg:      reg,
		opts:     opts,
		log:      opts.logger(),
		pageSize: opts.PageSize,
		served:   map[string]*served{},
	}
	if !opts.Display.valid() {
		b.log.Error("mcpserver: invalid Options.Display; calls of tools without a per-tool Display will fail",
			"display", int(opts.Display), "expected", "DisplayEnvelope or DisplayValue")
	}
	if b.pageSize < 0 {
		b.log.Error("mcpserver: invalid Options.PageSize; using the SDK's default",
			"page_size", b.pageSize, "expected", "zero (the default) or a positive number")
	}
	if b.pageSize <= 0 {
		b.pageSize = sdk.DefaultPageSize
	}
	// The middleware goes first, so the dispatch tool is hidden from the
	// moment it exists, and the dispatch tool before any tool is served, so
	// no call is routed to it before it is there. Clients already connected
	// are told once the tools are in; a new server has none to tell.
	s.AddReceivingMiddleware(b.middleware)
	b.notify()
	cancel := reg.Subscribe(b.apply)
	if b.reconcile(reg.List()) && hasSessions(s) {
		b.notify()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			b.close()
		})
	}
}

// hasSessions reports whether any client is connected to s.
func hasSessions(s *sdk.Server) bool {
	for range s.Sessions() {
		return true
	}
	return false
}

// NewServer returns an SDK server named by opts.Implementation that
// advertises the tools capability (with listChanged) and logging (tools
// log to the client with registry.ClientLog, at the level it set) and serves reg's
// tools as Register does. Its receiving middleware includes
// TokenInfoMiddleware, so a registry tool reads the caller's verified token
// with httpguard.TokenInfoFromContext; the SDK's per-session INFO logs
// (session connected, initialized, ended) go to opts.Logger at DEBUG.
//
// The registration lives as long as reg does; use mcp.NewServer and
// Register directly when the server must be detached from reg later.
func NewServer(reg *registry.Registry, opts Options) *sdk.Server {
	impl := opts.Implementation
	if impl == nil {
		impl = &sdk.Implementation{Name: "toolpack", Version: moduleVersion()}
	}
	s := sdk.NewServer(impl, &sdk.ServerOptions{
		Logger:   sdkLogger(opts.logger()),
		PageSize: max(opts.PageSize, 0),
		Capabilities: &sdk.ServerCapabilities{
			Tools:   &sdk.ToolCapabilities{ListChanged: true},
			Logging: &sdk.LoggingCapabilities{},
		},
	})
	s.AddReceivingMiddleware(TokenInfoMiddleware)
	Register(s, reg, opts)
	return s
}

// ServeStdio serves reg to one client over the process's stdin and stdout
// (newline-delimited JSON-RPC, package mcpstdio's Transport) until the
// client disconnects or ctx is done. The end of input is a normal end
// (nil). Nothing else may read stdin or write to stdout while it runs; log
// to stderr. Requests whose params do not fit their method get a plain
// JSON-RPC error (CheckParams). Use NewServer and (*mcp.Server).Run with
// CheckParams(an mcpstdio.Transport or IOTransport) to choose the
// transport's options.
func ServeStdio(ctx context.Context, reg *registry.Registry, opts Options) error {
	err := NewServer(reg, opts).Run(ctx, CheckParams(&mcpstdio.Transport{Logger: opts.logger()}))
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// moduleVersion is the toolpack module's version as built into the
// binary, or "dev".
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	const path = "github.com/toolpack-go/toolpack"
	if bi.Main.Path == path && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			return d.Version
		}
	}
	return "dev"
}
