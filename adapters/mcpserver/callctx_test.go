package mcpserver_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// StepsArgs are the arguments of the steps tool.
type StepsArgs struct {
	N int `json:"n" validate:"required,min=1,max=50" description:"How many steps."`
}

// progressRecorder is a steps tool that reports progress at every step
// and records what ReportProgress returned, and the request info it saw.
type progressRecorder struct {
	mu      sync.Mutex
	errs    []error
	request *registry.RequestInfo
}

func (p *progressRecorder) steps(ctx context.Context, a StepsArgs) (result.Result[int], error) {
	p.mu.Lock()
	p.request = registry.Request(ctx)
	p.mu.Unlock()
	for i := 1; i <= a.N; i++ {
		err := registry.ReportProgress(ctx, registry.Progress{Progress: float64(i), Total: float64(a.N), Message: fmt.Sprintf("step %d of %d", i, a.N)})
		p.mu.Lock()
		p.errs = append(p.errs, err)
		p.mu.Unlock()
	}
	return result.Ok(a.N), nil
}

func (p *progressRecorder) seen() ([]error, *registry.RequestInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]error(nil), p.errs...), p.request
}

func progressRegistry(t *testing.T, p *progressRecorder) *registry.Registry {
	t.Helper()
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	require.NoError(t, registry.AddFunc(reg, "steps", p.steps, registry.ToolOptions{Doc: "Counts steps, reporting progress."}))
	return reg
}

// progressClient is an SDK client that records progress notifications.
type progressClient struct {
	*sdk.Client
	got chan *sdk.ProgressNotificationParams
}

func newProgressClient() *progressClient {
	pc := &progressClient{got: make(chan *sdk.ProgressNotificationParams, 100)}
	pc.Client = sdk.NewClient(&sdk.Implementation{Name: "progress-client"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			pc.got <- req.Params
		},
	})
	return pc
}

// expectProgress reads n notifications (bounded in time) and checks they
// carry token and count up to n in order.
func (pc *progressClient) expectProgress(t *testing.T, token any, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		select {
		case p := <-pc.got:
			assert.EqualValues(t, token, p.ProgressToken)
			assert.Equal(t, float64(i), p.Progress, "notification %d in order", i)
			assert.Equal(t, float64(n), p.Total)
			assert.Equal(t, fmt.Sprintf("step %d of %d", i, n), p.Message)
		case <-time.After(testTimeout):
			t.Fatalf("progress notification %d of %d not received", i, n)
		}
	}
}

func connectClient(t *testing.T, srv *sdk.Server, c *sdk.Client) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := c.Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

// TestProgressNotificationsInOrder: a tool's ReportProgress reaches a
// client that sent a progress token as notifications/progress, in order,
// with the token, progress, total and message.
func TestProgressNotificationsInOrder(t *testing.T) {
	p := &progressRecorder{}
	srv := mcpserver.NewServer(progressRegistry(t, p), mcpserver.Options{Logger: discardLogger()})
	pc := newProgressClient()
	cs := connectClient(t, srv, pc.Client)

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	params := &sdk.CallToolParams{Name: "steps", Arguments: map[string]any{"n": 5}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(ctx, params)
	require.NoError(t, err)
	require.False(t, res.IsError, text(t, res))
	pc.expectProgress(t, "tok-1", 5)
	errs, _ := p.seen()
	assert.Equal(t, []error{nil, nil, nil, nil, nil}, errs, "every report was delivered")

	params = &sdk.CallToolParams{Name: "steps", Arguments: map[string]any{"n": 2}}
	params.SetProgressToken(7)
	_, err = cs.CallTool(ctx, params)
	require.NoError(t, err)
	pc.expectProgress(t, 7, 2) // integer tokens come back as sent
}

// TestProgressWithoutTokenSendsNothing: without a progress token,
// ReportProgress returns nil and no notification is sent.
func TestProgressWithoutTokenSendsNothing(t *testing.T) {
	p := &progressRecorder{}
	srv := mcpserver.NewServer(progressRegistry(t, p), mcpserver.Options{Logger: discardLogger()})
	pc := newProgressClient()
	cs := connectClient(t, srv, pc.Client)

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "steps", Arguments: map[string]any{"n": 3}})
	require.NoError(t, err)
	assert.Equal(t, "3", text(t, res))
	errs, _ := p.seen()
	assert.Equal(t, []error{nil, nil, nil}, errs, "reports without a token are a no-op, not an error")
	// A later call with a token proves the channel works: its notifications
	// are the first the client sees.
	params := &sdk.CallToolParams{Name: "steps", Arguments: map[string]any{"n": 1}}
	params.SetProgressToken("later")
	_, err = cs.CallTool(ctx, params)
	require.NoError(t, err)
	pc.expectProgress(t, "later", 1)
	select {
	case extra := <-pc.got:
		t.Fatalf("unexpected notification %+v", extra)
	default:
	}
}

// TestRequestInfoOverInMemory: a handler sees transport "mcp" and the SDK
// request; no headers or auth without HTTP.
func TestRequestInfoOverInMemory(t *testing.T) {
	p := &progressRecorder{}
	srv := mcpserver.NewServer(progressRegistry(t, p), mcpserver.Options{Logger: discardLogger()})
	cs := connectClient(t, srv, sdk.NewClient(&sdk.Implementation{Name: "c"}, nil))
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "steps", Arguments: map[string]any{"n": 1}})
	require.NoError(t, err)
	_, info := p.seen()
	require.NotNil(t, info)
	assert.Equal(t, "mcp", info.Transport)
	assert.Nil(t, info.Header)
	assert.Nil(t, info.Auth)
	req, ok := info.Request.(*sdk.CallToolRequest)
	require.True(t, ok, "Request is the go-sdk request, got %T", info.Request)
	assert.Equal(t, "steps", req.Params.Name)
}

// bearer adds an Authorization header and a custom header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	r.Header.Set("X-Tenant", "acme")
	return b.next.RoundTrip(r)
}

// TestRequestInfoOverStreamableHTTPWithBearerAuth: behind the go-sdk's
// auth.RequireBearerToken, a handler sees the verified token as
// registry.AuthInfo (subject, scopes, expiry, extra claims), the HTTP
// headers and the MCP session id; progress notifications reach the client
// over the request's stream.
func TestRequestInfoOverStreamableHTTPWithBearerAuth(t *testing.T) {
	p := &progressRecorder{}
	srv := mcpserver.NewServer(progressRegistry(t, p), mcpserver.Options{Logger: discardLogger()})
	exp := time.Now().Add(time.Hour).Truncate(time.Second)
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token != "good-token" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: "user-42", Scopes: []string{"tools:call"}, Expiration: exp, Extra: map[string]any{"tenant": "acme"}}, nil
	}
	h := auth.RequireBearerToken(verify, nil)(mcpserver.HTTPHandler(srv, mcpserver.HTTPOptions{}))
	hs := httptest.NewServer(h)
	defer hs.Close()

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	pc := newProgressClient()
	cs, err := pc.Connect(ctx, &sdk.StreamableClientTransport{
		Endpoint:   hs.URL,
		MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token: "good-token", next: http.DefaultTransport}},
	}, nil)
	require.NoError(t, err)
	defer func() { _ = cs.Close() }()

	params := &sdk.CallToolParams{Name: "steps", Arguments: map[string]any{"n": 3}}
	params.SetProgressToken("http-tok")
	res, err := cs.CallTool(ctx, params)
	require.NoError(t, err)
	assert.Equal(t, "3", text(t, res))
	pc.expectProgress(t, "http-tok", 3)

	_, info := p.seen()
	require.NotNil(t, info)
	assert.Equal(t, "mcp", info.Transport)
	assert.NotEmpty(t, info.SessionID)
	assert.Equal(t, cs.ID(), info.SessionID, "the client's session")
	assert.Equal(t, "acme", info.Header.Get("X-Tenant"))
	require.NotNil(t, info.Auth, "the verified token reaches the handler")
	assert.Equal(t, "user-42", info.Auth.Subject)
	assert.Equal(t, []string{"tools:call"}, info.Auth.Scopes)
	assert.True(t, exp.Equal(info.Auth.Expiration))
	assert.Equal(t, map[string]any{"tenant": "acme"}, info.Auth.Extra)

	// Without a valid token the handler is never reached.
	bad := sdk.NewClient(&sdk.Implementation{Name: "bad"}, nil)
	_, err = bad.Connect(ctx, &sdk.StreamableClientTransport{
		Endpoint:   hs.URL,
		MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token: "wrong", next: http.DefaultTransport}},
	}, nil)
	require.Error(t, err)
}

// TestProgressAfterClientGoneIsAnError: a report whose delivery fails (the
// session is closed) returns an error to the handler instead of blocking
// or panicking; the tool may ignore it.
func TestProgressAfterClientGoneIsAnError(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	reported := make(chan error, 1)
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	require.NoError(t, registry.AddFunc(reg, "slow", func(ctx context.Context, _ NoArgs) (result.Result[string], error) {
		close(entered)
		<-release
		reported <- registry.ReportProgress(context.WithoutCancel(ctx), registry.Progress{Progress: 1})
		return result.Ok("done"), nil
	}, registry.ToolOptions{Doc: "Waits, then reports progress."}))
	srv := mcpserver.NewServer(reg, mcpserver.Options{Logger: discardLogger()})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)

	callCtx, callCancel := context.WithCancel(ctx)
	go func() {
		params := &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{}}
		params.SetProgressToken("gone")
		_, _ = cs.CallTool(callCtx, params)
	}()
	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("the call did not reach the handler")
	}
	callCancel() // the client gives up on the call, then goes away
	require.NoError(t, cs.Close())
	close(release) // the server session waits for its handlers: release before waiting
	defer func() { _ = ss.Wait() }()
	select {
	case err := <-reported:
		assert.Error(t, err, "delivery to a closed session fails")
	case <-ctx.Done():
		t.Fatal("ReportProgress blocked after the client went away")
	}
}

// TestProgressMustIncrease: MCP requires every notification's progress to
// be above the previous one; a report that is not is not sent and
// ReportProgress says why.
func TestProgressMustIncrease(t *testing.T) {
	var errs []error
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	require.NoError(t, registry.AddFunc(reg, "wobbly", func(ctx context.Context, _ NoArgs) (result.Result[string], error) {
		for _, v := range []float64{1, 1, 0.5, 2} {
			errs = append(errs, registry.ReportProgress(ctx, registry.Progress{Progress: v, Total: 2, Message: fmt.Sprintf("step %v", v)}))
		}
		return result.Ok("done"), nil
	}, registry.ToolOptions{Doc: "Reports progress that goes back."}))
	srv := mcpserver.NewServer(reg, mcpserver.Options{Logger: discardLogger()})
	pc := newProgressClient()
	cs := connectClient(t, srv, pc.Client)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	params := &sdk.CallToolParams{Name: "wobbly", Arguments: map[string]any{}}
	params.SetProgressToken("w")
	_, err := cs.CallTool(ctx, params)
	require.NoError(t, err)

	require.Len(t, errs, 4)
	assert.NoError(t, errs[0])
	for _, e := range errs[1:3] {
		require.Error(t, e)
		assert.Contains(t, e.Error(), "MCP requires it to increase")
	}
	assert.NoError(t, errs[3])
	for _, want := range []float64{1, 2} {
		select {
		case p := <-pc.got:
			assert.Equal(t, want, p.Progress)
		case <-time.After(testTimeout):
			t.Fatalf("progress %v not received", want)
		}
	}
	select {
	case p := <-pc.got:
		t.Fatalf("a non-increasing report was sent: %+v", p)
	case <-time.After(50 * time.Millisecond): // nothing more is coming; a late one would fail the test, never pass it wrongly
	}
}
