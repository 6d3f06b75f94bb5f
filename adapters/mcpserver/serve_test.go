package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
)

// listPages lists every tool page by page through the client and returns
// the pages; each page is bounded by testTimeout.
func listPages(t testing.TB, cs *sdk.ClientSession) [][]*sdk.Tool {
	t.Helper()
	var pages [][]*sdk.Tool
	params := &sdk.ListToolsParams{}
	for {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		res, err := cs.ListTools(ctx, params)
		cancel()
		require.NoError(t, err)
		pages = append(pages, res.Tools)
		if res.NextCursor == "" {
			return pages
		}
		require.Less(t, len(pages), 100_000, "pagination does not end")
		params = &sdk.ListToolsParams{Cursor: res.NextCursor}
	}
}

func toolNames(pages [][]*sdk.Tool) []string {
	var out []string
	for _, p := range pages {
		for _, t := range p {
			out = append(out, t.Name)
		}
	}
	return out
}

// TestPaginateAll10kToolsOnceSorted: a go-sdk client following the
// cursors gets each of 10,000 tools exactly once, sorted by name, in
// pages of the SDK's default size, each with its own title and schema.
func TestPaginateAll10kToolsOnceSorted(t *testing.T) {
	_, srv := buildOurs(t, scaleN, mcpserver.Options{})
	s := connect(t, srv)
	pages := listPages(t, s.cs)
	require.Len(t, pages, scaleN/sdk.DefaultPageSize, "pages of mcp.DefaultPageSize")
	for _, p := range pages {
		assert.Len(t, p, sdk.DefaultPageSize)
	}
	got := toolNames(pages)
	want := make([]string, scaleN)
	for i := range want {
		want[i] = scaleName(i)
	}
	require.Equal(t, want, got, "every tool once, sorted by name")
	tool := pages[3][17]
	assert.Equal(t, "Tool "+tool.Name, tool.Title)
	in, err := json.Marshal(tool.InputSchema)
	require.NoError(t, err)
	assert.Contains(t, string(in), `"query"`)
}

// TestRunTimeChangesNotifyAndRelist: with 2,500 tools served (three
// pages), adding a
// pack, removing one tool and removing the pack each send
// notifications/tools/list_changed, and the next tools/list shows exactly
// the registry's tools; a removed tool is an unknown tool.
func TestRunTimeChangesNotifyAndRelist(t *testing.T) {
	const n = 2500
	reg, srv := buildOurs(t, n, mcpserver.Options{})
	s := connect(t, srv)
	require.Len(t, toolNames(listPages(t, s.cs)), n)

	pack := &registry.Pack{Name: "extra", Description: "Three more."}
	for _, n := range []string{"aaa_first", "tool_01000x", "zzz_last"} {
		pack.Tools = append(pack.Tools, scaleTool(t, n))
	}
	require.NoError(t, reg.AddPack(pack))
	s.waitChanged(t)
	relisted := func() []string {
		names := toolNames(listPages(t, s.cs))
		want := make([]string, 0, len(names))
		for _, tool := range reg.List() {
			want = append(want, tool.Name)
		}
		require.Equal(t, want, names, "the listing is the registry's tools, sorted")
		return names
	}
	names := relisted()
	assert.Equal(t, "aaa_first", names[0])
	assert.Equal(t, "zzz_last", names[len(names)-1])
	assert.Contains(t, names, "tool_01000x")

	res, err := s.call(t, "tool_01000x", map[string]any{"query": "q", "limit": 3, "mode": "fast"})
	require.NoError(t, err)
	assert.False(t, res.IsError)

	require.NoError(t, reg.Remove("tool_00042"))
	s.waitChanged(t)
	assert.NotContains(t, relisted(), "tool_00042")
	_, err = s.call(t, "tool_00042", map[string]any{"query": "q", "limit": 3, "mode": "fast"})
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr), "a removed tool is unknown: %v", err)
	assert.Equal(t, int64(jsonrpc.CodeInvalidParams), werr.Code)

	require.NoError(t, reg.RemovePack("extra"))
	s.waitChanged(t)
	assert.Len(t, relisted(), n-1)
}

// TestHostToolsMergedShadowedPaged: on a host's server, Register's tools
// and the host's own are listed together, sorted, in pages of
// Options.PageSize; a registry tool hides the host tool of the same name
// (in the listing and in calls) until it is unregistered.
func TestHostToolsMergedShadowedPaged(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "host"}, &sdk.ServerOptions{Logger: discardLogger(), PageSize: 3})
	hostTool := func(name string) {
		srv.AddTool(&sdk.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "host " + name}}}, nil
			})
	}
	for _, n := range []string{"b_host", "greet", "m_host", "n_host", "z_host"} {
		hostTool(n)
	}
	reg := newTestRegistry(t) // crash, greet, lookup, stats, strict
	unregister := mcpserver.Register(srv, reg, mcpserver.Options{PageSize: 3, Logger: discardLogger()})
	s := connect(t, srv)

	pages := listPages(t, s.cs)
	want := []string{"b_host", "crash", "greet", "lookup", "m_host", "n_host", "stats", "strict", "z_host"}
	assert.Equal(t, want, toolNames(pages))
	for _, p := range pages[:len(pages)-1] {
		assert.Len(t, p, 3, "full pages of Options.PageSize")
	}
	for _, p := range pages {
		for _, tool := range p {
			if tool.Name == "greet" {
				assert.Equal(t, "Greet", tool.Title, "the registry's greet, not the host's")
			}
		}
	}
	res, err := s.call(t, "greet", map[string]any{"name": "Al", "times": 1})
	require.NoError(t, err)
	assert.Equal(t, "# Hello\n\nHello, Al! ", text(t, res))
	res, err = s.call(t, "m_host", nil)
	require.NoError(t, err)
	assert.Equal(t, "host m_host", text(t, res), "the host's own tools still answer")

	unregister()
	s.waitChanged(t)
	assert.Equal(t, []string{"b_host", "greet", "m_host", "n_host", "z_host"}, toolNames(listPages(t, s.cs)))
	res, err = s.call(t, "greet", nil)
	require.NoError(t, err)
	assert.Equal(t, "host greet", text(t, res), "the host's greet is back")
}

// TestDispatchToolNeverListed: the adapter's internal tool shows in no
// listing, with or without registry tools, and calling it by name is an
// unknown tool.
func TestDispatchToolNeverListed(t *testing.T) {
	for _, reg := range []*registry.Registry{newTestRegistry(t), registry.New(registry.Options{Logger: discardLogger()})} {
		s := newSession(t, reg, mcpserver.Options{Logger: discardLogger()})
		names := toolNames(listPages(t, s.cs))
		assert.Len(t, names, len(reg.List()))
		assert.NotContains(t, names, "toolpack.mcpserver.dispatch")
		_, err := s.call(t, "toolpack.mcpserver.dispatch", map[string]any{})
		var werr *jsonrpc.Error
		require.True(t, errors.As(err, &werr), "%v", err)
		assert.Equal(t, int64(jsonrpc.CodeInvalidParams), werr.Code)
		assert.Contains(t, werr.Message, "unknown tool")
	}
}

// TestInvalidCursorIsInvalidParams: a cursor no server wrote, or one far
// longer than any server writes, is refused with JSON-RPC invalid params,
// as the SDK refuses a cursor it cannot read.
func TestInvalidCursorIsInvalidParams(t *testing.T) {
	s := newSession(t, newTestRegistry(t), mcpserver.Options{Logger: discardLogger()})
	for _, c := range []string{"bogus", strings.Repeat("A", 4096)} {
		_, err := s.cs.ListTools(context.Background(), &sdk.ListToolsParams{Cursor: c})
		var werr *jsonrpc.Error
		require.True(t, errors.As(err, &werr), "%v", err)
		assert.Equal(t, int64(jsonrpc.CodeInvalidParams), werr.Code)
	}
}

// TestPageSizeOption: Options.PageSize sets the page length; a negative
// value is logged naming the field and the SDK's default is used.
func TestPageSizeOption(t *testing.T) {
	reg, srv := buildOurs(t, 25, mcpserver.Options{PageSize: 7})
	pages := listPages(t, connect(t, srv).cs)
	assert.Len(t, pages, 4)
	assert.Len(t, pages[3], 4)
	assert.Len(t, toolNames(pages), len(reg.List()))

	logs := &syncBuffer{}
	srv = mcpserver.NewServer(reg, mcpserver.Options{PageSize: -1, Logger: slogTo(logs)})
	assert.Contains(t, logs.String(), "Options.PageSize")
	assert.Len(t, listPages(t, connect(t, srv).cs), 1, "25 tools fit one default page")
}

// TestConcurrentChangesConverge: tools added and removed from many
// goroutines at once (their change reports may arrive out of order) end
// with exactly the registry's tools served.
func TestConcurrentChangesConverge(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	s := newSession(t, reg, mcpserver.Options{Logger: discardLogger()})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				name := fmt.Sprintf("t_%d_%d", g, i%5)
				if err := reg.Add(scaleTool(t, name)); err != nil {
					_ = reg.Remove(name)
				}
			}
		})
	}
	wg.Wait()
	var want []string
	for _, tool := range reg.List() {
		want = append(want, tool.Name)
	}
	got := toolNames(listPages(t, s.cs))
	assert.Equal(t, want, got)
	for _, name := range got {
		res, err := s.call(t, name, map[string]any{"query": "q", "limit": 1, "mode": "exact"})
		require.NoError(t, err, name)
		assert.False(t, res.IsError, name)
	}
	assert.True(t, slices.IsSorted(got))
}

// TestRegisterOnLiveServerNotifies: registering a registry on a server
// that already has a client (and advertises tools with listChanged, so the
// client listens) tells the client, and its next listing holds the
// registry's tools.
func TestRegisterOnLiveServerNotifies(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "host"}, &sdk.ServerOptions{
		Logger:       discardLogger(),
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
	})
	s := connect(t, srv)
	assert.Empty(t, toolNames(listPages(t, s.cs)))
	reg := newTestRegistry(t)
	mcpserver.Register(srv, reg, mcpserver.Options{Logger: discardLogger()})
	s.waitChanged(t)
	assert.Len(t, toolNames(listPages(t, s.cs)), len(reg.List()))
	res, err := s.call(t, "greet", map[string]any{"name": "Li", "times": 1})
	require.NoError(t, err)
	assert.Equal(t, "# Hello\n\nHello, Li! ", text(t, res))
}
