package httptool_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/httptool"
	"github.com/toolpack-go/toolpack/result"
)

func jsonReply(body string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}
}

func toolWith(t *testing.T, url string, resp catalogue.HTTPResponse, limits catalogue.HTTPLimits, out string) catalogue.Tool {
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: url})
	tool.HTTPImpl.Response = resp
	tool.HTTPImpl.Limits = limits
	if out != "" {
		tool.OutputSchema = json.RawMessage(out)
	}
	return tool
}

func TestJSONResponseKeepsNumbersExact(t *testing.T) {
	rec := newRecorder(t, jsonReply(`{"id": 12345678901234567890, "f": 0.1}`))
	inv := newInvoker(t, httptool.Options{})
	res, err := inv.Invoke(context.Background(), toolWith(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{}, ""), nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, map[string]any{"id": json.Number("12345678901234567890"), "f": json.Number("0.1")}, res.Value)
	assert.Equal(t, "application/json", rec.last(t).Header.Get("Accept"))
}

func TestExtractNarrowsTheAnswer(t *testing.T) {
	rec := newRecorder(t, jsonReply(`{"data":{"items":[{"name":"first"},{"name":"last","a.b":7}]}}`))
	inv := newInvoker(t, httptool.Options{})
	for path, want := range map[string]any{
		"data.items[0].name":    "first",
		"$.data.items[-1].name": "last",
		`data.items[1]["a.b"]`:  json.Number("7"),
		"":                      map[string]any{"data": map[string]any{"items": []any{map[string]any{"name": "first"}, map[string]any{"name": "last", "a.b": json.Number("7")}}}},
	} {
		res, err := inv.Invoke(context.Background(), toolWith(t, rec.URL+"/", catalogue.HTTPResponse{Extract: path}, catalogue.HTTPLimits{}, ""), nil)
		require.NoError(t, err)
		require.True(t, res.Success, res.Error)
		assert.Equal(t, want, res.Value, path)
	}
}

func TestExtractMissingMemberFailsNamingWhere(t *testing.T) {
	rec := newRecorder(t, jsonReply(`{"data":{"items":[]}}`))
	inv := newInvoker(t, httptool.Options{})
	res, err := inv.Invoke(context.Background(), toolWith(t, rec.URL+"/", catalogue.HTTPResponse{Extract: "data.items[0].name"}, catalogue.HTTPLimits{}, ""), nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, httptool.ErrTypeOutputMismatch, res.ErrorType)
	assert.Contains(t, res.Error, "/data/items")
	assert.Contains(t, res.Error, "out of range")
}

func TestParsePath(t *testing.T) {
	for _, bad := range []string{".", "a..b", "a[", "a[x]", "a[+1]", `a["x]`, `a["x"`, "a b", "$x", "[1", "a.[0]"} {
		_, err := httptool.ParsePath(bad)
		assert.ErrorIs(t, err, httptool.ErrExtract, bad)
	}
	p, err := httptool.ParsePath(`a-b._c[2]["\u00e9"]`)
	require.NoError(t, err)
	v, err := p.Apply(map[string]any{"a-b": map[string]any{"_c": []any{0, 1, map[string]any{"é": true}}}})
	require.NoError(t, err)
	assert.Equal(t, true, v)
}

func TestTextEncoding(t *testing.T) {
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "plain {not json}\n\xff")
	})
	inv := newInvoker(t, httptool.Options{})
	res, err := inv.Invoke(context.Background(), toolWith(t, rec.URL+"/", catalogue.HTTPResponse{Encoding: "text"}, catalogue.HTTPLimits{}, `{"type":"string"}`), nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, "plain {not json}\n\uFFFD", res.Value)
}

func TestInvalidJSONAnswerIsAnError(t *testing.T) {
	rec := newRecorder(t, jsonReply(`{"a":1} trailing`))
	inv := newInvoker(t, httptool.Options{})
	_, err := inv.Invoke(context.Background(), toolWith(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{}, ""), nil)
	assert.ErrorIs(t, err, httptool.ErrBadResponse)
	assert.NotContains(t, err.Error(), "trailing")
}

func TestOutputSchemaMismatchNamesThePath(t *testing.T) {
	rec := newRecorder(t, jsonReply(`{"items":[{"name":"a"},{"name":42}],"total":"many"}`))
	inv := newInvoker(t, httptool.Options{})
	schema := `{"type":"object","required":["items","total","next"],"properties":{
		"items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}},
		"total":{"type":"integer"}}}`
	res, err := inv.Invoke(context.Background(), toolWith(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{}, schema), nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, httptool.ErrTypeOutputMismatch, res.ErrorType)
	vs, ok := res.ErrorData.([]httptool.Violation)
	require.True(t, ok)
	assert.ElementsMatch(t, []httptool.Violation{
		{Pointer: "/items/1/name", Keyword: "type"},
		{Pointer: "/total", Keyword: "type"},
		{Pointer: "/next", Keyword: "required"},
	}, vs)
	assert.Contains(t, res.Error, "/items/1/name: type")
	assert.NotContains(t, res.Error, "many", "values are never quoted")

	// A matching answer passes.
	rec2 := newRecorder(t, jsonReply(`{"items":[],"total":0,"next":null}`))
	res, err = inv.Invoke(context.Background(), toolWith(t, rec2.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{}, schema), nil)
	require.NoError(t, err)
	assert.True(t, res.Success, res.Error)
}

func TestOutputSchemaAppliesAfterExtract(t *testing.T) {
	rec := newRecorder(t, jsonReply(`{"data":{"count":"x"}}`))
	inv := newInvoker(t, httptool.Options{})
	res, err := inv.Invoke(context.Background(), toolWith(t, rec.URL+"/", catalogue.HTTPResponse{Extract: "data"}, catalogue.HTTPLimits{},
		`{"type":"object","properties":{"count":{"type":"integer"}}}`), nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, []httptool.Violation{{Pointer: "/count", Keyword: "type"}}, res.ErrorData)
}

func TestUpstreamStatusMapping(t *testing.T) {
	for _, code := range []int{400, 401, 404, 418, 500, 503} {
		rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(code)
			_, _ = io.WriteString(w, `{"error":"nope"}`+strings.Repeat("x", 4096))
		})
		inv := newInvoker(t, httptool.Options{})
		res, err := inv.Invoke(context.Background(), toolWith(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{}, ""), nil)
		require.NoError(t, err)
		require.False(t, res.Success)
		assert.Equal(t, httptool.ErrTypeUpstream, res.ErrorType)
		data, ok := res.ErrorData.(httptool.UpstreamErrorData)
		require.True(t, ok)
		assert.Equal(t, code, data.Status)
		assert.True(t, strings.HasPrefix(data.Excerpt, `{"error":"nope"}`))
		assert.LessOrEqual(t, len(data.Excerpt), httptool.MaxExcerptBytes)
		assert.Contains(t, res.Error, http.StatusText(code))
		assert.Less(t, len(res.Error), 400, "the body is never quoted beyond the excerpt")
	}
}

func TestRetriesOnlyForIdempotentMethods(t *testing.T) {
	var n atomic.Int32
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, `"ok"`)
	})
	inv := newInvoker(t, httptool.Options{RetryBaseWait: time.Millisecond})
	get := toolWith(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{MaxRetries: 2}, "")
	res, err := inv.Invoke(context.Background(), get, nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.EqualValues(t, 2, rec.count())

	post := get
	post.ID, _ = catalogue.NewID()
	impl := *get.HTTPImpl
	impl.Request.Method = "POST"
	post.HTTPImpl = &impl
	res, err = inv.Invoke(context.Background(), post, nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, 503, res.ErrorData.(httptool.UpstreamErrorData).Status)
	assert.EqualValues(t, 3, rec.count(), "POST not retried")
}

func TestTimeoutLimit(t *testing.T) {
	release := make(chan struct{})
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	defer close(release)
	inv := newInvoker(t, httptool.Options{})
	res, err := inv.Invoke(context.Background(), toolWith(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{Timeout: "100ms"}, ""), nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.Timeout, res.ErrorType)
}

func TestResponseCapLimit(t *testing.T) {
	rec := newRecorder(t, jsonReply(`"`+strings.Repeat("x", 1000)+`"`))
	inv := newInvoker(t, httptool.Options{})
	res, err := inv.Invoke(context.Background(), toolWith(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{MaxResponseBytes: 100}, ""), nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.UpstreamFailure, res.ErrorType)
	assert.Contains(t, res.Error, "maxResponseBytes")
}

func TestRequestBodyCapLimit(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "POST", URLTemplate: rec.URL + "/", Body: `{"a":${a}}`})
	tool.HTTPImpl.Limits.MaxRequestBytes = 50
	res, err := inv.Invoke(context.Background(), tool, mustJSON(t, map[string]any{"a": strings.Repeat("y", 100)}))
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Contains(t, res.Error, "maxRequestBytes")
	assert.Zero(t, rec.count())
}

func TestRateLimitPerTool(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{})
	tool := toolWith(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{MaxCallsPerMinute: 1, Timeout: "200ms"}, "")
	res, err := inv.Invoke(context.Background(), tool, nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	res, err = inv.Invoke(context.Background(), tool, nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.RateLimited, res.ErrorType)
	// Another tool has its own budget.
	res, err = inv.Invoke(context.Background(), toolWith(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{MaxCallsPerMinute: 1}, ""), nil)
	require.NoError(t, err)
	assert.True(t, res.Success, res.Error)
}

func TestContextCancellation(t *testing.T) {
	started := make(chan struct{}, 1)
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	inv := newInvoker(t, httptool.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	res, err := inv.Invoke(ctx, toolWith(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{}, ""), nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.Cancelled, res.ErrorType)
	assert.ErrorIs(t, res.Exception, context.Canceled)
}

func TestHostNotAllowedIsSecurityFailure(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{AllowedHosts: []string{"api.example.com"}})
	res, err := inv.Invoke(context.Background(), toolWith(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{}, ""), nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, result.SecurityError, res.ErrorType)
	assert.Zero(t, rec.count())

	// Loopback without AllowAddrs is refused too.
	plain, err := httptool.New(httptool.Options{})
	require.NoError(t, err)
	res, err = plain.Invoke(context.Background(), toolWith(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{}, ""), nil)
	require.NoError(t, err)
	assert.Equal(t, result.SecurityError, res.ErrorType)
}

func TestSecretsAbsentFromErrorsAndLogs(t *testing.T) {
	const secret = "SuperSecret/Value+1"
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		// An upstream that echoes what it got.
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, "bad key "+r.URL.Query().Get("key")+" and "+r.Header.Get("X-K"))
	})
	var logs logBuffer
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"K": secret}, Logger: logs.logger()})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/p/${K}",
		Headers: map[string]string{"X-K": "${K}"},
		Auth:    &catalogue.HTTPAuth{Type: catalogue.AuthAPIKey, In: "query", Name: "key", Value: "${K}"}})
	res, err := inv.Invoke(context.Background(), tool, nil)
	require.NoError(t, err)
	require.False(t, res.Success)
	assert.Equal(t, secret, rec.last(t).Query["key"][0], "the secret was sent")
	out, _ := res.JSON()
	assert.NotContains(t, out, secret)
	assert.Contains(t, out, "[REDACTED]")

	// A refused destination, a timeout and an unknown placeholder.
	blocked := newInvoker(t, httptool.Options{Secrets: map[string]string{"K": secret}, Logger: logs.logger(), AllowedHosts: []string{"x.example"}})
	res, err = blocked.Invoke(context.Background(), tool, nil)
	require.NoError(t, err)
	out, _ = res.JSON()
	assert.Equal(t, result.SecurityError, res.ErrorType)
	assert.NotContains(t, out, secret)
	unknown := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/${nope}", Headers: map[string]string{"X-K": "${K}"}})
	res, err = inv.Invoke(context.Background(), unknown, nil)
	require.NoError(t, err)
	out, _ = res.JSON()
	assert.NotContains(t, out, secret)

	require.NotEmpty(t, logs.String())
	assert.NotContains(t, logs.String(), secret)
	assert.NotContains(t, logs.String(), "SuperSecret%2FValue")
	assert.NotContains(t, logs.String(), "SuperSecret%2FValue%2B1")
}

func TestInvalidToolIsAnError(t *testing.T) {
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"K": "v"}})
	goTool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: "http://127.0.0.1/"})
	goTool.Type = catalogue.TypeGo
	_, err := inv.Invoke(context.Background(), goTool, nil)
	assert.ErrorIs(t, err, httptool.ErrInvalidTool)
	for _, mutate := range []func(*catalogue.Tool){
		func(tl *catalogue.Tool) { tl.HTTPImpl.Request.URLTemplate = "http://${h}/" },
		func(tl *catalogue.Tool) { tl.HTTPImpl.Request.Method = "TRACE" },
		func(tl *catalogue.Tool) { tl.HTTPImpl.Request.Body = `{"a":}` },
		func(tl *catalogue.Tool) { tl.HTTPImpl.Response.Extract = "a[" },
		func(tl *catalogue.Tool) { tl.HTTPImpl.Response.Encoding = "xml" },
		func(tl *catalogue.Tool) { tl.HTTPImpl.Limits.Timeout = "soon" },
		func(tl *catalogue.Tool) { tl.OutputSchema = json.RawMessage(`{"type":12}`) },
		func(tl *catalogue.Tool) { tl.HTTPImpl.Request.Headers = map[string]string{"Bad Name": "x"} },
		func(tl *catalogue.Tool) {
			tl.HTTPImpl.Request.Auth = &catalogue.HTTPAuth{Type: catalogue.AuthAPIKey, In: "header", Name: "X Key", Value: "${K}"}
		},
		func(tl *catalogue.Tool) {
			tl.HTTPImpl.Request.Auth = &catalogue.HTTPAuth{Type: catalogue.AuthHMAC, Name: "X-Sig", Algorithm: "md5", Secret: "${K}"}
		},
		func(tl *catalogue.Tool) {
			tl.HTTPImpl.Request.Auth = &catalogue.HTTPAuth{Type: catalogue.AuthBearer, Token: "literal-token"}
		},
	} {
		tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: "http://127.0.0.1/"})
		mutate(&tool)
		_, err := inv.Invoke(context.Background(), tool, nil)
		assert.ErrorIs(t, err, httptool.ErrInvalidTool)
	}
	assert.Zero(t, inv.Cached(), "failed compilations are not cached")
}

func TestClientCacheBoundedByMaxTools(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{MaxTools: 3})
	tools := make([]catalogue.Tool, 5)
	for i := range tools {
		tools[i] = toolWith(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{MaxCallsPerMinute: 1, Timeout: "100ms"}, "")
		res, err := inv.Invoke(context.Background(), tools[i], nil)
		require.NoError(t, err)
		require.True(t, res.Success, res.Error)
		assert.LessOrEqual(t, inv.Cached(), 3)
	}
	assert.Equal(t, 3, inv.Cached())
	// tools[4] is cached: its rate budget is spent.
	res, err := inv.Invoke(context.Background(), tools[4], nil)
	require.NoError(t, err)
	assert.Equal(t, result.RateLimited, res.ErrorType)
	// tools[0] was evicted: a fresh client, a fresh budget.
	res, err = inv.Invoke(context.Background(), tools[0], nil)
	require.NoError(t, err)
	assert.True(t, res.Success, res.Error)
}

func TestNewRefusesBadOptions(t *testing.T) {
	_, err := httptool.New(httptool.Options{MaxTools: -1, MaxArgsBytes: -1, Defaults: catalogue.HTTPLimits{Timeout: "x"}})
	require.ErrorIs(t, err, httptool.ErrInvalidOptions)
	for _, f := range []string{"MaxTools", "MaxArgsBytes", "Defaults.Timeout"} {
		assert.Contains(t, err.Error(), f)
	}
	_, err = httptool.New(httptool.Options{AllowedHosts: []string{"a b"}})
	assert.ErrorIs(t, err, httptool.ErrInvalidOptions)
}

func TestSecretEchoedInAnswerIsRedacted(t *testing.T) {
	const secret = "k-777-secret"
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"args":{"key":"`+r.URL.Query().Get("key")+`"},"`+r.URL.Query().Get("key")+`":1}`)
	})
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"K": secret}})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/",
		Auth: &catalogue.HTTPAuth{Type: catalogue.AuthAPIKey, In: "query", Name: "key", Value: "${K}"}})
	res, err := inv.Invoke(context.Background(), tool, nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	out, _ := res.JSON()
	assert.NotContains(t, out, secret)
	assert.Equal(t, map[string]any{"args": map[string]any{"key": "[REDACTED]"}, "[REDACTED]": json.Number("1")}, res.Value)
}

func TestSecretStraddlingTheExcerptCapIsRedacted(t *testing.T) {
	const secret = "0123456789abcdefSECRET"
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, strings.Repeat("x", httptool.MaxExcerptBytes-5)+secret)
	})
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"K": secret}})
	res, err := inv.Invoke(context.Background(), toolWith(t, rec.URL+"/", catalogue.HTTPResponse{}, catalogue.HTTPLimits{}, ""), nil)
	require.NoError(t, err)
	data := res.ErrorData.(httptool.UpstreamErrorData)
	assert.LessOrEqual(t, len(data.Excerpt), httptool.MaxExcerptBytes)
	assert.NotContains(t, data.Excerpt, secret[:5], "no prefix of the secret survives the cut")
	assert.NotContains(t, res.Error, secret[:5])
}

// An upstream that cannot be reached is a failure the caller can act on
// (upstream_failure, as a 5xx answer is), not a protocol error: the
// exception wraps ErrRequest, and no secret is in the text.
func TestConnectionFailureIsAnUpstreamFailureWithoutSecrets(t *testing.T) {
	rec := newRecorder(t, nil)
	url := rec.URL
	rec.Close() // nothing listens any more
	const secret = "conn-secret-42"
	inv := newInvoker(t, httptool.Options{Secrets: map[string]string{"K": secret}})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: url + "/${K}", Query: map[string]string{"k": "${K}"}})
	res, err := inv.Invoke(context.Background(), tool, nil)
	require.NoError(t, err)
	assert.False(t, res.Success)
	assert.Equal(t, result.UpstreamFailure, res.ErrorType)
	assert.Contains(t, res.Error, "the upstream could not be reached: ")
	assert.NotContains(t, res.Error, secret)
	require.ErrorIs(t, res.Exception, httptool.ErrRequest)
	assert.NotContains(t, res.Exception.Error(), secret)
}

func TestRewrittenToolVersionCompilesAnew(t *testing.T) {
	rec := newRecorder(t, nil)
	inv := newInvoker(t, httptool.Options{})
	tool := httpTool(t, catalogue.HTTPRequest{Method: "GET", URLTemplate: rec.URL + "/old"})
	_, err := inv.Invoke(context.Background(), tool, nil)
	require.NoError(t, err)
	assert.Equal(t, "/old", rec.last(t).Path)
	impl := *tool.HTTPImpl
	impl.Request.URLTemplate = rec.URL + "/new"
	tool.HTTPImpl = &impl
	tool.ModifiedAt = tool.ModifiedAt.Add(time.Second)
	_, err = inv.Invoke(context.Background(), tool, nil)
	require.NoError(t, err)
	assert.Equal(t, "/new", rec.last(t).Path)
}
