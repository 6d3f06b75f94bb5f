package mcpproxy_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/adapters/mcpproxy"
	"github.com/toolpack-go/toolpack/adapters/mcpproxy/internal/testmcp"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// Secrets planted in the hostile tests. Some hold characters that JSON and
// URLs escape, so that the escaped forms are exercised too.
const (
	bearerSecret = "PROXY-SECRET-123-bearer-7f3a"
	apiKeySecret = `k"e\y<&>-API-SECRET-5521`
	querySecret  = "qsecret-SECRET-73"
	envSecretA   = "envsecret-SECRET-64"
	envSecretB   = `env"quoted<-SECRET-55`
	argMarker    = "ARG-VALUE-7731"
)

var allSecrets = []string{bearerSecret, apiKeySecret, querySecret, envSecretA, envSecretB}

// separators matches what a remote may insert inside a secret: white space
// and the JSON escapes \n, \r and \t.
var separators = regexp.MustCompile(`[ \t\r\n]|\\[nrt]`)

// secretForms are the forms in which a secret must never appear: as is,
// JSON-escaped (with and without HTML escaping) and URL-escaped.
func secretForms(s string) []string {
	plain, _ := json.Marshal(s)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	noHTML := strings.TrimSpace(b.String())
	return []string{s, string(plain[1 : len(plain)-1]), noHTML[1 : len(noHTML)-1], url.QueryEscape(s), url.PathEscape(s)}
}

// assertNoSecret fails when text holds a secret in any of its forms, also
// with separators inserted.
func assertNoSecret(t *testing.T, where, text string, secrets ...string) {
	t.Helper()
	flat := separators.ReplaceAllString(text, "")
	for _, s := range secrets {
		for _, f := range secretForms(s) {
			if strings.Contains(text, f) {
				t.Errorf("%s holds the secret %q (as %q)", where, s, f)
			} else if ff := separators.ReplaceAllString(f, ""); len(ff) >= 8 && strings.Contains(flat, ff) {
				t.Errorf("%s holds the secret %q split by separators", where, s)
			}
		}
	}
}

// seen collects everything the proxy let out: results and errors as the
// registry got them.
type seen struct{ texts []string }

func (s *seen) result(name string, res result.Result[any], err error) {
	v, _ := json.Marshal(res.Value)
	d, _ := json.Marshal(res.ErrorData)
	s.texts = append(s.texts, fmt.Sprintf("%s: %+v value=%s data=%s error=%s", name, res, v, d, res.Error))
	if err != nil {
		s.texts = append(s.texts, fmt.Sprintf("%s: %v / %+v", name, err, err))
		var werr *jsonrpc.Error
		if errors.As(err, &werr) {
			s.texts = append(s.texts, name+": remote message: "+werr.Message+" data: "+string(werr.Data))
		}
	}
}

// leakyServer serves testmcp over HTTP on 127.0.0.1. It copies the URL
// query into the X-Query header, so that the leak tools echo it too, and
// refuses a request whose Authorization differs from "Bearer "+wantBearer
// with a 401 whose JSON-RPC error echoes the header it got.
func leakyServer(t *testing.T, opts testmcp.Options, wantBearer string) *httptest.Server {
	t.Helper()
	ts := startHTTP(t, testmcp.New(opts), func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if got := r.Header.Get("Authorization"); got != "Bearer "+wantBearer {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				msg, _ := json.Marshal("bad credentials: " + got)
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":%s}}`, msg)
				return
			}
			r.Header.Set("X-Query", r.URL.RawQuery)
			h.ServeHTTP(w, r)
		})
	})
	return ts
}

// withCredentials puts the query secret into base (user information is
// refused: TestValidate_URLWithUserInformationRefused).
func withCredentials(t *testing.T, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	require.NoError(t, err)
	u.Path = "/mcp"
	u.RawQuery = url.Values{"key": {querySecret}}.Encode()
	return u.String()
}

func httpHeaders() map[string]string {
	return map[string]string{"Authorization": "Bearer " + bearerSecret, "X-Api-Key": apiKeySecret}
}

func traceRegistry() (*registry.Registry, *logBuffer) {
	b := &logBuffer{}
	log := slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: registry.LevelTrace}))
	return registry.New(registry.Options{Prefix: new(""), Logger: log}), b
}

// A remote JSON-RPC error that echoes the caller's arguments and the
// configured headers reaches neither the logs (the registry logs errors at
// ERROR) nor the error text; the remote error, secrets redacted, stays
// reachable with errors.As.
func TestRemoteProtocolErrorNeverLogsArgumentsOrSecrets(t *testing.T) {
	reg, regLogs := traceRegistry()
	logger, logs := captureLogger()
	newProxy(t, reg, []mcpproxy.Config{{Name: "api", URL: leakyServer(t, testmcp.Options{}, bearerSecret).URL + "/mcp",
		Headers: httpHeaders()}}, mcpproxy.Options{Logger: logger})

	_, err := reg.Invoke(callCtx(t), "api.leak_protocol", json.RawMessage(`{"password":"`+argMarker+`"}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `server "api" tool "leak_protocol"`)
	assert.Contains(t, err.Error(), fmt.Sprint(testmcp.LeakCode), "the text names the JSON-RPC code")
	assert.NotContains(t, err.Error(), argMarker, "the error text holds no argument value")
	var werr *jsonrpc.Error
	require.True(t, errors.As(err, &werr), "the remote error stays reachable: %v", err)
	assert.EqualValues(t, testmcp.LeakCode, werr.Code)
	assert.Contains(t, werr.Message, "[REDACTED]")
	assert.Contains(t, werr.Message, argMarker, "the remote message itself is the caller's to read")

	everything := err.Error() + werr.Message + string(werr.Data) + regLogs.String() + logs.String()
	assertNoSecret(t, "the error or the logs", everything, bearerSecret, apiKeySecret)
	assert.NotContains(t, regLogs.String()+logs.String(), argMarker, "argument values are never logged")
	assert.Contains(t, regLogs.String(), "level=ERROR", "the registry logged the failure")
}

// A remote tool's error text and error data reach the client with the
// configured secrets redacted: as is, split across lines, JSON-escaped,
// and as structured keys and values.
func TestRemoteToolErrorTextIsRedactedForClient(t *testing.T) {
	reg := newRegistry()
	newProxy(t, reg, []mcpproxy.Config{{Name: "api", URL: leakyServer(t, testmcp.Options{}, bearerSecret).URL + "/mcp",
		Headers: httpHeaders()}}, mcpproxy.Options{})

	res, err := reg.Invoke(callCtx(t), "api.leak_error", nil)
	require.NoError(t, err)
	assert.Equal(t, result.UpstreamFailure, res.ErrorType)
	assert.Contains(t, res.Error, "you sent [REDACTED]", "the text around the secret is kept")
	assert.Contains(t, res.Error, "split: [REDACTED]")
	data, err := json.Marshal(res.ErrorData)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"secret_0":"[REDACTED]"`)
	assertNoSecret(t, "the error result", res.Error+string(data), bearerSecret, apiKeySecret)
}

// Successful results are redacted too: a remote that echoes a credential
// must not hand it to the client.
func TestRemoteResultsAreRedacted(t *testing.T) {
	reg := newRegistry()
	newProxy(t, reg, []mcpproxy.Config{{Name: "api", URL: leakyServer(t, testmcp.Options{}, bearerSecret).URL + "/mcp",
		Headers: httpHeaders()}}, mcpproxy.Options{})

	res, err := reg.Invoke(callCtx(t), "api.leak_ok", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Contains(t, res.Value, "hello [REDACTED]; split [REDACTED]")
	assertNoSecret(t, "the text result", res.Value.(string), bearerSecret, apiKeySecret)

	res, err = reg.Invoke(callCtx(t), "api.leak_structured", nil)
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	js, err := json.Marshal(res.Value)
	require.NoError(t, err)
	assert.Contains(t, string(js), `"[REDACTED]"`)
	assertNoSecret(t, "the structured result", string(js), bearerSecret, apiKeySecret)

	res, err = reg.Invoke(callCtx(t), "api.echo", json.RawMessage(`{"text":"ordinary text stays as it is"}`))
	require.NoError(t, err)
	assert.Equal(t, "ordinary text stays as it is", res.Value)
}

// Secrets planted in every upstream path of the proxy — header values, URL
// query values, environment values of a child; echoed by
// remote JSON-RPC errors, tool error results, successful results, tool
// listings and server names, 401 answers, connection failures to a URL
// with credentials, and a child's standard error — are searched for in the
// proxy's logs (DEBUG), the registry's logs (TRACE), the children's
// standard error as forwarded, Status, the registered tools, and every
// result and error the registry sees.
func TestHostileSecretsNeverSurface(t *testing.T) {
	bin := testServer(t)
	reg, regLogs := traceRegistry()
	logger, logs := captureLogger()
	stderr := &logBuffer{}

	described := apiKeySecret + " and " + bearerSecret
	api := leakyServer(t, testmcp.Options{Name: "srv " + bearerSecret, Describe: described}, bearerSecret).URL
	flaky := leakyServer(t, testmcp.Options{}, bearerSecret)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + l.Addr().String()
	require.NoError(t, l.Close())
	failFile := filepath.Join(t.TempDir(), "fail")
	require.NoError(t, os.WriteFile(failFile, nil, 0o600))
	childEnv := map[string]string{"TESTMCP_SECRET_A": envSecretA, "TESTMCP_SECRET_B": envSecretB, "TESTSERVER_STDERR_LEAK": "1"}
	failEnv := map[string]string{"TESTMCP_SECRET_A": envSecretA, "TESTMCP_SECRET_B": envSecretB,
		"TESTSERVER_STDERR_LEAK": "1", "TESTSERVER_FAILFILE": failFile}

	p := newProxy(t, reg, []mcpproxy.Config{
		{Name: "api", URL: withCredentials(t, api), Headers: httpHeaders()},
		{Name: "flaky", URL: withCredentials(t, flaky.URL), Headers: httpHeaders()},
		{Name: "denied", URL: withCredentials(t, api), Headers: map[string]string{"Authorization": "Bearer " + bearerSecret + "-wrong"}},
		{Name: "gone", URL: withCredentials(t, closed), Headers: httpHeaders()},
		{Name: "child", Command: []string{bin}, Env: childEnv},
		{Name: "childfail", Command: []string{bin}, Env: failEnv},
	}, mcpproxy.Options{Logger: logger, Stderr: stderr, Backoff: mcpproxy.Backoff{Initial: 1, Max: 1, MaxTries: 2}})

	for _, name := range []string{"api", "flaky", "child"} {
		require.Equal(t, mcpproxy.Connected, statusOf(t, p, name).State, "%s: %s", name, statusOf(t, p, name).LastError)
	}
	for _, name := range []string{"denied", "gone", "childfail"} {
		require.Equal(t, mcpproxy.Disconnected, statusOf(t, p, name).State, name)
		require.NotEmpty(t, statusOf(t, p, name).LastError, name)
	}

	var out seen
	args := json.RawMessage(`{"note":"` + argMarker + `"}`)
	for _, server := range []string{"api", "child"} {
		for _, tool := range []string{"leak_protocol", "leak_error", "leak_ok", "leak_structured"} {
			res, err := reg.Invoke(callCtx(t), server+"."+tool, args)
			out.result(server+"."+tool, res, err)
		}
	}
	res, err := reg.Invoke(callCtx(t), "api.described", nil)
	out.result("api.described", res, err)

	// flaky goes away: the failed call's error names its URL; the next
	// call finds the server disconnected, with that failure as last error.
	flaky.CloseClientConnections()
	flaky.Close()
	res, err = reg.Invoke(callCtx(t), "flaky.leak_ok", args)
	out.result("flaky.leak_ok", res, err)
	res, err = reg.Invoke(callCtx(t), "flaky.echo", json.RawMessage(`{"text":"x"}`))
	out.result("flaky.echo", res, err)

	for _, tl := range reg.List() {
		schemas := string(tl.InputSchema) + string(tl.OutputSchema)
		out.texts = append(out.texts, fmt.Sprintf("tool %s %q %q %s %s %s %s", tl.Name, tl.Title, tl.Description, schemas, tl.Usage.Signature, tl.Usage.Args, tl.Usage.Returns))
	}
	require.NoError(t, p.Close())
	out.texts = append(out.texts, fmt.Sprintf("%+v %s", p.Status(), p.Health()))

	places := map[string]string{
		"the proxy logs":                    logs.String(),
		"the registry logs":                 regLogs.String(),
		"the forwarded stderr":              stderr.String(),
		"results, errors, tools and status": strings.Join(out.texts, "\n"),
	}
	for where, text := range places {
		assertNoSecret(t, where, text, allSecrets...)
	}
	assert.NotContains(t, logs.String()+regLogs.String(), argMarker, "argument values are never logged")

	// The checks above looked at real text.
	assert.Contains(t, stderr.String(), "testserver: using [REDACTED]", "the child's stderr was forwarded")
	assert.Contains(t, places["results, errors, tools and status"], "hello [REDACTED]")
	assert.Contains(t, places["results, errors, tools and status"], "Description [REDACTED] and [REDACTED]")
	assert.Contains(t, places["results, errors, tools and status"], `MCP server "flaky"`)
	assert.Contains(t, logs.String(), "level=DEBUG", "the retries were logged at DEBUG")
	assert.Contains(t, statusOf(t, p, "denied").LastError, "bad credentials")
}

// Config.Secrets (a host configuration's ${VAR} values) are redacted as
// header values are wherever the server's name is written: a token in a
// URL's path or host, an API key as a command argument, in the log,
// the status and the failures of calls.
func TestSecretsInURLAndCommandRedacted(t *testing.T) {
	const token, key = "tok-5ecret-path-9876", "k3y-arg-5ecret-4321"
	log, buf := captureLogger()
	reg := newRegistry()
	p := newProxy(t, reg, []mcpproxy.Config{
		{Name: "web", URL: "http://127.0.0.1:1/mcp/" + token + "/sse", Secrets: []string{token}},
		{Name: "kid", Command: []string{"/nonexistent/bin-" + key, "--api-key", key}, Secrets: []string{key}},
	}, mcpproxy.Options{Logger: log, ConnectTimeout: 2 * time.Second})
	for _, name := range []string{"web", "kid"} {
		st := statusOf(t, p, name)
		require.Equal(t, mcpproxy.Disconnected, st.State, name)
		assertNoSecret(t, name+" status", st.LastError, token, key)
	}
	assertNoSecret(t, "log", buf.String(), token, key)
	assert.Contains(t, buf.String(), "[REDACTED]", "the values were there, redacted")
}

// Config.Secrets are kept out of logs and the status, not out of the
// tools' results: a value such as a directory given as an argument
// (${WORKDIR}) may rightly be in what a tool returns.
func TestSecretsLeaveResultsAlone(t *testing.T) {
	const dir = "/home/alice-workdir"
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{Name: "kid"})
	newProxy(t, reg, []mcpproxy.Config{{Name: "kid", Transport: remote.factory, Secrets: []string{dir}}}, mcpproxy.Options{})
	require.Eventually(t, func() bool { _, _, ok := reg.Resolve("kid.echo"); return ok }, waitBound, 10*time.Millisecond)
	res, err := reg.Invoke(callCtx(t), "kid.echo", []byte(`{"text":"`+dir+`/docs/report.txt"}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Contains(t, fmt.Sprint(res.Value), dir+"/docs/report.txt")
}

// A failure is an error text: Config.Secrets (a token in the URL's path,
// a key given as a command argument) are redacted from the text and data
// of a remote's isError result and from a remote JSON-RPC error, as header
// and env values are; a successful result keeps them (a value such as a
// directory may rightly be in what a tool returns).
func TestFailuresRedactConfigSecrets(t *testing.T) {
	const urlTok, argKey = "urltok-5ecret-path-4411", "argkey-5ecret-cmd-8822"
	bin := testServer(t)
	ts := startHTTP(t, testmcp.New(testmcp.Options{}), func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Set("X-Path", r.URL.Path) // a remote that echoes the request path
			h.ServeHTTP(w, r)
		})
	})
	reg := newRegistry()
	newProxy(t, reg, []mcpproxy.Config{
		{Name: "web", URL: ts.URL + "/mcp/" + urlTok, Secrets: []string{urlTok}},
		{Name: "kid", Command: []string{bin, "--key=" + argKey}, Secrets: []string{argKey}},
	}, mcpproxy.Options{})

	for server, secret := range map[string]string{"web": urlTok, "kid": argKey} {
		res, err := reg.Invoke(callCtx(t), server+".leak_error", nil)
		require.NoError(t, err, server)
		require.False(t, res.Success, server)
		data, err := json.Marshal(res.ErrorData)
		require.NoError(t, err)
		assert.Contains(t, res.Error, "[REDACTED]", "%s: the failure text held the secret", server)
		assertNoSecret(t, server+" isError result", res.Error+string(data), secret)

		_, err = reg.Invoke(callCtx(t), server+".leak_protocol", nil)
		require.Error(t, err, server)
		var werr *jsonrpc.Error
		require.True(t, errors.As(err, &werr), server)
		assert.Contains(t, werr.Message, "[REDACTED]", "%s: the remote message held the secret", server)
		assertNoSecret(t, server+" JSON-RPC error", err.Error()+werr.Message+string(werr.Data), secret)

		res, err = reg.Invoke(callCtx(t), server+".leak_ok", nil)
		require.NoError(t, err, server)
		require.True(t, res.Success, server)
		assert.True(t, strings.Contains(res.Value.(string), secret), "%s: a successful result keeps Config.Secrets", server)
	}
}

// Status keeps Config.Secrets out of the remote's name and version too (a
// server that names itself after its command line).
func TestStatusRemoteRedactsConfigSecrets(t *testing.T) {
	const key = "argkey-5ecret-name-3377"
	reg := newRegistry()
	remote := newMemRemote(testmcp.Options{Name: "srv --key=" + key})
	p := newProxy(t, reg, []mcpproxy.Config{{Name: "kid", Transport: remote.factory, Secrets: []string{key}}}, mcpproxy.Options{})
	st := statusOf(t, p, "kid")
	require.Equal(t, mcpproxy.Connected, st.State, st.LastError)
	assert.Equal(t, "srv --key=[REDACTED] 1.0.0", st.Remote)
}
