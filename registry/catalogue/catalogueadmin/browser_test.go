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
