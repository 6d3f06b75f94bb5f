package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/adapters/httpapi"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// TestStatusTable pins the error type → status table: every result.ErrorType
// constant has its documented status, and the table holds nothing else
// (packs declare their own error types with their tools).
func TestStatusTable(t *testing.T) {
	want := map[result.ErrorType]int{
		result.ValidationError:  400,
		result.NotFound:         404,
		result.SecurityError:    403,
		result.PermissionDenied: 403,
		result.UpstreamFailure:  502,
		result.Timeout:          504,
		result.Cancelled:        499,
		result.RateLimited:      429,
		result.Conflict:         409,
		result.Unavailable:      503,
		result.InternalError:    500,
		// Anything else, a pack's own error type included, is a domain
		// failure unless the tool declares a status for it.
		"invalid_query":  422,
		"":               422,
		"quota_exceeded": 422,
	}
	for typ, status := range want {
		require.Equal(t, status, httpapi.StatusFor(typ), "error type %q", typ)
	}
	seen := map[result.ErrorType]bool{}
	for _, row := range httpapi.ErrorStatuses() {
		require.False(t, seen[row.Type], "%q listed twice", row.Type)
		seen[row.Type] = true
		require.Equal(t, row.Status, httpapi.StatusFor(row.Type))
		require.NotEmpty(t, row.Meaning)
		_, pinned := want[row.Type]
		require.True(t, pinned, "row %q is not pinned by this test", row.Type)
	}
	// ErrorStatuses returns a copy: changing it changes nothing.
	rows := httpapi.ErrorStatuses()
	rows[0].Status = 999
	require.Equal(t, 400, httpapi.StatusFor(rows[0].Type))
}

// TestPropertyUnlistedErrorTypesAre422: any error type outside the table is
// a 422 (and every status StatusFor returns is a 4xx or 5xx).
func TestPropertyUnlistedErrorTypesAre422(t *testing.T) {
	listed := map[result.ErrorType]bool{}
	for _, row := range httpapi.ErrorStatuses() {
		listed[row.Type] = true
	}
	rapid.Check(t, func(t *rapid.T) {
		typ := result.ErrorType(rapid.StringMatching(`[a-z_]{0,20}`).Draw(t, "type"))
		s := httpapi.StatusFor(typ)
		if !listed[typ] {
			require.Equal(t, 422, s)
		}
		require.True(t, s >= 400 && s < 600, "status %d", s)
	})
}

// TestPropertyInvalidNamesNeverReachTools: for any path segment, a name
// outside [A-Za-z0-9_.-]{1,128} is refused with a JSON 400/404 before the
// registry is asked, and a valid one reaches the registry (200, 400 from its
// validation, or 404 unknown_tool).
func TestPropertyInvalidNamesNeverReachTools(t *testing.T) {
	h := httpapi.New(newRegistry(t), httpapi.Options{Logger: discardLogger()})
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.OneOf(
			rapid.StringMatching(`[A-Za-z0-9_.-]{1,130}`),
			rapid.String(),
			rapid.SampledFrom([]string{"search", "ping", "..", ".", "search/..", "a/b", "\x00", "é"}),
		).Draw(t, "name")
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{}`))
		req.URL = &url.URL{Path: "/tools/" + name + "/invoke"}
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
		valid := validToolName(name)
		body := rec.Body.String()
		switch {
		case valid && (name == "ping"):
			require.Equal(t, 200, rec.Code, body)
		case valid && name == "search":
			require.Equal(t, 400, rec.Code, body)
			require.Contains(t, body, `"validation_error"`)
		case valid && name != "." && name != "..":
			require.Contains(t, []int{200, 400, 404, 422, 499, 500, 504}, rec.Code, body)
		default:
			require.Contains(t, []int{400, 404}, rec.Code, body)
			require.NotContains(t, body, `"ok":true`)
			require.NotContains(t, body, `"validation_error"`, "never reached a tool")
		}
	})
}

func validToolName(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// TestStatus_ToolDeclaredErrorTypes: a pack's own error types get the status
// their tool declares (registry.Tool.Errors), for that tool only; the
// OpenAPI document lists them on the tool's operation; a declaration may
// also move a result type's status for its tool.
func TestStatus_ToolDeclaredErrorTypes(t *testing.T) {
	reg := registry.New(registry.Options{Prefix: new(""), Logger: discardLogger()})
	fail := func(typ result.ErrorType) func(context.Context, NoArgs) (result.Result[string], error) {
		return func(context.Context, NoArgs) (result.Result[string], error) {
			return result.Failure[string]("no", typ), nil
		}
	}
	decl := []registry.ErrorSpec{
		{Type: "invalid_query", Status: 400, Description: "the query is unusable"},
		{Type: result.NotFound, Status: 410, Description: "the page is gone"},
		{Type: "quota_exceeded", Description: "no status of its own"},
	}
	require.NoError(t, registry.AddFunc(reg, "search", fail("invalid_query"), registry.ToolOptions{Errors: decl}))
	require.NoError(t, registry.AddFunc(reg, "gone", fail(result.NotFound), registry.ToolOptions{Errors: decl}))
	require.NoError(t, registry.AddFunc(reg, "quota", fail("quota_exceeded"), registry.ToolOptions{Errors: decl}))
	require.NoError(t, registry.AddFunc(reg, "other", fail("invalid_query"), registry.ToolOptions{}))
	h := httpapi.New(reg, httpapi.Options{Logger: discardLogger()})
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	for tool, want := range map[string]int{"search": 400, "gone": 410, "quota": 422, "other": 422} {
		r := invoke(t, srv.URL, tool, `{}`)
		require.Equal(t, want, r.Status, "tool %s", tool)
	}
	doc := do(t, http.MethodGet, srv.URL+"/openapi.json", "", nil)
	require.Equal(t, http.StatusOK, doc.Status)
	assert.Contains(t, string(doc.Body), "a domain failure of type invalid_query: the query is unusable")
	assert.Contains(t, string(doc.Body), `"410"`)
}
