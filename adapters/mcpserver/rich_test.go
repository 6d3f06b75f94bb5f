package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

var (
	pngBytes = []byte("\x89PNG\r\n\x1a\nfake")
	wavBytes = []byte("RIFF\x00\x00\x00\x00WAVEfake")
)

// richRegistry holds one tool per content kind, a mixed one, an invalid
// one, and the talk-back tools; talkErrs records what the talk-back calls
// returned.
type talkRecorder struct {
	mu   sync.Mutex
	errs []error
}

func (r *talkRecorder) add(err error) {
	r.mu.Lock()
	r.errs = append(r.errs, err)
	r.mu.Unlock()
}

func (r *talkRecorder) all() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs...)
}

// connectVersion connects c to srv in memory asking for protocol version v
// ("" for the SDK's latest).
func connectVersion(t *testing.T, srv *sdk.Server, c *sdk.Client, v string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := c.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: v})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

// talkVersion is the protocol version of the talk-back tests: the one the
// official conformance suite speaks. From 2026-07-28 on, a server may no
// longer send requests while it serves one (see
// TestTalkBackOnNewestProtocolFailsClearly).
const talkVersion = "2025-11-25"

func richTool(t testing.TB, name string, items ...result.Content) *registry.Tool {
	return mustFunc(t, name, func(context.Context, NoArgs) (result.Result[result.Contents], error) {
		return result.Rich(items...), nil
	}, registry.ToolOptions{Doc: "Returns rich content."})
}

func richRegistry(t testing.TB, rec *talkRecorder) *registry.Registry {
	t.Helper()
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	require.NoError(t, reg.Add(
		richTool(t, "image", result.Image(pngBytes, "image/png")),
		richTool(t, "audio", result.Audio(wavBytes, "audio/wav")),
		richTool(t, "text_resource", result.TextResource("test://doc", "text/plain", "hello")),
		richTool(t, "blob_resource", result.BlobResource("test://bin", "application/octet-stream", []byte{0, 1, 2})),
		richTool(t, "link", result.ResourceLink("file:///a.txt", "a.txt", "text/plain", "a file")),
		richTool(t, "mixed", result.Text("chart:"), result.Image(pngBytes, "image/png"), result.TextResource("test://j", "application/json", `{"a":1}`)),
		richTool(t, "invalid", result.Image(pngBytes, "")),
		mustFunc(t, "single", func(context.Context, NoArgs) (result.Result[result.Content], error) {
			return result.Ok(result.Image(pngBytes, "image/png")), nil
		}, registry.ToolOptions{Doc: "One item."}),
		mustFunc(t, "log", func(ctx context.Context, _ NoArgs) (result.Result[string], error) {
			for _, l := range []registry.LogLevel{registry.LogDebug, registry.LogInfo, registry.LogError} {
				rec.add(registry.ClientLog(ctx, l, "at "+string(l)))
			}
			return result.Ok("logged"), nil
		}, registry.ToolOptions{Doc: "Logs at debug, info and error."}),
		mustFunc(t, "sample", func(ctx context.Context, _ NoArgs) (result.Result[string], error) {
			res, err := registry.Sample(ctx, registry.SampleRequest{
				Messages: []registry.SampleMessage{{Role: "user", Content: result.Text("2+2?")}}, MaxTokens: 10, SystemPrompt: "be brief",
			})
			rec.add(err)
			if err != nil {
				return result.Failure[string](err.Error(), result.Unavailable), nil
			}
			return result.Ok(res.Model + ": " + res.Content.Text), nil
		}, registry.ToolOptions{Doc: "Asks the client's model."}),
		mustFunc(t, "elicit", func(ctx context.Context, _ NoArgs) (result.Result[string], error) {
			res, err := registry.Elicit(ctx, registry.ElicitRequest{
				Message: "who?", Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","default":"Ann"},"n":{"type":"integer","default":3}}}`),
			})
			rec.add(err)
			if err != nil {
				return result.Failure[string](err.Error(), result.Unavailable), nil
			}
			b, _ := json.Marshal(res.Content)
			return result.Ok(res.Action + " " + string(b)), nil
		}, registry.ToolOptions{Doc: "Asks the user."}),
	))
	return reg
}

// TestRichContentKindsOverMCP: every content kind reaches a go-sdk client
// as the matching MCP content item, with bytes, MIME type and URI intact,
// and in order when mixed.
func TestRichContentKindsOverMCP(t *testing.T) {
	s := connect(t, mcpserver.NewServer(richRegistry(t, &talkRecorder{}), mcpserver.Options{Logger: discardLogger()}))
	call := func(name string) []sdk.Content {
		res, err := s.call(t, name, map[string]any{})
		require.NoError(t, err)
		require.False(t, res.IsError, name)
		assert.Nil(t, res.StructuredContent, name)
		return res.Content
	}
	img := call("image")
	require.Len(t, img, 1)
	assert.Equal(t, &sdk.ImageContent{Data: pngBytes, MIMEType: "image/png"}, img[0])
	aud := call("audio")
	require.Len(t, aud, 1)
	assert.Equal(t, &sdk.AudioContent{Data: wavBytes, MIMEType: "audio/wav"}, aud[0])
	tr := call("text_resource")
	require.Len(t, tr, 1)
	assert.Equal(t, &sdk.ResourceContents{URI: "test://doc", MIMEType: "text/plain", Text: "hello"}, tr[0].(*sdk.EmbeddedResource).Resource)
	br := call("blob_resource")
	assert.Equal(t, &sdk.ResourceContents{URI: "test://bin", MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2}}, br[0].(*sdk.EmbeddedResource).Resource)
	ln := call("link")
	assert.Equal(t, &sdk.ResourceLink{URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain", Description: "a file"}, ln[0])
	mixed := call("mixed")
	require.Len(t, mixed, 3)
	assert.Equal(t, &sdk.TextContent{Text: "chart:"}, mixed[0])
	assert.IsType(t, &sdk.ImageContent{}, mixed[1])
	assert.IsType(t, &sdk.EmbeddedResource{}, mixed[2])
	single := call("single")
	assert.Equal(t, &sdk.ImageContent{Data: pngBytes, MIMEType: "image/png"}, single[0])
}

// TestRichToolsAdvertiseNoOutputSchema: a tool returning rich content has
// no outputSchema in tools/list (its content is never structured), so a
// client that checks structured content against it accepts the result.
func TestRichToolsAdvertiseNoOutputSchema(t *testing.T) {
	s := connect(t, mcpserver.NewServer(richRegistry(t, &talkRecorder{}), mcpserver.Options{Logger: discardLogger()}))
	tools := s.tools(t)
	for _, name := range []string{"image", "mixed", "single"} {
		require.Contains(t, tools, name)
		assert.Nil(t, tools[name].OutputSchema, name)
	}
}

// TestInvalidRichContentIsProtocolError: an item missing what its kind
// needs (an image without MIME type) is a JSON-RPC error naming it, not a
// broken content item.
func TestInvalidRichContentIsProtocolError(t *testing.T) {
	s := connect(t, mcpserver.NewServer(richRegistry(t, &talkRecorder{}), mcpserver.Options{Logger: discardLogger()}))
	_, err := s.call(t, "invalid", map[string]any{})
	require.Error(t, err)
}

// TestClientLogHonoursLevel: ClientLog sends nothing before the client
// sets a level, and afterwards only messages at or above it.
func TestClientLogHonoursLevel(t *testing.T) {
	rec := &talkRecorder{}
	srv := mcpserver.NewServer(richRegistry(t, rec), mcpserver.Options{Logger: discardLogger()})
	var mu sync.Mutex
	var got []string
	c := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "v0"}, &sdk.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
			mu.Lock()
			got = append(got, string(r.Params.Level)+"|"+r.Params.Logger+"|"+r.Params.Data.(string))
			mu.Unlock()
		},
	})
	cs := connectVersion(t, srv, c, talkVersion)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "log", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.NoError(t, cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "info"}))
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "log", Arguments: map[string]any{}})
	require.NoError(t, err)
	for _, e := range rec.all() {
		require.NoError(t, e)
	}
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 2 }, testTimeout, 5*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"info|log|at info", "error|log|at error"}, got)
}

// TestSamplingAndElicitationWithCapableClient: Sample and Elicit reach a
// client that declared the capabilities (the go-sdk declares them when
// the handlers are set) and return its answers; SEP-1034 defaults reach
// the client in the requested schema.
func TestSamplingAndElicitationWithCapableClient(t *testing.T) {
	rec := &talkRecorder{}
	srv := mcpserver.NewServer(richRegistry(t, rec), mcpserver.Options{Logger: discardLogger()})
	var seenSchema any
	var seenPrompt string
	c := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "v0"}, &sdk.ClientOptions{
		CreateMessageHandler: func(_ context.Context, r *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			seenPrompt = r.Params.SystemPrompt + "/" + r.Params.Messages[0].Content.(*sdk.TextContent).Text
			return &sdk.CreateMessageResult{Role: "assistant", Model: "m1", Content: &sdk.TextContent{Text: "4"}, StopReason: "endTurn"}, nil
		},
		ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			seenSchema = r.Params.RequestedSchema
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Bo", "n": 5}}, nil
		},
	})
	cs := connectVersion(t, srv, c, talkVersion)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "sample", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.False(t, res.IsError, text(t, res))
	assert.Equal(t, "m1: 4", text(t, res))
	assert.Equal(t, "be brief/2+2?", seenPrompt)
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "elicit", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.False(t, res.IsError, text(t, res))
	assert.Equal(t, `accept {"n":5,"name":"Bo"}`, text(t, res))
	b, err := json.Marshal(seenSchema)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"name":{"type":"string","default":"Ann"},"n":{"type":"integer","default":3}}}`, string(b))
}

// TestTalkBackWithoutCapabilityFailsFast: a client without sampling or
// elicitation capability gets no request; the tool's call returns an error
// wrapping registry.ErrUnsupported at once, and the call completes.
func TestTalkBackWithoutCapabilityFailsFast(t *testing.T) {
	rec := &talkRecorder{}
	srv := mcpserver.NewServer(richRegistry(t, rec), mcpserver.Options{Logger: discardLogger()})
	// A client without handlers declares neither capability.
	cs := connectVersion(t, srv, sdk.NewClient(&sdk.Implementation{Name: "c", Version: "v0"}, nil), talkVersion)
	for _, name := range []string{"sample", "elicit"} {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: map[string]any{}})
		cancel()
		require.NoError(t, err)
		assert.True(t, res.IsError, name)
		assert.Contains(t, text(t, res), "capability", name)
	}
	errs := rec.all()
	require.Len(t, errs, 2)
	for _, e := range errs {
		assert.True(t, errors.Is(e, registry.ErrUnsupported), "%v", e)
	}
}

// TestTalkBackOnNewestProtocolFailsClearly: on protocol 2026-07-28, where
// the SDK forbids server requests inside a call, Sample returns the SDK's
// error at once and the call still completes with a readable failure.
func TestTalkBackOnNewestProtocolFailsClearly(t *testing.T) {
	rec := &talkRecorder{}
	srv := mcpserver.NewServer(richRegistry(t, rec), mcpserver.Options{Logger: discardLogger()})
	c := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "v0"}, &sdk.ClientOptions{
		CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			return &sdk.CreateMessageResult{Role: "assistant", Content: &sdk.TextContent{Text: "x"}}, nil
		},
	})
	cs := connectVersion(t, srv, c, "")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "sample", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, text(t, res), "sampling")
	require.Len(t, rec.all(), 1)
	require.Error(t, rec.all()[0])
}

// TestRichContentKeepsToTheClientsProtocolVersion: a go-sdk client pinned
// to each protocol version the SDK negotiates receives only content kinds
// of its version: audio as a blob resource with the same bytes before
// 2025-03-26 (the TypeScript SDK of that time rejects the whole result
// for an "audio" item), a resource link as text before 2025-06-18.
func TestRichContentKeepsToTheClientsProtocolVersion(t *testing.T) {
	srv := mcpserver.NewServer(richRegistry(t, &talkRecorder{}), mcpserver.Options{Logger: discardLogger()})
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(v, func(t *testing.T) {
			cs := connectVersion(t, srv, sdk.NewClient(&sdk.Implementation{Name: "old", Version: "v0"}, nil), v)
			require.Equal(t, v, cs.InitializeResult().ProtocolVersion)
			call := func(name string) sdk.Content {
				ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
				defer cancel()
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: map[string]any{}})
				require.NoError(t, err)
				require.False(t, res.IsError, name)
				require.Len(t, res.Content, 1)
				return res.Content[0]
			}
			switch aud := call("audio"); v {
			case "2024-11-05":
				assert.Equal(t, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "toolpack://audio/1", MIMEType: "audio/wav", Blob: wavBytes}}, aud)
			default:
				assert.Equal(t, &sdk.AudioContent{Data: wavBytes, MIMEType: "audio/wav"}, aud)
			}
			switch ln := call("link"); v {
			case "2024-11-05", "2025-03-26":
				assert.Equal(t, &sdk.TextContent{Text: "Resource link: file:///a.txt (name: a.txt; MIME type: text/plain; description: a file)"}, ln)
			default:
				assert.Equal(t, &sdk.ResourceLink{URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain", Description: "a file"}, ln)
			}
			assert.Equal(t, &sdk.ImageContent{Data: pngBytes, MIMEType: "image/png"}, call("image"), "images exist in every version")
		})
	}
}
