package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpserver"
	"github.com/toolpack-go/toolpack/adapters/mcpstdio"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// rawPeer is a client that writes raw lines to a server and reads its raw
// answers, to test the transport's framing and error answers byte by byte.
type rawPeer struct {
	t    *testing.T
	in   io.Writer // to the server
	out  *bufio.Reader
	done chan error // Run's result
}

// startRaw serves the test registry with tr wired to fresh os.Pipe pairs
// (polled files: the transport reads them directly) and returns the peer.
// The server stops when the test ends.
func startRaw(t *testing.T, mk func(r io.Reader, w io.Writer) sdk.Transport) *rawPeer {
	t.Helper()
	sr, cw, err := os.Pipe() // client → server
	require.NoError(t, err)
	cr, sw, err := os.Pipe() // server → client
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Display: mcpserver.DisplayValue, Logger: discardLogger()})
	p := &rawPeer{t: t, in: cw, out: bufio.NewReader(cr), done: make(chan error, 1)}
	go func() { p.done <- srv.Run(ctx, mk(sr, sw)) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-p.done:
		case <-time.After(testTimeout):
			t.Error("the server did not stop within the test timeout")
		}
		for _, f := range []*os.File{sr, cw, cr, sw} {
			_ = f.Close()
		}
	})
	return p
}

func (p *rawPeer) send(line string) {
	p.t.Helper()
	_, err := io.WriteString(p.in, line)
	require.NoError(p.t, err)
}

// recv reads one line from the server, within the test timeout.
func (p *rawPeer) recv() map[string]any {
	p.t.Helper()
	type lineOrErr struct {
		s   string
		err error
	}
	ch := make(chan lineOrErr, 1)
	go func() {
		s, err := p.out.ReadString('\n')
		ch <- lineOrErr{s, err}
	}()
	select {
	case l := <-ch:
		require.NoError(p.t, l.err)
		var m map[string]any
		require.NoError(p.t, json.Unmarshal([]byte(l.s), &m), "every line the server writes is one JSON object: %q", l.s)
		return m
	case <-time.After(testTimeout):
		p.t.Fatal("no answer from the server within the test timeout")
		return nil
	}
}

// initialize performs the MCP handshake.
func (p *rawPeer) initialize() {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}` + "\n")
	m := p.recv()
	require.EqualValues(p.t, 1, m["id"])
	require.Contains(p.t, m, "result")
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
}

// errorOf asserts m is a JSON-RPC error answer and returns its id, code and
// message.
func errorOf(t *testing.T, m map[string]any) (id any, code float64, msg string) {
	t.Helper()
	require.Equal(t, "2.0", m["jsonrpc"])
	require.Contains(t, m, "id", "an error answer always has an id member (null when unknown)")
	e, ok := m["error"].(map[string]any)
	require.True(t, ok, "an error answer: %v", m)
	return m["id"], e["code"].(float64), e["message"].(string)
}

func ioTransport(r io.Reader, w io.Writer) sdk.Transport {
	return &mcpstdio.IOTransport{Reader: r, Writer: w, Logger: discardLogger()}
}

func TestTransport_RoundTripWithSDKClient(t *testing.T) {
	sr, cw, err := os.Pipe()
	require.NoError(t, err)
	cr, sw, err := os.Pipe()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Display: mcpserver.DisplayValue, Logger: discardLogger()})
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, &mcpstdio.IOTransport{Reader: sr, Writer: sw}) }()

	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c"}, nil).Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	require.NoError(t, err)
	for i := range 20 { // several calls on one session: framing stays in step
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Pipe", "times": 1 + i%3}})
		require.NoError(t, err)
		assert.Equal(t, "# Hello\n\n"+strings.Repeat("Hello, Pipe! ", 1+i%3), text(t, res))
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "x"}})
	require.NoError(t, err)
	assert.True(t, res.IsError, "validation failures still map to isError")
	require.NoError(t, cs.Close())
	select {
	case err := <-done:
		assert.NoError(t, err, "the client closing its side ends the session cleanly")
	case <-ctx.Done():
		t.Fatal("Run did not return after the client closed")
	}
}

func TestTransport_MalformedLinesAnsweredSessionContinues(t *testing.T) {
	p := startRaw(t, ioTransport)
	p.initialize()
	cases := []struct {
		line   string
		wantID any
		code   float64
		inMsg  string
	}{
		{"not json at all", nil, -32700, "parse error"},
		{`{"jsonrpc":"2.0","id":3,"method":`, nil, -32700, "parse error"},
		{`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, nil, -32600, "batches are not supported"},
		{`"a string"`, nil, -32600, "must be a JSON object"},
		{`{"id":5,"method":"ping"}`, 5.0, -32600, `"jsonrpc" must be "2.0"`},
		{`{"jsonrpc":"1.0","id":"s6","method":"ping"}`, "s6", -32600, `"jsonrpc" must be "2.0"`},
		{`{"jsonrpc":"2.0","id":7,"method":42}`, 7.0, -32600, `"method" must be a string`},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, nil, -32600, `"id" must be a string, a number or null`},
		{`{"jsonrpc":"2.0"}`, nil, -32600, `needs a "method" or an "id"`},
		{`{"jsonrpc":"2.0","id":9,"error":"nope"}`, nil, -32600, `"error" must be a JSON-RPC error object`}, // a response's id is the server's
		{`{"jsonrpc":"2.0","id":11,"method":"ping","error":"nope"}`, 11.0, -32600, `"error" must be a JSON-RPC error object`},
		{`{"jsonrpc":"2.0","id":12,"method":"ping"}` + "\u00a0", nil, -32700, "parse error"}, // only JSON whitespace is trimmed
	}
	for _, c := range cases {
		p.send("\n  \n" + c.line + "\n") // blank lines before it are skipped, never answered
		id, code, msg := errorOf(t, p.recv())
		assert.Equal(t, c.wantID, id, "id of the answer to %s", c.line)
		assert.Equal(t, c.code, code, "code of the answer to %s", c.line)
		assert.Contains(t, msg, c.inMsg, "message of the answer to %s", c.line)
	}
	// The session is still alive, and a CRLF line ending is accepted.
	p.send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Crlf","times":1}}}` + "\r\n")
	m := p.recv()
	assert.EqualValues(t, 10, m["id"])
	assert.Contains(t, m, "result")
}

func TestTransport_OverlongLineRejectedSessionContinues(t *testing.T) {
	const limit = 100 << 10 // above the 64 KiB read buffer, so long lines span reads
	p := startRaw(t, func(r io.Reader, w io.Writer) sdk.Transport {
		return &mcpstdio.IOTransport{Reader: r, Writer: w, MaxMessageBytes: limit, Logger: discardLogger()}
	})
	p.initialize()
	call := func(id int, name string) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"greet","arguments":{"name":"` + name + `"}}}`
	}
	// Exactly at the cap: accepted, whole, with either line ending.
	for i, ending := range []string{"\n", "\r\n"} {
		fits := call(2+10*i, strings.Repeat("a", limit-len(call(2+10*i, ""))))
		require.Len(t, fits, limit)
		p.send(fits + ending)
		m := p.recv()
		assert.EqualValues(t, 2+10*i, m["id"])
		assert.Contains(t, m, "result", "a message of exactly MaxMessageBytes is read (line ending %q)", ending)
	}

	// One byte over, then far over: both rejected without the session ending.
	for i, n := range []int{limit + 1, 3 * limit} {
		over := call(3+i, strings.Repeat("b", n-len(call(3+i, ""))))
		require.Len(t, over, n)
		p.send(over + "\n")
		id, code, msg := errorOf(t, p.recv())
		assert.Nil(t, id, "an over-long line is not parsed, so its id is unknown")
		assert.Equal(t, -32600.0, code)
		assert.Contains(t, msg, "longer than 102400 bytes")
	}
	p.send(call(9, "after") + "\n")
	m := p.recv()
	assert.EqualValues(t, 9, m["id"], "the line after an over-long one is read from its start")
	assert.Contains(t, m, "result")
}

func TestTransport_MalformedInputLoggedWithoutContent(t *testing.T) {
	logs := &syncBuffer{}
	p := startRaw(t, func(r io.Reader, w io.Writer) sdk.Transport {
		return &mcpstdio.IOTransport{Reader: r, Writer: w, Logger: slogTo(logs)}
	})
	p.initialize()
	p.send(`{"jsonrpc":"1.0","id":1,"method":"x","params":{"token":"` + secret + `"}}` + "\n")
	errorOf(t, p.recv())
	p.send("garbage " + secret + "\n")
	errorOf(t, p.recv())
	assert.Contains(t, logs.String(), "level=WARN")
	assert.Contains(t, logs.String(), "malformed JSON-RPC message")
	assert.NotContains(t, logs.String(), secret, "the line's content is never logged")
}

func TestTransport_CancelInterruptsPendingRead(t *testing.T) {
	for _, mode := range []string{"polled os.Pipe", "io.Pipe via goroutine"} {
		t.Run(mode, func(t *testing.T) {
			var r io.ReadCloser
			var keep io.Closer
			if mode == "polled os.Pipe" {
				pr, pw, err := os.Pipe()
				require.NoError(t, err)
				r, keep = pr, pw
			} else {
				pr, pw := io.Pipe()
				r, keep = pr, pw
			}
			defer keep.Close() // the client side stays open: only cancellation can end the read
			srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Logger: discardLogger()})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- srv.Run(ctx, &mcpstdio.IOTransport{Reader: r, Writer: io.Discard}) }()
			time.Sleep(20 * time.Millisecond) // let Run block in its read
			cancel()
			select {
			case <-done:
			case <-time.After(testTimeout):
				t.Fatal("Run did not return after its context was cancelled")
			}
			_, err := r.Read(make([]byte, 1))
			assert.Error(t, err, "the reader was closed when the session ended")
		})
	}
}

func TestTransport_RequiresReaderAndWriter(t *testing.T) {
	_, err := (&mcpstdio.IOTransport{Writer: io.Discard}).Connect(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Reader and Writer are both required")
	_, err = (&mcpstdio.IOTransport{Reader: strings.NewReader("")}).Connect(context.Background())
	require.Error(t, err)
}

// callThenClose serves srv over a pipe, writes the handshake and a call of
// tool, closes the client's side, and fails unless Run returns within the
// test timeout.
func callThenClose(t *testing.T, srv *sdk.Server, drain time.Duration, tool string) {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- srv.Run(ctx, &mcpstdio.IOTransport{Reader: pr, Writer: io.Discard, DrainTimeout: drain, Logger: discardLogger()})
	}()
	_, err := io.WriteString(pw, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`+"\n")
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("the session did not end after the client closed its side")
	}
}

// TestTransport_EndOfInputWithCallsThatCannotFinish: the client writes a
// call and closes its side; the session still ends, promptly, when the tool
// waits for the call to be cancelled (which only the end of the session
// does) or calls the client back (whose answer can no longer come).
func TestTransport_EndOfInputWithCallsThatCannotFinish(t *testing.T) {
	untilCancelled := &registry.Tool{
		Name: "wait", Description: "Waits until cancelled.", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ *registry.Call) (result.Result[any], error) {
			<-ctx.Done()
			return result.Result[any]{}, ctx.Err()
		},
	}
	t.Run("tool waits for cancellation, wait bounded", func(t *testing.T) {
		callThenClose(t, mcpserver.NewServer(newTestRegistry(t, untilCancelled), mcpserver.Options{Logger: discardLogger()}), 50*time.Millisecond, "wait")
	})
	t.Run("tool waits for cancellation, no wait", func(t *testing.T) {
		callThenClose(t, mcpserver.NewServer(newTestRegistry(t, untilCancelled), mcpserver.Options{Logger: discardLogger()}), -1, "wait")
	})
	t.Run("tool calls the client back", func(t *testing.T) {
		srv := sdk.NewServer(&sdk.Implementation{Name: "s"}, &sdk.ServerOptions{Logger: discardLogger()})
		srv.AddTool(&sdk.Tool{Name: "callback", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				err := req.Session.Ping(ctx, nil)
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(err)}}}, nil
			})
		// A wait far beyond the test's timeout: only the server's own call
		// can end it early.
		callThenClose(t, srv, time.Hour, "callback")
	})
}

func TestTransport_EndOfInputEndsSession(t *testing.T) {
	// The client's side ends after a partial line: Run returns (cleanly),
	// it does not wait for the rest of the line.
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":2,`)
	srv := mcpserver.NewServer(newTestRegistry(t), mcpserver.Options{Logger: discardLogger()})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	err := srv.Run(ctx, &mcpstdio.IOTransport{Reader: in, Writer: io.Discard, Logger: discardLogger()})
	require.NoError(t, ctx.Err(), "Run returned at the end of input, not at the deadline")
	assert.NoError(t, err)
}
