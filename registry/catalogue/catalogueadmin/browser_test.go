package catalogueadmin_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueadmin"
	"github.com/toolpack-go/toolpack/registry/catalogue/catalogueapi"
	"github.com/toolpack-go/toolpack/registry/catalogue/httptool"
	"github.com/toolpack-go/toolpack/result"
)

const chromiumPath = "/usr/bin/chromium"

// mixedInvoker runs http tools with the catalogue's http invoker and go
// tools with echoInvoker.
type mixedInvoker struct{ http *httptool.Invoker }

func (m mixedInvoker) Invoke(ctx context.Context, t catalogue.Tool, args json.RawMessage) (result.Result[any], error) {
	if t.Type == catalogue.TypeHTTP {
		return m.http.Invoke(ctx, t, args)
	}
	return echoInvoker{}.Invoke(ctx, t, args)
}

// In a real browser (Debian's headless Chromium): open the list, create a
// bundle, create an http tool from the form, switch it off and on, run it
// in the live tester against a local web API, and find it with the search.
// Each step leaves a screenshot in the test's artifact directory.
func TestBrowser_AdminFlow(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("%s is absent (install Debian's chromium package, as .ci/run does): %v", chromiumPath, err)
	}
	weather := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"city": strings.TrimPrefix(r.URL.Path, "/weather/"), "tempC": 21})
	}))
	defer weather.Close()

	st, err := catalogue.OpenFileStore(context.Background(), t.TempDir(), catalogue.FileOptions{ReapInterval: -1, FlushInterval: -1})
	require.NoError(t, err)
	defer st.Close()
	hinv, err := httptool.New(httptool.Options{AllowPrivate: true})
	require.NoError(t, err)
	api, err := catalogueapi.New(catalogueapi.Options{Store: st, Invoker: mixedInvoker{hinv}, Logger: quiet})
	require.NoError(t, err)
	adm, err := catalogueadmin.New(catalogueadmin.Options{Store: st, API: api, Logger: quiet})
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/admin/", http.StripPrefix("/admin", adm))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0],
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 1000))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()

	dir := t.ArtifactDir()
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			buf, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return chromedp.Void{}, err
			}
			return chromedp.Void{}, os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(sel))
		require.NoError(t, err, sel)
		return s
	}
	// waitText waits for the page that a click loads to show want.
	waitText := func(sel, want string) {
		t.Helper()
		require.Eventually(t, func() bool {
			s, err := chromedp.Run(ctx, chromedp.Text(sel))
			return err == nil && s == want
		}, 10*time.Second, 50*time.Millisecond, "%s never showed %q", sel, want)
	}
	// 1. The list, empty; create a bundle with the form.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/admin/"),
		chromedp.WaitVisible(`#new-bundle`),
		shot("1-list"),
		chromedp.SendKeys(`#b-slug`, "weather"),
		chromedp.SendKeys(`#b-name`, "Weather tools"),
		chromedp.Submit(`#new-bundle`),
		chromedp.WaitVisible(`#new-tool`),
		shot("2-bundle"),
	))
	// 2. An http tool from the form, pointing at the local weather API.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(`#t-slug`, "current"),
		chromedp.SendKeys(`#t-version`, "1"),
		chromedp.SendKeys(`#t-name`, "Current weather"),
		chromedp.SendKeys(`#t-desc`, "Current weather of a city."),
		chromedp.SetValue(`#t-type`, "http"),
		chromedp.SetValue(`#t-args`, `{"type":"object","properties":{"city":{"type":"string","minLength":1,"description":"City name."}},"required":["city"],"additionalProperties":false}`),
		chromedp.SetValue(`#t-url`, weather.URL+"/weather/${city}"),
		chromedp.Submit(`#new-tool`),
		chromedp.WaitVisible(`#tester`),
		shot("3-tool"),
	))
	// 3. Switch it off and on again.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(`#tool-switch button`)))
	waitText(`#tool-switch button`, "Enable tool")
	require.NoError(t, chromedp.Do(ctx, shot("4-disabled"), chromedp.Click(`#tool-switch button`)))
	waitText(`#tool-switch button`, "Disable tool")
	// 4. The live tester runs it against the local API.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(`#f-city`, "Lima"),
		chromedp.Submit(`#tester`),
		chromedp.WaitVisible(`#result`),
		shot("5-tester"),
	))
	res := text(`#result`)
	require.Contains(t, res, "ok")
	require.Contains(t, res, `"tempC": 21`)
	require.Contains(t, res, `"city": "Lima"`)
	require.Contains(t, text(`#request`), "GET "+weather.URL+"/weather/Lima", "the request sent is shown")
	// 5. The search finds it by a typo.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/admin/"),
		chromedp.SendKeys(`#q`, "wether"),
		chromedp.Submit(`form[role=search]`),
		chromedp.WaitVisible(`#hits`),
		shot("6-search"),
	))
	require.Contains(t, text(`#hits`), "Current weather")
	key := catalogue.ToolKey{BundleID: mustBundle(t, st).ID, Slug: "current", Version: "1"}
	require.Eventually(t, func() bool { // the API counts usage in the background
		got, err := st.GetTool(context.Background(), key)
		return err == nil && got.CallCount == 1
	}, 10*time.Second, 20*time.Millisecond, "the tester's run is counted")
	t.Logf("screenshots in %s", dir)
}

func mustBundle(t *testing.T, st catalogue.Store) catalogue.Bundle {
	bs, err := st.ListBundles(context.Background(), catalogue.BundleQuery{})
	require.NoError(t, err)
	require.Len(t, bs, 1)
	return bs[0]
}

// The live tester shows the request an http tool sent, with its
// credentials redacted.
func TestLiveTester_ShowsRequestSecretsRedacted(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer upstream.Close()
	st, err := catalogue.OpenFileStore(context.Background(), t.TempDir(), catalogue.FileOptions{ReapInterval: -1, FlushInterval: -1})
	require.NoError(t, err)
	defer st.Close()
	hinv, err := httptool.New(httptool.Options{AllowPrivate: true, Secrets: map[string]string{"TOKEN": "tok-secret-42"}})
	require.NoError(t, err)
	api, err := catalogueapi.New(catalogueapi.Options{Store: st, Invoker: mixedInvoker{hinv}, Logger: quiet})
	require.NoError(t, err)
	adm, err := catalogueadmin.New(catalogueadmin.Options{Store: st, API: api, Logger: quiet, Base: "/"})
	require.NoError(t, err)
	b, _, err := st.PutBundle(context.Background(), uuid.Must(uuid.NewV7()), catalogue.BundleSpec{Slug: "api", DisplayName: "API", IsEnabled: true})
	require.NoError(t, err)
	tl, err := st.PutTool(context.Background(), catalogue.ToolKey{BundleID: b.ID, Slug: "get", Version: "1"}, catalogue.ToolSpec{
		DisplayName: "Get", IsEnabled: true, Type: catalogue.TypeHTTP,
		ArgSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}`),
		HTTPImpl: &catalogue.HTTPImpl{Request: catalogue.HTTPRequest{Method: "GET", URLTemplate: upstream.URL + "/search", Query: map[string]string{"q": "${q}"},
			Auth: &catalogue.HTTPAuth{Type: catalogue.AuthBearer, Token: "${TOKEN}"}}, Response: catalogue.HTTPResponse{Encoding: "json"}},
	})
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodPost, "/bundles/"+b.ID.String()+"/tools/get/1/run", strings.NewReader("arg.q=go+lang"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	rec := httptest.NewRecorder()
	adm.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code)
	body := rec.Body.String()
	require.Contains(t, body, `class="result ok"`)
	require.Contains(t, body, "GET "+upstream.URL+"/search?q=go&#43;lang")
	require.Contains(t, body, "Authorization: [REDACTED]")
	require.NotContains(t, body, "tok-secret-42")
	_ = tl
}
