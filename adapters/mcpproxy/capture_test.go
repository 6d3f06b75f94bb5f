package mcpproxy

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readAllCaptured(t *testing.T, cp *rawCapture, contentType, body string) []string {
	t.Helper()
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {contentType}},
		Body: io.NopCloser(iotest.OneByteReader(strings.NewReader(body)))}
	captureHTTP(cp, resp)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, body, string(got), "the body passes through unchanged")
	var out []string
	for _, r := range cp.finish() {
		out = append(out, string(r))
	}
	return out
}

// The HTTP capture finds the answer to the noted call in a JSON body and
// in an event stream read one byte at a time (CRLF lines, data split over
// several lines, other messages and IDs around it); answers larger than
// the cap are not kept.
func TestCaptureBodyReadsJSONAndEventStreams(t *testing.T) {
	cp := newCapture(1 << 10)
	cp.sent("7")
	got := readAllCaptured(t, cp, "application/json", `{"jsonrpc":"2.0","id":7,"result":{"n":9007199254740993}}`)
	assert.Equal(t, []string{`{"n":9007199254740993}`}, got)

	cp = newCapture(1 << 10)
	cp.sent(`"abc"`)
	stream := "event: message\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\r\n\r\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"other\":true}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":\"abc\",\"result\":{\"mine\":1}}\r\n\r\n"
	got = readAllCaptured(t, cp, "text/event-stream; charset=utf-8", stream)
	assert.Equal(t, []string{`{"mine":1}`}, got)

	cp = newCapture(16)
	cp.sent("1")
	got = readAllCaptured(t, cp, "application/json", `{"jsonrpc":"2.0","id":1,"result":{"text":"`+strings.Repeat("x", 2000)+`"}}`)
	assert.Empty(t, got, "an answer beyond the cap is left to the SDK's decoding")

	cp = newCapture(1 << 10)
	cp.sent("1")
	resp := &http.Response{StatusCode: 401, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader("{}"))}
	captureHTTP(cp, resp)
	_, isCapture := resp.Body.(*captureBody)
	assert.False(t, isCapture, "error answers are not captured")
}
