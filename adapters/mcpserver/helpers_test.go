package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/args"
	"github.com/toolpack-go/toolpack/internal/testlog"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// testTimeout bounds every client call in these tests.
const testTimeout = 10 * time.Second

// secret is planted in a protocol failure; it must never reach a client.
const secret = "hunter2-s3cr3t-token"

// GreetArgs are the arguments of the greet tool (a text tool).
type GreetArgs struct {
	Name  string `json:"name" validate:"required,min=2,max=20" description:"Who to greet."`
	Times int    `json:"times" validate:"required,min=1,max=3" description:"How many times."`
}

// StatsArgs are the arguments of the stats tool (a structured tool).
type StatsArgs struct {
	Values []float64 `json:"values" validate:"required,min=1,max=10" description:"Numbers to summarise."`
}

// Stats is the structured value of the stats tool.
type Stats struct {
	Count int     `json:"count"`
	Sum   float64 `json:"sum"`
}

// LookupArgs are the arguments of the lookup tool (domain failures).
type LookupArgs struct {
	Key string `json:"key" validate:"required" description:"The key to look up."`
}

// NoArgs is an argument struct without fields.
type NoArgs struct{}

func greet(_ context.Context, a GreetArgs) (result.Result[string], error) {
	return result.Ok("# Hello\n\n" + strings.Repeat("Hello, "+a.Name+"! ", a.Times)), nil
}

func stats(_ context.Context, a StatsArgs) (result.Result[Stats], error) {
	s := Stats{Count: len(a.Values)}
	for _, v := range a.Values {
		s.Sum += v
	}
	return result.Ok(s), nil
}

func lookup(_ context.Context, a LookupArgs) (result.Result[string], error) {
	return result.Failuref[string](result.NotFound, "no entry for key %q", a.Key).
		WithInstruction("Ask the user for an existing key."), nil
}

func crash(_ context.Context, _ NoArgs) (result.Result[string], error) {
	return result.Result[string]{}, errors.New("database unreachable: password=" + secret)
}

// rawRecorder is a hand-built tool (no Decode) that records the raw
// arguments it was called with.
type rawRecorder struct {
	mu  sync.Mutex
	raw []json.RawMessage
}

func (r *rawRecorder) tool() *registry.Tool {
	return &registry.Tool{
		Name:        "echo_raw",
		Description: "Returns its raw arguments.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
		Source:      registry.SourceLocal,
		Handler: func(_ context.Context, c *registry.Call) (result.Result[any], error) {
			r.mu.Lock()
			r.raw = append(r.raw, append(json.RawMessage(nil), c.Raw...))
			r.mu.Unlock()
			return result.Ok[any](string(c.Raw)), nil
		},
	}
}

func (r *rawRecorder) calls() []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]json.RawMessage(nil), r.raw...)
}

// manualValidation is a hand-built tool whose Decode rejects every call
// with two field errors, so the mapping of validation failures is tested
// independently of the args package.
func manualValidation() *registry.Tool {
	return &registry.Tool{
		Name:        "strict",
		Description: "Rejects every call.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"additionalProperties":false}`),
		Decode: func(json.RawMessage) (any, error) {
			return nil, &args.ValidationError{Errors: []args.FieldError{
				{Field: "a", Rule: "min", Message: "must be at least 3 characters long"},
				{Field: "b", Rule: "max", Message: "must be at most 10"},
			}}
		},
		Handler: func(context.Context, *registry.Call) (result.Result[any], error) {
			return result.Ok[any]("unreachable"), nil
		},
	}
}

func mustFunc[A, R any](t testing.TB, name string, fn func(context.Context, A) (result.Result[R], error), o registry.ToolOptions) *registry.Tool {
	t.Helper()
	tool, err := registry.Func(name, fn, o)
	require.NoError(t, err)
	return tool
}

// newTestRegistry returns a registry (no name prefix) holding the test tools.
func newTestRegistry(t testing.TB, extra ...*registry.Tool) *registry.Registry {
	t.Helper()
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	tools := []*registry.Tool{
		mustFunc(t, "greet", greet, registry.ToolOptions{
			Title: "Greet", Doc: "Greets someone in Markdown.",
			Annotations: registry.Annotations{ReadOnly: new(true), OpenWorld: new(false)},
		}),
		mustFunc(t, "stats", stats, registry.ToolOptions{Title: "Stats", Doc: "Counts and sums numbers."}),
		mustFunc(t, "lookup", lookup, registry.ToolOptions{Doc: "Looks a key up.",
			Annotations: registry.Annotations{Destructive: new(false), Idempotent: new(true)}}),
		mustFunc(t, "crash", crash, registry.ToolOptions{Doc: "Always fails with a protocol error."}),
		manualValidation(),
	}
	require.NoError(t, reg.Add(append(tools, extra...)...))
	return reg
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct{ testlog.Buffer }

// session is a connected in-memory client.
type session struct {
	cs      *sdk.ClientSession
	changed chan struct{}
}

// connect serves srv over in-memory transports and connects a real SDK
// client that reports list-changed notifications on changed.
func connect(t testing.TB, srv *sdk.Server) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	s := &session{changed: make(chan struct{}, 16)}
	client := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "v0"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case s.changed <- struct{}{}:
			default:
			}
		},
	})
	s.cs, err = client.Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = s.cs.Close()
		done := make(chan struct{})
		go func() {
			_ = ss.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(testTimeout):
			t.Errorf("the server session did not end within %v of the client closing", testTimeout)
		}
	})
	return s
}

func (s *session) call(t testing.TB, name string, arguments any) (*sdk.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	return s.cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: arguments})
}

func (s *session) tools(t testing.TB) map[string]*sdk.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	res, err := s.cs.ListTools(ctx, nil)
	require.NoError(t, err)
	out := map[string]*sdk.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

func (s *session) waitChanged(t testing.TB) {
	t.Helper()
	select {
	case <-s.changed:
	case <-time.After(testTimeout):
		t.Fatal("no notifications/tools/list_changed within the test timeout")
	}
}

// text returns the only content of res, which must be text.
func text(t testing.TB, res *sdk.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1, "exactly one content")
	tc, ok := res.Content[0].(*sdk.TextContent)
	require.True(t, ok, "content is %T, want *TextContent", res.Content[0])
	return tc.Text
}

func slogTo(w *syncBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
