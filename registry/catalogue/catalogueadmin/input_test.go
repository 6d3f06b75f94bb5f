package catalogueadmin_test

import (
	"context"
	"html"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// recordedLogs is a slog.Handler keeping the level and message of every
// record, so that a test can tell that bad input logged no error.
type recordedLogs struct {
	mu      sync.Mutex
	records []string
}

func (l *recordedLogs) Enabled(context.Context, slog.Level) bool { return true }

func (l *recordedLogs) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Level.String()+" "+r.Message)
	return nil
}

func (l *recordedLogs) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *recordedLogs) WithGroup(string) slog.Handler      { return l }

// errors returns the records logged at level ERROR.
func (l *recordedLogs) errors() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.records {
		if strings.HasPrefix(r, "ERROR") {
			out = append(out, r)
		}
	}
	return out
}

// A slug or version in the address that breaks the catalogue's rules is
// bad input: every tool route (the page, its switch, its tester) answers
// 400 naming the field and what was expected — never 500 with an ERROR
// in the log. A bundle id that is not a UUIDv7 is no bundle (404) on
// every route, saying why.
func TestToolRoutes_InvalidAddressIs400(t *testing.T) {
	s := newSite(t)
	b := s.bundle("w", "W", true)
	s.tool(b, "forecast", "echo")
	base := "/admin/bundles/" + b.ID.String() + "/tools/"
	cases := []struct{ path, field string }{
		{base + "a_b/1", "slug"},
		{base + "forecast/1%202", "version"},
		{base + strings.Repeat("x", 65) + "/1", "slug"},
	}
	for _, c := range cases {
		code, body := s.get(c.path)
		assert.Equal(t, http.StatusBadRequest, code, c.path)
		assert.Contains(t, html.UnescapeString(body), c.field+": expected", c.path)
		code, _, body = s.post(c.path+"/enabled", url.Values{"isEnabled": {"false"}}, "same-origin")
		assert.Equal(t, http.StatusBadRequest, code, c.path+"/enabled")
		assert.Contains(t, html.UnescapeString(body), c.field+": expected", c.path+"/enabled")
		code, _, body = s.post(c.path+"/run", url.Values{}, "same-origin")
		assert.Equal(t, http.StatusBadRequest, code, c.path+"/run")
		assert.Contains(t, html.UnescapeString(body), c.field+": expected", c.path+"/run")
	}
	v4 := uuid.Must(uuid.NewRandom()).String()
	for _, p := range []string{"/admin/bundles/" + v4, "/admin/bundles/" + v4 + "/tools/forecast/1"} {
		code, body := s.get(p)
		assert.Equal(t, http.StatusNotFound, code, p)
		assert.Contains(t, body, "expected a UUIDv7", p)
	}
	for _, p := range []string{"/admin/bundles/" + v4 + "/enabled", "/admin/bundles/" + v4 + "/tools", "/admin/bundles/" + v4 + "/tools/forecast/1/enabled"} {
		code, _, body := s.post(p, url.Values{"isEnabled": {"false"}}, "same-origin")
		assert.Equal(t, http.StatusNotFound, code, p)
		assert.Contains(t, body, "expected a UUIDv7", p)
	}
	assert.Empty(t, s.logs.errors(), "bad input is not a server failure")
}

// The on/off switches take isEnabled as the page's switch forms send it,
// "true" or "false"; anything else — a value the page never sends, two
// values, none at all — is refused with 400 naming the field, as the API
// refuses a missing or non-boolean isEnabled, and changes nothing.
func TestSwitches_RefuseWhatIsNotTrueOrFalse(t *testing.T) {
	s := newSite(t)
	b := s.bundle("w", "W", true)
	tl := s.tool(b, "forecast", "echo")
	bundleSwitch := "/admin/bundles/" + b.ID.String() + "/enabled"
	for _, form := range []url.Values{
		{"isEnabled": {"yes"}}, {"isEnabled": {"1"}}, {"isEnabled": {"TRUE"}}, {"isEnabled": {"on"}}, {"isEnabled": {""}},
		{"isEnabled": {"false", "true"}}, {},
	} {
		for _, path := range []string{toolURL(tl) + "/enabled", bundleSwitch} {
			code, _, body := s.post(path, form, "same-origin")
			assert.Equal(t, http.StatusBadRequest, code, "%s %v", path, form)
			assert.Contains(t, html.UnescapeString(body), "isEnabled: expected", "%s %v", path, form)
		}
	}
	got, err := s.store.GetTool(context.Background(), tl.Key())
	require.NoError(t, err)
	assert.True(t, got.IsEnabled, "the tool was left as it was")
	gb, err := s.store.GetBundle(context.Background(), b.ID)
	require.NoError(t, err)
	assert.True(t, gb.IsEnabled, "the bundle was left as it was")
}

// switchForm is the form a page's switch (id) posts: its action and its
// fields, read from the page as a browser would.
func switchForm(t *testing.T, page, id string) (string, url.Values) {
	t.Helper()
	m := regexp.MustCompile(`<form method="post" action="([^"]+)" class="inline" id="` + id + `">\s*<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindStringSubmatch(page)
	require.NotNil(t, m, "the page has the switch %s", id)
	return html.UnescapeString(m[1]), url.Values{m[2]: {html.UnescapeString(m[3])}}
}

// The page's own switch forms, posted as the page renders them, turn a
// tool and its bundle off and on again.
func TestSwitches_PageFormsWork(t *testing.T) {
	s := newSite(t)
	b := s.bundle("w", "W", true)
	tl := s.tool(b, "forecast", "echo")
	flip := func(page, id string) {
		t.Helper()
		_, body := s.get(page)
		action, form := switchForm(t, body, id)
		code, loc, _ := s.post(action, form, "same-origin")
		require.Equal(t, http.StatusSeeOther, code, "%s %v", action, form)
		assert.Equal(t, page, loc)
	}
	enabled := func() (bool, bool) {
		gt, err := s.store.GetTool(context.Background(), tl.Key())
		require.NoError(t, err)
		gb, err := s.store.GetBundle(context.Background(), b.ID)
		require.NoError(t, err)
		return gt.IsEnabled, gb.IsEnabled
	}
	flip(toolURL(tl), "tool-switch")
	tool, bundle := enabled()
	assert.False(t, tool)
	assert.True(t, bundle)
	flip(toolURL(tl), "tool-switch")
	tool, _ = enabled()
	assert.True(t, tool)
	bundlePage := "/admin/bundles/" + b.ID.String()
	flip(bundlePage, "bundle-switch")
	_, bundle = enabled()
	assert.False(t, bundle)
	flip(bundlePage, "bundle-switch")
	_, bundle = enabled()
	assert.True(t, bundle)
}

// The create forms' Enabled checkbox posts "true" when checked (its
// value on the page) and nothing when unchecked (off); a value it never
// sends is refused with 400, shown next to the checkbox.
func TestCreateForms_EnabledCheckbox(t *testing.T) {
	s := newSite(t)
	_, list := s.get("/admin/")
	assert.Regexp(t, `<input type="checkbox" name="isEnabled" value="true" checked>`, list, "the checkbox sends true, checked by default")

	code, loc, _ := s.post("/admin/bundles", url.Values{"slug": {"on"}, "displayName": {"On"}, "isEnabled": {"true"}}, "same-origin")
	require.Equal(t, http.StatusSeeOther, code)
	on, err := catalogue.ParseID(strings.TrimPrefix(loc, "/admin/bundles/"))
	require.NoError(t, err)
	code, loc, _ = s.post("/admin/bundles", url.Values{"slug": {"off"}, "displayName": {"Off"}}, "same-origin")
	require.Equal(t, http.StatusSeeOther, code)
	off, err := catalogue.ParseID(strings.TrimPrefix(loc, "/admin/bundles/"))
	require.NoError(t, err)
	gb, err := s.store.GetBundle(context.Background(), on)
	require.NoError(t, err)
	assert.True(t, gb.IsEnabled)
	gb, err = s.store.GetBundle(context.Background(), off)
	require.NoError(t, err)
	assert.False(t, gb.IsEnabled, "an unchecked checkbox is off")

	code, _, body := s.post("/admin/bundles", url.Values{"slug": {"maybe"}, "displayName": {"Maybe"}, "isEnabled": {"yes"}}, "same-origin")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, html.UnescapeString(body), `isEnabled: expected true or false, got "yes"`)
	bs, err := s.store.ListBundles(context.Background(), catalogue.BundleQuery{IncludeDisabled: true})
	require.NoError(t, err)
	assert.Len(t, bs, 2, "nothing was created")

	_, page := s.get("/admin/bundles/" + on.String())
	assert.Regexp(t, `<input type="checkbox" name="isEnabled" value="true" checked>`, page)
	form := url.Values{"slug": {"t"}, "version": {"1"}, "displayName": {"T"}, "type": {"go"}, "goFunc": {"echo"}, "argSchema": {weatherArgs}}
	code, _, _ = s.post("/admin/bundles/"+on.String()+"/tools", form, "same-origin")
	require.Equal(t, http.StatusSeeOther, code)
	gt, err := s.store.GetTool(context.Background(), catalogue.ToolKey{BundleID: on, Slug: "t", Version: "1"})
	require.NoError(t, err)
	assert.False(t, gt.IsEnabled, "an unchecked checkbox is off")
	form.Set("version", "2")
	form.Set("isEnabled", "1")
	code, _, body = s.post("/admin/bundles/"+on.String()+"/tools", form, "same-origin")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Regexp(t, `value="true" >\s*Enabled</label><div class="err">isEnabled: expected true or false, got &#34;1&#34;</div>`, body, "the problem is next to the checkbox")
	_, err = s.store.GetTool(context.Background(), catalogue.ToolKey{BundleID: on, Slug: "t", Version: "2"})
	assert.ErrorIs(t, err, catalogue.ErrNotFound, "nothing was stored")
}

// A form above the page's cap is refused with 413, not 400.
func TestForms_OversizedIs413(t *testing.T) {
	s := newSite(t)
	b := s.bundle("w", "W", true)
	tl := s.tool(b, "forecast", "echo")
	big := url.Values{"isEnabled": {"false"}, "pad": {strings.Repeat("x", 2<<20)}}
	for _, p := range []string{"/admin/bundles", "/admin/bundles/" + b.ID.String() + "/enabled", "/admin/bundles/" + b.ID.String() + "/tools",
		toolURL(tl) + "/enabled", toolURL(tl) + "/run"} {
		code, _, body := s.post(p, big, "same-origin")
		assert.Equal(t, http.StatusRequestEntityTooLarge, code, p)
		assert.Contains(t, body, "the form is too large: expected at most 1048576 bytes", p)
	}
}
