package mcpstdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/internal/testlog"
	"pgregory.net/rapid"
)

// member generates one JSON-RPC member's raw value, or "" for absent, from
// the values that matter to decoding: valid ones, wrong types, null.
func member(t *rapid.T, name string, values ...string) string {
	return rapid.SampledFrom(append([]string{""}, values...)).Draw(t, name)
}

// genMessage generates a JSON object that may or may not be a valid
// JSON-RPC 2.0 message: every member is drawn independently, including
// wrong types, nulls, case variants of member names (which must not
// match) and unknown members (which are ignored).
func genMessage(t *rapid.T) []byte {
	text := rapid.String().Draw(t, "text")
	quoted, _ := json.Marshal(text)
	members := []struct{ key, val string }{
		{"jsonrpc", member(t, "jsonrpc", `"2.0"`, `"2.0"`, `"1.0"`, `2`, `null`)},
		{"id", member(t, "id", `1`, `0`, `-7`, `42.9`, `1e3`, `"abc"`, `""`, string(quoted), `null`, `true`, `{}`, `[]`)},
		{"method", member(t, "method", `"tools/call"`, `"ping"`, `""`, string(quoted), `null`, `5`, `{}`)},
		{"params", member(t, "params", `{}`, `{"name":"x","arguments":{"a":[1,2,{"b":null}]}}`, `[]`, `null`, `"p"`, `{"t":`+string(quoted)+`}`)},
		{"result", member(t, "result", `{}`, `{"content":[]}`, `null`, `3`, `"r"`)},
		{"error", member(t, "error", `{"code":-32601,"message":"m"}`, `{"code":1,"message":"m","data":{"x":1}}`, `null`, `"e"`, `{"code":"x"}`, `{"code":1.5}`)},
		{"Method", member(t, "Method", `"ping"`)},
		{"ID", member(t, "ID", `3`)},
		{"extra", member(t, "extra", `{"nested":[true,false]}`, string(quoted))},
	}
	order := rapid.Permutation(members).Draw(t, "order")
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, m := range order {
		if m.val == "" {
			continue
		}
		if !first {
			b.WriteString(rapid.SampledFrom([]string{",", " , ", ",\t"}).Draw(t, "sep"))
		}
		first = false
		b.WriteString(`"` + m.key + `":` + m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// sameMessage reports whether two decoded messages are equal member by
// member (raw members byte for byte).
func sameMessage(t require.TestingT, want, got jsonrpc.Message) {
	switch w := want.(type) {
	case *jsonrpc.Request:
		g, ok := got.(*jsonrpc.Request)
		require.True(t, ok, "want a request, got %T", got)
		assert.Equal(t, w.ID, g.ID)
		assert.Equal(t, w.Method, g.Method)
		assert.Equal(t, string(w.Params), string(g.Params))
	case *jsonrpc.Response:
		g, ok := got.(*jsonrpc.Response)
		require.True(t, ok, "want a response, got %T", got)
		assert.Equal(t, w.ID, g.ID)
		assert.Equal(t, string(w.Result), string(g.Result))
		if w.Error == nil {
			assert.Nil(t, g.Error)
		} else {
			var we, ge *jsonrpc.Error
			require.True(t, errors.As(w.Error, &we), "SDK error is %T", w.Error)
			require.True(t, errors.As(g.Error, &ge), "transport error is %T", g.Error)
			assert.Equal(t, we.Code, ge.Code)
			assert.Equal(t, we.Message, ge.Message)
			assert.Equal(t, string(we.Data), string(ge.Data))
		}
	default:
		require.Failf(t, "unexpected message type", "%T", want)
	}
}

// TestDecodeMessage_AgreesWithSDK: for generated objects, the transport's
// one-pass decoder accepts exactly what jsonrpc.DecodeMessage accepts and
// produces the same message; what the SDK refuses is answered (a
// *rejection), never passed on.
func TestDecodeMessage_AgreesWithSDK(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		data := genMessage(rt)
		want, werr := sdkDecode(data)
		got, re := decodeMessage(data)
		if werr != nil {
			if re == nil {
				rt.Fatalf("SDK refuses %s (%v) but the transport gave %v", data, werr, got)
			}
			return
		}
		if re != nil {
			rt.Fatalf("SDK accepts %s but the transport refuses it: %s", data, re.msg)
		}
		sameMessage(rt, want, got)
	})
}

// TestDecodeMessage_RefusesNonObjects covers the inputs genMessage never
// makes: not JSON, arrays (batches), scalars, trailing data.
func TestDecodeMessage_RefusesNonObjects(t *testing.T) {
	for in, code := range map[string]int64{
		`nope`:                    codeParseError,
		`{"jsonrpc":"2.0","id":1`: codeParseError,
		`{"jsonrpc":"2.0","id":1,"method":"ping"} {}`: codeParseError,
		`[`:  codeParseError,
		`[]`: codeInvalidRequest,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`: codeInvalidRequest,
		`"x"`:  codeInvalidRequest,
		`12`:   codeInvalidRequest,
		`null`: codeInvalidRequest,
	} {
		_, re := decodeMessage([]byte(in))
		require.NotNil(t, re, "%s is refused", in)
		assert.Equal(t, code, re.code, "code for %s", in)
		assert.False(t, re.id.IsValid(), "no id is read from %s", in)
	}
}

// TestAppendMessage_SameBytesAsSDK: the write fast path produces exactly the
// bytes of jsonrpc.EncodeMessage for responses whose result the SDK
// encoded (compact JSON without HTML escaping), and every other message
// goes through EncodeMessage itself.
func TestAppendMessage_SameBytesAsSDK(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		value := map[string]any{
			"content": []any{map[string]any{"type": "text", "text": rapid.String().Draw(rt, "text")}},
			"isError": rapid.Bool().Draw(rt, "isError"),
			"n":       rapid.Float64().Draw(rt, "n"),
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // as the SDK encodes results
		require.NoError(rt, enc.Encode(value))
		result := json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n"))

		var id jsonrpc.ID
		switch rapid.IntRange(0, 2).Draw(rt, "idKind") {
		case 0:
			id, _ = jsonrpc.MakeID(float64(rapid.Int64Range(-1<<53, 1<<53).Draw(rt, "intID")))
		case 1:
			id, _ = jsonrpc.MakeID(rapid.String().Draw(rt, "strID"))
		}
		var msg jsonrpc.Message = &jsonrpc.Response{ID: id, Result: result}
		if rapid.Bool().Draw(rt, "isErrorResponse") {
			msg = &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: -32603, Message: rapid.String().Draw(rt, "msg")}}
		}
		if rapid.Bool().Draw(rt, "isRequest") {
			msg = &jsonrpc.Request{ID: id, Method: "notifications/message", Params: result}
		}
		want, err := jsonrpc.EncodeMessage(msg)
		require.NoError(rt, err)
		got, err := appendMessage([]byte("prefix"), msg)
		require.NoError(rt, err)
		require.Equal(rt, "prefix"+string(want), string(got))
		require.NotContains(rt, string(got), "\n", "a message is one line")
	})
}

// TestAppendMessage_NewlineInResultStaysOneLine: a result with raw
// whitespace newlines (not produced by the SDK, but possible from a
// hand-built response) is compacted by EncodeMessage, never written as is.
func TestAppendMessage_NewlineInResultStaysOneLine(t *testing.T) {
	id, _ := jsonrpc.MakeID(float64(4))
	got, err := appendMessage(nil, &jsonrpc.Response{ID: id, Result: json.RawMessage("{\n\"a\": 1\r\n}")})
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":4,"result":{"a":1}}`, string(got))
}

// readAll reads a goroutine-mode conn over data until the reader's end and
// returns the messages read and what the conn wrote back.
func readAll(t interface{ Fatalf(string, ...any) }, data []byte, maxBytes int) (msgs []jsonrpc.Message, answers string) {
	var out bytes.Buffer
	c := newConn(bytes.NewReader(data), &out, connOptions{max: maxBytes, log: slog.New(slog.DiscardHandler)})
	defer c.Close()
	for {
		m, err := c.read(context.Background()) // no answers are written here: skip Read's wait for them
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("a bytes.Reader only ends with io.EOF, got %v", err)
			}
			return msgs, out.String()
		}
		msgs = append(msgs, m)
	}
}

// TestReadStream_EveryLineReadOrAnswered: for a stream of lines, each
// non-blank line is either a message or exactly one error answer, in
// order, whatever the line lengths relative to the buffer and the cap.
func TestReadStream_EveryLineReadOrAnswered(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		maxBytes := rapid.IntRange(40, 200).Draw(rt, "max")
		n := rapid.IntRange(0, 12).Draw(rt, "lines")
		var stream bytes.Buffer
		wantMsgs, wantAnswers := 0, 0
		for i := range n {
			switch rapid.IntRange(0, 3).Draw(rt, "kind") {
			case 0: // a valid request, padded to a drawn length
				pad := strings.Repeat("p", rapid.IntRange(0, 250).Draw(rt, "pad"))
				line := `{"jsonrpc":"2.0","id":` + strings.Repeat("1", 1+i%3) + `,"method":"` + pad + `"}`
				if len(line) > maxBytes {
					wantAnswers++
				} else {
					wantMsgs++
				}
				stream.WriteString(line)
			case 1: // garbage
				stream.WriteString("garbage")
				wantAnswers++
			case 2: // blank
				stream.WriteString(strings.Repeat(" ", rapid.IntRange(0, 3).Draw(rt, "spaces")))
			case 3: // a notification with CRLF
				stream.WriteString(`{"jsonrpc":"2.0","method":"n"}` + "\r")
				wantMsgs++
			}
			stream.WriteByte('\n')
		}
		msgs, answers := readAll(rt, stream.Bytes(), maxBytes)
		assert.Len(rt, msgs, wantMsgs)
		got := 0
		if answers != "" {
			got = strings.Count(answers, "\n")
		}
		assert.Equal(rt, wantAnswers, got, "one answer per malformed or over-long line")
	})
}

// TestRead_EndOfInputWaitsForAnswers: at the end of input Read returns
// io.EOF only once every call it returned has been answered, so that a
// client that writes its requests and closes its side gets every answer;
// notifications and rejected lines are not waited for, and Close ends the
// wait at once.
func TestRead_EndOfInputWaitsForAnswers(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" +
		`{"jsonrpc":"2.0","method":"note"}` + "\n" +
		"garbage\n" +
		`{"jsonrpc":"2.0","id":"two","method":"b"}` + "\n"
	for _, closeInstead := range []bool{false, true} {
		var out bytes.Buffer
		c := newConn(strings.NewReader(input), &out, connOptions{drain: time.Minute, log: slog.New(slog.DiscardHandler)})
		ctx := context.Background()
		var calls []jsonrpc.ID
		for range 3 {
			m, err := c.Read(ctx)
			require.NoError(t, err)
			if r := m.(*jsonrpc.Request); r.ID.IsValid() {
				calls = append(calls, r.ID)
			}
		}
		require.Len(t, calls, 2)
		eof := make(chan error, 1)
		go func() {
			_, err := c.Read(ctx)
			eof <- err
		}()
		notYet := func(why string) {
			select {
			case err := <-eof:
				t.Fatalf("Read returned %v %s", err, why)
			case <-time.After(30 * time.Millisecond):
			}
		}
		notYet("while two calls were unanswered")
		require.NoError(t, c.Write(ctx, &jsonrpc.Response{ID: calls[0], Result: json.RawMessage(`{}`)}))
		notYet("while one call was unanswered")
		if closeInstead {
			require.NoError(t, c.Close())
		} else {
			require.NoError(t, c.Write(ctx, &jsonrpc.Response{ID: calls[1], Error: &jsonrpc.Error{Code: -1, Message: "x"}}))
		}
		select {
		case err := <-eof:
			assert.ErrorIs(t, err, io.EOF)
		case <-time.After(10 * time.Second):
			t.Fatal("Read did not return io.EOF once every call was answered (or the conn closed)")
		}
		_ = c.Close()
	}
}

// TestRead_EndOfInputWaitEndsEarly: the end-of-input wait ends without its
// timeout when the server sends a call of its own (its answer can no longer
// arrive), returns at once when such a call is already unanswered, and is
// skipped altogether with a negative DrainTimeout; otherwise it is bounded
// by DrainTimeout even if a call is never answered.
func TestRead_EndOfInputWaitEndsEarly(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call"}` + "\n"
	ctx := context.Background()
	serverCall := &jsonrpc.Request{ID: mustID(t, "s1"), Method: "ping"}
	for _, tc := range []struct {
		name   string
		drain  time.Duration
		before func(c *conn) // after the call is read, before the end of input is reached
		during func(c *conn) // while Read waits at the end of input
	}{
		{"server call while waiting", time.Hour, nil, func(c *conn) { require.NoError(t, c.Write(ctx, serverCall)) }},
		{"server call already unanswered", time.Hour, func(c *conn) { require.NoError(t, c.Write(ctx, serverCall)) }, nil},
		{"no wait", -1, nil, nil},
		{"bounded", 20 * time.Millisecond, nil, nil},
		{"response written on a cancelled context", time.Hour, nil, func(c *conn) {
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			_ = c.Write(cctx, &jsonrpc.Response{ID: mustID(t, float64(1)), Result: json.RawMessage(`{}`)})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newConn(strings.NewReader(call), io.Discard, connOptions{drain: tc.drain, log: slog.New(slog.DiscardHandler)})
			defer c.Close()
			_, err := c.Read(ctx)
			require.NoError(t, err)
			if tc.before != nil {
				tc.before(c)
			}
			eof := make(chan error, 1)
			go func() {
				_, err := c.Read(ctx)
				eof <- err
			}()
			if tc.during != nil {
				// Let Read reach the wait (if it returned already, the case
				// passes anyway: it did not wait).
				time.Sleep(20 * time.Millisecond)
				tc.during(c)
			}
			select {
			case err := <-eof:
				assert.ErrorIs(t, err, io.EOF)
			case <-time.After(10 * time.Second):
				t.Fatal("Read kept waiting at the end of input")
			}
		})
	}
}

func mustID(t *testing.T, v any) jsonrpc.ID {
	id, err := jsonrpc.MakeID(v)
	require.NoError(t, err)
	return id
}

// blockingWriter blocks every Write until released.
type blockingWriter struct{ release chan struct{} }

func (w *blockingWriter) Write(p []byte) (int, error) {
	<-w.release
	return len(p), nil
}

// TestClose_NeverWaitsForARead: Close returns while a direct Read is stuck
// writing an error answer to a client that does not read; that Read then
// releases the reader (closes it) as it returns.
func TestClose_NeverWaitsForARead(t *testing.T) {
	sr, cw, err := os.Pipe()
	require.NoError(t, err)
	defer cw.Close()
	w := &blockingWriter{release: make(chan struct{})}
	c := newConn(sr, w, connOptions{dl: sr, log: slog.New(slog.DiscardHandler)})
	readDone := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		readDone <- err
	}()
	_, err = io.WriteString(cw, "garbage\n") // Read answers it and blocks in the write
	require.NoError(t, err)
	time.Sleep(20 * time.Millisecond)
	closed := make(chan struct{})
	go func() {
		_ = c.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the Read")
	}
	close(w.release)
	select {
	case err := <-readDone:
		assert.ErrorIs(t, err, io.EOF)
	case <-time.After(10 * time.Second):
		t.Fatal("the Read did not return once its write went through")
	}
	_, err = sr.Read(make([]byte, 1))
	assert.ErrorIs(t, err, os.ErrClosed, "the Read released (closed) the reader")
}

// TestReject_NothingWrittenAfterClose: in goroutine mode the reading
// goroutine may outlive the session; it never writes an answer after Close.
func TestReject_NothingWrittenAfterClose(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	var out bytes.Buffer
	var mu sync.Mutex
	c := newConn(struct{ io.Reader }{pr}, writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return out.Write(p)
	}), connOptions{log: slog.New(slog.DiscardHandler)})
	require.NoError(t, c.Close())
	go func() { _, _ = io.WriteString(pw, "garbage\n") }()
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, out.String())
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestStop_ReadsNoMoreAndWaitsForTheAnswers: closing Stop while the client
// keeps its side open ends the session as the end of input does — a
// pending Read (direct on a pipe, or through the reading goroutine)
// returns io.EOF only once the calls read have been answered, and nothing
// more is read — so that a host stopping on SIGTERM writes the answers of
// the calls under way instead of cancelling them.
func TestStop_ReadsNoMoreAndWaitsForTheAnswers(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call"}` + "\n"
	for _, direct := range []bool{true, false} {
		t.Run(map[bool]string{true: "direct", false: "goroutine"}[direct], func(t *testing.T) {
			sr, cw, err := os.Pipe()
			require.NoError(t, err)
			defer cw.Close()
			stop := make(chan struct{})
			o := connOptions{drain: time.Minute, log: slog.New(slog.DiscardHandler), stop: stop}
			var r io.Reader = sr
			if direct {
				o.dl = sr
			} else {
				r = struct{ io.Reader }{sr} // no deadlines: read by a goroutine
			}
			var out testlog.Buffer
			c := newConn(r, &out, o)
			defer c.Close()
			ctx := context.Background()
			_, err = io.WriteString(cw, call)
			require.NoError(t, err)
			m, err := c.Read(ctx)
			require.NoError(t, err)
			id := m.(*jsonrpc.Request).ID

			eof := make(chan error, 1)
			go func() {
				_, err := c.Read(ctx) // blocks: the client sends nothing more
				eof <- err
			}()
			time.Sleep(20 * time.Millisecond)
			close(stop)
			select {
			case err := <-eof:
				t.Fatalf("Read returned %v while the call was unanswered", err)
			case <-time.After(30 * time.Millisecond):
			}
			_, err = io.WriteString(cw, call) // after Stop: never read
			require.NoError(t, err)
			require.NoError(t, c.Write(ctx, &jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)}))
			select {
			case err := <-eof:
				assert.ErrorIs(t, err, io.EOF)
			case <-time.After(10 * time.Second):
				t.Fatal("Read did not return io.EOF once the call was answered")
			}
			_, err = c.Read(ctx)
			assert.ErrorIs(t, err, io.EOF, "nothing is read after Stop")
			assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n", out.String(), "the answer was written")
		})
	}
}
