package catalogueapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
)

func TestPutToolCreatesVersion(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	r := e.do("PUT", toolPath(id, "echo", "1.0"), toolBody("Echo", "echo", true, "demo"))
	require.Equal(t, http.StatusCreated, r.status, "%s", r.raw)
	for k, v := range map[string]any{"bundleID": id.String(), "slug": "echo", "version": "1.0", "displayName": "Echo",
		"type": "go", "isEnabled": true, "builtIn": false, "callCount": float64(0)} {
		assert.Equal(t, v, r.body[k], k)
	}
	assert.NotEmpty(t, r.body["id"])
	assert.NotEmpty(t, r.body["createdAt"])
	assert.Equal(t, []any{"demo"}, r.body["tags"])
}

func TestPutToolConflictLeavesStoredToolUntouched(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "echo", "1", toolBody("Original", "echo", true))
	before := e.do("GET", toolPath(id, "echo", "1"), "")
	r := e.do("PUT", toolPath(id, "echo", "1"), toolBody("Replacement", "fail", false))
	require.Equal(t, http.StatusConflict, r.status, "%s", r.raw)
	assert.Equal(t, "conflict", r.errType())
	after := e.do("GET", toolPath(id, "echo", "1"), "")
	assert.Equal(t, before.body, after.body, "the stored tool is untouched")
	// The same <slug, version> in another bundle is fine.
	e.tool(e.bundle("other"), "echo", "1", toolBody("Other", "echo", true))
}

func TestPutToolReportsPathAndBodyErrorsTogether(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	r := e.do("PUT", "/bundles/0190b4d2-0000-4000-8000-000000000000/tools/a_b/version/1%201",
		`{"displayName":"","isEnabled":true,"type":"rust","argSchema":{"type":"string"}}`)
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.raw)
	f := r.fields()
	for _, want := range []string{"bundleID", "toolSlug", "version", "displayName", "type", "argSchema"} {
		assert.Contains(t, f, want, "%s", r.raw)
	}
}

func TestPutToolInMissingBundleIs404(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	r := e.do("PUT", toolPath(newID(t), "t", "1"), toolBody("T", "echo", true))
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Equal(t, "not_found", r.errType())
}

func TestPatchToolTogglesOnlyEnabled(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "t", "1", toolBody("T", "echo", true))
	r := e.do("PATCH", toolPath(id, "t", "1"), `{"isEnabled":false}`)
	require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
	assert.Equal(t, false, r.body["isEnabled"])
	r = e.do("PATCH", toolPath(id, "t", "1"), `{"isEnabled":true,"displayName":"New"}`)
	require.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, r.fields(), "displayName")
	r = e.do("PATCH", toolPath(id, "t", "1"), `{}`)
	require.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, r.fields(), "isEnabled")
	r = e.do("PATCH", toolPath(id, "t", "2"), `{"isEnabled":true}`)
	assert.Equal(t, http.StatusNotFound, r.status)
}

func TestDeleteToolHardDeletes(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "t", "1", toolBody("T", "echo", true))
	r := e.do("DELETE", toolPath(id, "t", "1"), "")
	require.Equal(t, http.StatusNoContent, r.status, "%s", r.raw)
	assert.Empty(t, r.raw)
	assert.Equal(t, http.StatusNotFound, e.do("GET", toolPath(id, "t", "1"), "").status)
	assert.Equal(t, http.StatusNotFound, e.do("DELETE", toolPath(id, "t", "1"), "").status)
	// The version may be published again once deleted.
	e.tool(id, "t", "1", toolBody("T again", "echo", true))
}

func TestGetTool(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "t", "1", toolBody("T", "echo", true))
	r := e.do("GET", toolPath(id, "t", "1"), "")
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, "T", r.body["displayName"])
	assert.Equal(t, map[string]any{"func": "echo"}, r.body["goImpl"])
	assert.Equal(t, http.StatusNotFound, e.do("GET", toolPath(id, "T", "1"), "").status, "slugs are case-sensitive")
	assert.Equal(t, http.StatusNotFound, e.do("GET", toolPath(newID(t), "t", "1"), "").status)
}

func TestInvokeReturnsValue(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "echo", "1", toolBody("Echo", "echo", true))
	r := e.do("POST", toolPath(id, "echo", "1")+"/invoke", `{"args":{"q":"hi","n":2}}`)
	require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
	assert.Equal(t, true, r.body["ok"])
	assert.Equal(t, map[string]any{"q": "hi", "n": float64(2)}, r.body["value"])
	assert.NotContains(t, r.body, "error")
}

func TestInvokeReturnsToolFailure(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "city", "1", toolBody("City", "fail", true))
	r := e.do("POST", toolPath(id, "city", "1")+"/invoke", `{"args":{"q":"Atlantis"}}`)
	require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
	assert.Equal(t, false, r.body["ok"])
	assert.Equal(t, "no such city", r.body["error"])
	assert.Equal(t, "not_found", r.body["errorType"])
	assert.NotContains(t, r.body, "value")
}

func TestInvokeInvokerErrorIs502(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "boom", "1", toolBody("Boom", "boom", true))
	r := e.do("POST", toolPath(id, "boom", "1")+"/invoke", `{"args":{"q":"x"}}`)
	require.Equal(t, http.StatusBadGateway, r.status, "%s", r.raw)
	assert.Equal(t, false, r.body["ok"])
	assert.NotContains(t, string(r.raw), "exploded", "internal error text is logged, not sent")
	assert.Contains(t, e.logs.String(), "backend exploded")
}

// A number past the validator's bounds is a 400 naming the field, in the
// arguments of an invoke and in an argSchema; before, the invoke's
// connection was dropped by a panic in the validator.
func TestHugeNumbersRefusedNamingTheField(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "echo", "1", toolBody("Echo", "echo", true))
	r := e.do("POST", toolPath(id, "echo", "1")+"/invoke", `{"args":{"q":"x","n":1e1000001}}`)
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.raw)
	assert.Equal(t, []string{"args.n"}, r.fields())
	assert.Contains(t, string(r.raw), "expected a number written with at most 400 digits and an exponent between -400 and 400")
	assert.Equal(t, 0, e.inv.count())

	body := strings.Replace(toolBody("Echo", "echo", true), `"minimum":1`, `"minimum":1e1000001`, 1)
	r = e.do("PUT", toolPath(id, "echo", "2"), body)
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.raw)
	assert.Equal(t, []string{"argSchema"}, r.fields())
	assert.Contains(t, string(r.raw), `/properties/n/minimum`)
	assert.Contains(t, string(r.raw), `expected a number written with at most 400 digits`)
}

func TestInvokeValidatesArgsListingEveryViolation(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "echo", "1", toolBody("Echo", "echo", true))
	r := e.do("POST", toolPath(id, "echo", "1")+"/invoke", `{"args":{"n":0,"zzz":true}}`)
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.raw)
	assert.Equal(t, false, r.body["ok"])
	f := r.fields()
	assert.Contains(t, f, "args.q", "missing required q: %s", r.raw)
	assert.Contains(t, f, "args.n", "minimum: %s", r.raw)
	assert.Contains(t, f, "args.zzz", "additionalProperties too: %s", r.raw)
	assert.Equal(t, 0, e.inv.count(), "the invoker is not called with bad args")
}

func TestInvokeBodyIsStrict(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "echo", "1", toolBody("Echo", "echo", true))
	for body, field := range map[string]string{
		`{"q":"hi"}`:                  "args",
		`{"args":{"q":"x"},"more":1}`: "more",
		`{"args":[1]}`:                "args",
		`[1,2]`:                       "",
		`{"args":{"q":"x"}} {}`:       "",
	} {
		r := e.do("POST", toolPath(id, "echo", "1")+"/invoke", body)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", body, r.raw)
		assert.Contains(t, r.fields(), field, "%s: %s", body, r.raw)
	}
	assert.Equal(t, 0, e.inv.count())
}

func TestInvokeRefusesDisabledToolAndBundleNamingHowToSwitchOn(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "off", "1", toolBody("Off", "echo", false))
	e.tool(id, "on", "1", toolBody("On", "echo", true))
	r := e.do("POST", toolPath(id, "off", "1")+"/invoke", `{"args":{"q":"x"}}`)
	assert.Equal(t, http.StatusConflict, r.status)
	assert.Equal(t, "tool_disabled", r.errType())
	assert.Equal(t, `the tool cannot be called: catalogue tool "off" version "1" of bundle "b" is switched off in the tools catalogue; `+
		`switch it on there (the admin page's switch, or PATCH the tool version in the catalogue API with {"isEnabled": true})`, r.body["error"],
		"names the tool and how to switch it on, as a call through the registry does")

	require.Equal(t, http.StatusOK, e.do("PATCH", "/bundles/"+id.String(), `{"isEnabled":false}`).status)
	r = e.do("POST", toolPath(id, "on", "1")+"/invoke", `{"args":{"q":"x"}}`)
	assert.Equal(t, http.StatusConflict, r.status)
	assert.Equal(t, "bundle_disabled", r.errType())
	assert.Contains(t, r.body["error"], `the bundle "b" of catalogue tool "on" version "1" is switched off in the tools catalogue; switch it on there`)

	require.Equal(t, http.StatusOK, e.do("PATCH", "/bundles/"+id.String(), `{"isEnabled":true}`).status)
	require.Equal(t, http.StatusOK, e.do("DELETE", "/bundles/"+id.String(), "").status)
	r = e.do("POST", toolPath(id, "on", "1")+"/invoke", `{"args":{"q":"x"}}`)
	assert.Equal(t, http.StatusConflict, r.status)
	assert.Equal(t, "bundle_deleted", r.errType())
	assert.Equal(t, 0, e.inv.count())

	r = e.do("POST", toolPath(id, "none", "1")+"/invoke", `{"args":{"q":"x"}}`)
	assert.Equal(t, http.StatusNotFound, r.status)
}

func TestInvokeRecordsUsage(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, catalogueapi.Options{Now: func() time.Time { return at }})
	id := e.bundle("b")
	e.tool(id, "echo", "1", toolBody("Echo", "echo", true))
	for range 3 {
		require.Equal(t, http.StatusOK, e.do("POST", toolPath(id, "echo", "1")+"/invoke", `{"args":{"q":"x"}}`).status)
	}
	key := catalogue.ToolKey{BundleID: id, Slug: "echo", Version: "1"}
	require.Eventually(t, func() bool {
		tl, err := e.store.GetTool(t.Context(), key)
		return err == nil && tl.CallCount == 3
	}, 10*time.Second, 5*time.Millisecond)
	r := e.do("GET", toolPath(id, "echo", "1"), "")
	assert.Equal(t, float64(3), r.body["callCount"])
	assert.Equal(t, at.Format(time.RFC3339), r.body["lastCalledAt"])
}

func TestInvokeWithoutInvokerIs501(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{Invoker: nilInvoker{}})
	// Build a handler without an invoker over the same store.
	h, err := catalogueapi.New(catalogueapi.Options{Store: e.store})
	require.NoError(t, err)
	id := e.bundle("b")
	e.tool(id, "echo", "1", toolBody("Echo", "echo", true))
	rec := serve(h, "POST", toolPath(id, "echo", "1")+"/invoke", `{"args":{"q":"x"}}`)
	assert.Equal(t, http.StatusNotImplemented, rec.Code)
	var body map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	assert.Equal(t, "not_implemented", body["errorType"])
}

// blockingUsage is a store whose RecordUsage waits until released.
type blockingUsage struct {
	catalogue.Store
	release chan struct{}
	done    chan struct{}
}

func (s *blockingUsage) RecordUsage(ctx context.Context, key catalogue.ToolKey, at time.Time) error {
	<-s.release
	defer close(s.done)
	return s.Store.RecordUsage(ctx, key, at)
}

func TestInvokeUsageNeverBlocksTheAnswer(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "echo", "1", toolBody("Echo", "echo", true))
	slow := &blockingUsage{Store: e.store, release: make(chan struct{}), done: make(chan struct{})}
	h, err := catalogueapi.New(catalogueapi.Options{Store: slow, Invoker: e.inv})
	require.NoError(t, err)
	rec := serve(h, "POST", toolPath(id, "echo", "1")+"/invoke", `{"args":{"q":"x"}}`)
	assert.Equal(t, http.StatusOK, rec.Code, "answered while RecordUsage is still blocked")
	close(slow.release)
	select {
	case <-slow.done:
	case <-time.After(10 * time.Second):
		t.Fatal("RecordUsage was not called")
	}
	tl, err := e.store.GetTool(t.Context(), catalogue.ToolKey{BundleID: id, Slug: "echo", Version: "1"})
	require.NoError(t, err)
	assert.Equal(t, int64(1), tl.CallCount)
}

// countingUsage is a store counting RecordUsage calls.
type countingUsage struct {
	catalogue.Store
	mu sync.Mutex
	n  int
}

func (s *countingUsage) RecordUsage(ctx context.Context, key catalogue.ToolKey, at time.Time) error {
	s.mu.Lock()
	s.n++
	s.mu.Unlock()
	return s.Store.RecordUsage(ctx, key, at)
}

// With InvokerRecordsUsage the handler leaves counting to the Invoker (a
// registry's tool counts its calls): a call is never counted twice.
func TestInvokeLeavesUsageToAnInvokerThatCounts(t *testing.T) {
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("b")
	e.tool(id, "echo", "1", toolBody("Echo", "echo", true))
	st := &countingUsage{Store: e.store}
	h, err := catalogueapi.New(catalogueapi.Options{Store: st, Invoker: e.inv, InvokerRecordsUsage: true})
	require.NoError(t, err)
	rec := serve(h, "POST", toolPath(id, "echo", "1")+"/invoke", `{"args":{"q":"x"}}`)
	require.Equal(t, http.StatusOK, rec.Code)
	time.Sleep(50 * time.Millisecond) // the handler would count in the background
	st.mu.Lock()
	defer st.mu.Unlock()
	assert.Zero(t, st.n)
}

// PUT of an http tool whose Authorization header holds a literal
// credential is refused (400) naming the header, without echoing the
// value, and nothing is stored; "Bearer ${TOKEN}" is accepted.
func TestPutTool_LiteralCredentialHeaderRefused(t *testing.T) {
	const literal = "S3CR3T-literal-HDR"
	e := newEnv(t, catalogueapi.Options{})
	id := e.bundle("lit")
	body := func(auth string) string {
		b, err := json.Marshal(map[string]any{"displayName": "Lit", "isEnabled": true, "type": "http",
			"argSchema": json.RawMessage(`{"type":"object","properties":{}}`),
			"httpImpl": map[string]any{"request": map[string]any{"method": "GET", "urlTemplate": "https://api.example.test/x",
				"headers": map[string]string{"Authorization": auth}}}})
		require.NoError(t, err)
		return string(b)
	}
	r := e.do("PUT", toolPath(id, "lit", "1.1"), body("Bearer "+literal))
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.raw)
	assert.Equal(t, []string{`httpImpl.request.headers["Authorization"]`}, r.fields())
	assert.NotContains(t, string(r.raw), literal)
	assert.NotContains(t, e.logs.String(), literal)
	assert.Equal(t, http.StatusNotFound, e.do("GET", toolPath(id, "lit", "1.1"), "").status)
	e.tool(id, "lit", "1.1", body("Bearer ${TOKEN}"))
}
