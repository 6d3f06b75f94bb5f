package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/internal/benchtool"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// scaleN is the catalogue size of the scale benchmarks and tests (issue 9).
const scaleN = 10_000

// ScaleArgs is the one 4-field argument type every tool of the scale
// catalogue takes.
type ScaleArgs struct {
	Query string   `json:"query" validate:"required,min=1,max=200" description:"What to search for."`
	Limit int      `json:"limit" validate:"required,min=1,max=50" description:"Maximum number of hits."`
	Mode  string   `json:"mode" validate:"required,oneof=fast exact" description:"Search mode."`
	Tags  []string `json:"tags" validate:"max=10,dive,min=1,max=20" description:"Tags to filter by."`
}

// ScaleOut is the scale tools' structured result.
type ScaleOut struct {
	Tool string `json:"tool"`
	Hits int    `json:"hits"`
}

func scaleName(i int) string { return fmt.Sprintf("tool_%05d", i) }

func scaleFn(name string) func(context.Context, ScaleArgs) (result.Result[ScaleOut], error) {
	return func(_ context.Context, a ScaleArgs) (result.Result[ScaleOut], error) {
		return result.Ok(ScaleOut{Tool: name, Hits: a.Limit}), nil
	}
}

// scaleTool builds the catalogue's tool called name.
func scaleTool(tb testing.TB, name string) *registry.Tool {
	t, err := registry.Func(name, scaleFn(name), registry.ToolOptions{
		Title: "Tool " + name,
		Doc:   "Searches catalogue " + name + ".",
	})
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// scaleTools builds n tools: tool_00000, tool_00001, …
func scaleTools(tb testing.TB, n int) []*registry.Tool {
	tools := make([]*registry.Tool, n)
	for i := range tools {
		tools[i] = scaleTool(tb, scaleName(i))
	}
	return tools
}

// buildOurs is what a host does to serve n tools: build them, add them to
// a registry and create the MCP server.
func buildOurs(tb testing.TB, n int, opts mcpserver.Options) (*registry.Registry, *sdk.Server) {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	if err := reg.Add(scaleTools(tb, n)...); err != nil {
		tb.Fatal(err)
	}
	opts.Logger = discardLogger()
	return reg, mcpserver.NewServer(reg, opts)
}

// buildSDK is the baseline: the same n tools through the go-sdk's typed
// mcp.AddTool (schemas inferred from the Go types by the SDK, which also
// validates input and output).
func buildSDK(n int) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "sdk"}, &sdk.ServerOptions{
		Logger:       discardLogger(),
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
	})
	for i := range n {
		name := scaleName(i)
		sdk.AddTool(srv, &sdk.Tool{Name: name, Title: "Tool " + name, Description: "Searches catalogue " + name + "."},
			func(_ context.Context, _ *sdk.CallToolRequest, a ScaleArgs) (*sdk.CallToolResult, ScaleOut, error) {
				return nil, ScaleOut{Tool: name, Hits: a.Limit}, nil
			})
	}
	return srv
}

// BenchmarkRegister10k builds 10,000 Func tools, adds them to a registry
// and creates the MCP server (ours), against the go-sdk's typed
// mcp.AddTool of the same 10,000 tools (sdk), one of each per iteration
// in the same loop (ns/op is the pair), after one small build of each so
// that one-time work (type plans, caches) is not counted. Reported:
// "ours-ms" and "sdk-ms" per build, "ratio" = ours/sdk (goal ≤ 0.1),
// "ours-cpu-ms" (the process's CPU time during ours, steadier than wall
// time on a shared machine) and "cpu-ratio", "B/tool" allocated by ours
// and "live-B/tool", the heap ours keeps (goal ≤ 10 KiB for both).
func BenchmarkRegister10k(b *testing.B) {
	// One-time work (type plans, schema caches) is not what is measured.
	buildOurs(b, 100, mcpserver.Options{})
	buildSDK(100)
	var dOurs, dSDK, cOurs, cSDK time.Duration
	var alloc uint64
	var m0, m1 runtime.MemStats
	n := 0
	for b.Loop() {
		// Each build starts from a collected heap, as in a process that
		// has just started, rather than paying for the other's garbage.
		runtime.GC()
		runtime.ReadMemStats(&m0)
		c0, t0 := processCPU(), time.Now()
		_, srv := buildOurs(b, scaleN, mcpserver.Options{})
		c1, t1 := processCPU(), time.Now()
		runtime.ReadMemStats(&m1)
		runtime.GC()
		c2, t2 := processCPU(), time.Now()
		base := buildSDK(scaleN)
		c3, t3 := processCPU(), time.Now()
		runtime.KeepAlive(srv)
		runtime.KeepAlive(base)
		dOurs += t1.Sub(t0)
		dSDK += t3.Sub(t2)
		cOurs += c1 - c0
		cSDK += c3 - c2
		alloc += m1.TotalAlloc - m0.TotalAlloc
		n++
	}
	b.ReportMetric(float64(dOurs.Microseconds())/1000/float64(n), "ours-ms")
	b.ReportMetric(float64(dSDK.Microseconds())/1000/float64(n), "sdk-ms")
	b.ReportMetric(float64(dOurs)/float64(dSDK), "ratio")
	b.ReportMetric(float64(cOurs.Microseconds())/1000/float64(n), "ours-cpu-ms")
	b.ReportMetric(float64(cOurs)/float64(cSDK), "cpu-ratio")
	b.ReportMetric(float64(alloc)/float64(n)/scaleN, "B/tool")
	runtime.GC()
	runtime.ReadMemStats(&m0)
	reg, srv := buildOurs(b, scaleN, mcpserver.Options{})
	runtime.GC()
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(reg)
	runtime.KeepAlive(srv)
	b.ReportMetric(float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc))/scaleN, "live-B/tool")
}

// listAll lists every tool through a real client, page by page.
func listAll(tb testing.TB, cs *sdk.ClientSession) []*sdk.Tool {
	var all []*sdk.Tool
	params := &sdk.ListToolsParams{}
	for {
		res, err := cs.ListTools(context.Background(), params)
		if err != nil {
			tb.Fatal(err)
		}
		all = append(all, res.Tools...)
		if res.NextCursor == "" {
			return all
		}
		params = &sdk.ListToolsParams{Cursor: res.NextCursor}
	}
}

// rawSession drives a server over a Connection that hands it requests as
// values and takes its responses as the server wrote them (the result
// already encoded to JSON), so that the server's own cost is measured
// without a client decoding the answer.
type rawSession struct {
	in     chan jsonrpc.Message
	out    chan *jsonrpc.Response
	closed chan struct{}
	once   sync.Once
	id     int64
}

func (s *rawSession) Connect(context.Context) (sdk.Connection, error) { return s, nil }

func (s *rawSession) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-s.in:
		return m, nil
	case <-s.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *rawSession) Write(_ context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Response); ok {
		select {
		case s.out <- r:
		case <-s.closed:
		}
	}
	return nil
}

func (s *rawSession) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

func (s *rawSession) SessionID() string { return "" }

// call sends one request and returns the result the server encoded.
func (s *rawSession) call(tb testing.TB, method string, params any) json.RawMessage {
	s.id++
	id, err := jsonrpc.MakeID(float64(s.id))
	if err != nil {
		tb.Fatal(err)
	}
	p, err := json.Marshal(params)
	if err != nil {
		tb.Fatal(err)
	}
	s.in <- &jsonrpc.Request{ID: id, Method: method, Params: p}
	r := <-s.out
	if r.Error != nil {
		tb.Fatalf("%s: %v", method, r.Error)
	}
	return r.Result
}

// connectRaw serves srv on a rawSession after the initialize handshake.
func connectRaw(tb testing.TB, srv *sdk.Server) *rawSession {
	s := &rawSession{in: make(chan jsonrpc.Message), out: make(chan *jsonrpc.Response), closed: make(chan struct{})}
	ss, err := srv.Connect(context.Background(), s, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ss.Close() })
	s.call(tb, "initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "bench", "version": "v0"},
	})
	s.in <- &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}
	return s
}

var cursorKey = []byte(`"nextCursor":"`)

// listRaw lists every tool page by page and returns the bytes of JSON the
// server produced. The cursor is read from the head of each result (it
// precedes "tools"), so nothing decodes the tools.
func listRaw(tb testing.TB, s *rawSession) int {
	total := 0
	params := map[string]any{}
	for {
		res := s.call(tb, "tools/list", params)
		total += len(res)
		head := res[:min(len(res), 512)]
		i := bytes.Index(head, cursorKey)
		if i < 0 {
			return total
		}
		rest := head[i+len(cursorKey):]
		params = map[string]any{"cursor": string(rest[:bytes.IndexByte(rest, '"')])}
	}
}

// BenchmarkToolsList10k lists all 10,000 tools, every page, from this
// adapter's server and from the SDK-typed baseline, one of each per
// iteration in the same loop. "client" goes through a real go-sdk client
// over in-memory transports (client decoding included); "server"
// measures only the servers: request in, encoded result out (goal ≤ 50
// ms for ours), and the bytes of JSON each writes per tool, which is what
// a client's time follows (ours carry each argument's description in the
// schema and the argument Markdown in the description; the SDK's
// inferred schemas carry neither). "ratio" is ours/sdk by median;
// "ours-cpu-ms" is the process's CPU time per listing of ours, and
// "cpu-ratio" the ratio of CPU times.
func BenchmarkToolsList10k(b *testing.B) {
	_, ours := buildOurs(b, scaleN, mcpserver.Options{})
	base := buildSDK(scaleN)
	b.Run("client", func(b *testing.B) {
		co, cb := connect(b, ours), connect(b, base)
		check := func(got []*sdk.Tool) {
			if len(got) != scaleN {
				b.Fatalf("listed %d tools, want %d", len(got), scaleN)
			}
		}
		mOurs, mBase := benchtool.Interleave(b, func() { check(listAll(b, co.cs)) }, func() { check(listAll(b, cb.cs)) })
		b.ReportMetric(float64(mOurs.Microseconds())/1000, "ours-ms")
		b.ReportMetric(float64(mBase.Microseconds())/1000, "sdk-ms")
	})
	b.Run("server", func(b *testing.B) {
		ro, rb := connectRaw(b, ours), connectRaw(b, base)
		listRaw(b, ro) // the first listing also sorts the index and meets the
		listRaw(b, rb) // garbage of building both catalogues
		var bytesOurs, bytesBase, n int
		var cOurs, cBase time.Duration
		mOurs, mBase := benchtool.Interleave(b, func() {
			c0 := processCPU()
			bytesOurs = listRaw(b, ro)
			cOurs += processCPU() - c0
			n++
		}, func() {
			c0 := processCPU()
			bytesBase = listRaw(b, rb)
			cBase += processCPU() - c0
		})
		b.ReportMetric(float64(mOurs.Microseconds())/1000, "ours-ms")
		b.ReportMetric(float64(mBase.Microseconds())/1000, "sdk-ms")
		b.ReportMetric(float64(cOurs.Microseconds())/1000/float64(n), "ours-cpu-ms")
		b.ReportMetric(float64(cOurs)/float64(cBase), "cpu-ratio")
		b.ReportMetric(float64(bytesOurs)/scaleN, "ours-JSON-B/tool")
		b.ReportMetric(float64(bytesBase)/scaleN, "sdk-JSON-B/tool")
	})
}

// addRemoveStack is a registry of n tools served by NewServer to one
// connected client, with one more tool ready to add and remove.
type addRemoveStack struct {
	reg   *registry.Registry
	extra *registry.Tool
}

func newAddRemoveStack(b *testing.B, n int) *addRemoveStack {
	reg, srv := buildOurs(b, n, mcpserver.Options{})
	connect(b, srv)
	return &addRemoveStack{reg: reg, extra: scaleTool(b, "extra_tool")}
}

func (s *addRemoveStack) addRemove(b *testing.B) {
	if err := s.reg.Add(s.extra); err != nil {
		b.Fatal(err)
	}
	if err := s.reg.Remove("extra_tool"); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAddRemoveOne adds and removes one tool at run time on a served
// registry (with a client connected, so list_changed is scheduled) of 10
// and of 10,000 tools, one of each per iteration in the same loop.
// "ratio" is the median time with 10,000 over that with 10: ≈ 1 means
// the cost does not grow with the number of tools served.
func BenchmarkAddRemoveOne(b *testing.B) {
	small, large := newAddRemoveStack(b, 10), newAddRemoveStack(b, scaleN)
	b.ReportAllocs()
	mLarge, mSmall := benchtool.Interleave(b, func() { large.addRemove(b) }, func() { small.addRemove(b) })
	b.ReportMetric(float64(mLarge.Nanoseconds()), "10k-ns")
	b.ReportMetric(float64(mSmall.Nanoseconds()), "10-ns")
}
